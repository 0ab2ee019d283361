// Types of scripts/cluster.mjs for the TypeScript tests that import it.
export interface ClusterProcess {
  name: string;
  exited: boolean;
  code: unknown;
  /** Date.now() when the process was spawned and when it exited. */
  startedAt: number;
  exitedAt: number | undefined;
}
export interface StartedCluster {
  gateways: string[];
  tasksAddress: string;
  logDir: string;
  /** Process name (`tasks`, `gateway-1`, …) → its /metrics URL, when started with `metrics: true`. */
  metricsUrls: Map<string, string>;
  procs: Map<string, ClusterProcess>;
  credentials(): { a2aKey?: string; invokeKey?: string; adminToken?: string; operatorToken?: string };
  kill(name: string): Promise<void>;
  stop(name: string): Promise<void>;
  restart(name: string): Promise<unknown>;
  stopAll(): Promise<void>;
}
export function startCluster(options?: Record<string, unknown>): Promise<StartedCluster>;
export function freePort(): Promise<number>;
