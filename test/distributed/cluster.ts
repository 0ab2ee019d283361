import { randomBytes } from 'node:crypto';
import type { Sut } from '@a2a-inbound/testing';
import { manage } from '@a2a-inbound/testing';

export const engineUrlsSet = Boolean(process.env.KAFKA_BROKERS && process.env.MONGO_URL && process.env.REDIS_URL);

export interface Cluster {
  gateways: string[];
  tasksAddress: string;
  logDir: string;
  /** Process name (`tasks`, `gateway-1`, …) → its /metrics URL, when started with `metrics: true`. */
  metricsUrls: Map<string, string>;
  procs: Map<string, { exited: boolean; code: unknown; startedAt: number; exitedAt: number | undefined }>;
  credentials(): { a2aKey?: string; invokeKey?: string; adminToken?: string; operatorToken?: string };
  kill(name: string): Promise<void>;
  stop(name: string): Promise<void>;
  restart(name: string): Promise<unknown>;
  stopAll(): Promise<void>;
}

interface ClusterModule {
  startCluster(options: Record<string, unknown>): Promise<Cluster>;
}

/** Starts the distributed system as separate processes on the real engines, in a fresh namespace. */
export async function startDistributed(
  options: Record<string, unknown> = {},
): Promise<{ cluster: Cluster; sut: Sut; namespace: string }> {
  const mod = (await import('../../scripts/cluster.mjs')) as ClusterModule;
  const namespace = (options.namespace as string | undefined) ?? `t${randomBytes(4).toString('hex')}`;
  const cluster = await mod.startCluster({
    namespace,
    engines: false,
    build: false,
    quiet: true,
    ...options,
    env: { LOG_LEVEL: 'info', ...(options.env ?? {}) },
  });
  const creds = cluster.credentials();
  const sut: Sut = {
    baseUrl: cluster.gateways[0]!,
    otherBaseUrls: cluster.gateways.slice(1),
    a2aKey: creds.a2aKey ?? '',
    invokeKey: creds.invokeKey ?? '',
    tasksAddress: cluster.tasksAddress,
    subscriptionId: 'demo-subscription',
    close: () => cluster.stopAll(),
  };
  if (!sut.a2aKey) {
    // Demo data from an earlier run of this namespace: make fresh keys.
    sut.a2aKey = (await manage(sut, 'admin', 'keys.create', { name: 'e2e', scopes: ['a2a'] })).key;
    sut.invokeKey = (await manage(sut, 'admin', 'keys.create', { name: 'e2e', scopes: ['invoke'] })).key;
  }
  return { cluster, sut, namespace };
}
