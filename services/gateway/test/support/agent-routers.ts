import { createHash } from 'node:crypto';
import { silentLogger } from '@a2a-inbound/logger';
import { InFlightLimit } from '@a2a-inbound/runtime';
import { InMemoryBlobStore } from '@a2a-inbound/ports';
import type { GatewayClients, Lookups } from '../../src/clients';
import { LargeBodyGate } from '../../src/http/spilled-body';
import type { SseWriter } from '../../src/http/sse';
import type { TasksClient } from '../../src/protocol/operations';
import { agentView } from './fake-tasks';

/** The one API key the lookups know (scopes `a2a` and `invoke`, subscription `sub-1`). */
export const TEST_KEY = 'a2a_test_key_0123456789';

/**
 * What the agent routers (0.3/0.2 and 1.0 A2A, legacy, invoke) are given by the gateway, over a fake `tasks`:
 * the lookups know TEST_KEY and answer `agent` for every agent id; nothing is rate-limited.
 */
export function agentRouterDeps(o: {
  tasks: TasksClient;
  admission?: { maxPending: number; acceptTimeoutMs: number };
  largeBodies?: LargeBodyGate;
  bodyLimitBytes?: number;
  agent?: Parameters<typeof agentView>[0];
  blobs?: InMemoryBlobStore;
  sseHeartbeatMs: number;
}) {
  const admission = o.admission ?? { maxPending: 100, acceptTimeoutMs: 10_000 };
  const lookups = {
    key: async (hash: string) => ({
      keyId: 'key-1',
      subscriptionId: 'sub-1',
      keyHash: createHash('sha256').update(TEST_KEY).digest('hex') === hash ? hash : '00',
      scopes: ['a2a', 'invoke'],
      revoked: false,
      expiresAtMs: 0,
    }),
    agent: async () => agentView(o.agent ?? {}),
  } as unknown as Lookups;
  return {
    admission: {
      pending: new InFlightLimit(admission.maxPending, 'requests waiting for the tasks service'),
      acceptTimeoutMs: admission.acceptTimeoutMs,
      largeBodies: o.largeBodies ?? new LargeBodyGate(4),
    },
    blobs: o.blobs ?? new InMemoryBlobStore(),
    clients: { tasks: o.tasks, control: {}, close: () => undefined } as unknown as GatewayClients,
    lookups,
    limiter: { hit: async () => ({ allowed: true, count: 1, resetAtMs: 0 }) } as never,
    clock: { now: () => Date.now() },
    log: silentLogger(),
    baseUrl: () => 'http://gw',
    bodyLimitBytes: o.bodyLimitBytes ?? 1024 * 1024,
    sseHeartbeatMs: o.sseHeartbeatMs,
    streams: new Set<SseWriter>(),
    resolver: async () => ['93.184.216.34'],
  };
}
