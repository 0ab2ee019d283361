import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
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
  // The broker is shared by every suite of the run: leave it as found, so that the fault suite at the end
  // restarts a broker with the topics of one deployment, not of a few hundred test namespaces.
  const stopAll = cluster.stopAll.bind(cluster);
  cluster.stopAll = async () => {
    await stopAll();
    if (!options.namespace) await deleteTopics(`${namespace}.`);
  };
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

/** Deletes the Kafka topics whose names start with `prefix` (best effort: a test never fails on it). */
async function deleteTopics(prefix: string): Promise<void> {
  if (!process.env.KAFKA_BROKERS) return;
  const admin = new Kafka({
    clientId: 'test-cleanup',
    brokers: process.env.KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
    retry: { retries: 2 },
  }).admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 15_000 });
  } catch {
    // the broker is restarting (fault suite) or slow: the topics stay, harmlessly
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
