import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryBlobStore, InMemoryBus, InMemoryCache, systemClock, type BusMessage } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { checkHealth, grpc } from '@a2a-inbound/runtime';
import { reflectedServices } from '@a2a-inbound/testing';
import { startRunnerApp } from '../../src/app';
import { loadRunnerConfig } from '../../src/config';
import { runEventsOf } from '../../src/domain/event-pipe';
import { TOPICS } from '../../src/domain/runner';
// @ts-expect-error -- a plain .mjs script (repository tooling)
import { makeDevPki, tlsEnv } from '../../../../scripts/dev-ca.mjs';

describe('runner gRPC health and drain', () => {
  it('SERVING while running; NOT_SERVING as soon as shutdown begins, while the in-flight run drains', async () => {
    const bus = new InMemoryBus();
    const events: eventsV1.TaskEvent[] = [];
    const sub = await bus.subscribe(
      TOPICS.taskEvents,
      'observer',
      async (m: BusMessage) => void events.push(...runEventsOf(eventsV1.TaskEvent.decode(m.value))),
    );
    const app = await startRunnerApp(
      {
        bus,
        cache: new InMemoryCache(),
        blobs: new InMemoryBlobStore(),
        clock: systemClock,
        log: silentLogger(),
        readinessIntervalMs: 600_000,
      },
      loadRunnerConfig(
        {
          RUNNER_GRPC_PORT: '0',
          RUNNER_SHUTDOWN_GRACE_MS: '2000',
          RUNNER_HEARTBEAT_MS: '10000',
          RUNNER_LEASE_MS: '30000',
        },
        'runner-test',
      ),
    );
    expect(await checkHealth(app.grpc.address)).toBe('SERVING');
    // Kafka unreachable: NOT_SERVING after the next refresh, SERVING again when it answers.
    const ping = bus.ping.bind(bus);
    bus.ping = () => Promise.reject(new Error('kafka unreachable'));
    expect(await app.ready()).toBe(false);
    expect(await checkHealth(app.grpc.address)).toBe('NOT_SERVING');
    bus.ping = ping;
    expect(await app.ready()).toBe(true);
    expect(await checkHealth(app.grpc.address)).toBe('SERVING');
    const run = eventsV1.RunRequested.fromPartial({
      taskId: 't1',
      runId: 'r1',
      runtime: 'demo:slow',
      messageJson: JSON.stringify({
        kind: 'message',
        role: 'user',
        messageId: 'm1',
        parts: [
          { kind: 'text', text: 'hi' },
          { kind: 'data', data: { workMs: 300 } },
        ],
      }),
      attempt: 1,
    });
    await bus.publish({ topic: TOPICS.runRequested, key: 't1', value: eventsV1.RunRequested.encode(run).finish() });
    // The run is under way once its progress event is out.
    for (const deadline = Date.now() + 5_000; events.length === 0 && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 10));
    expect(app.runner.inflight).toBe(1);
    const closing = app.close();
    expect(await checkHealth(app.grpc.address)).toBe('NOT_SERVING');
    expect(app.runner.state).toBe('DRAINING');
    await closing;
    // Finished within the grace period: its answer and its final status were emitted (delivery is async).
    const final = (): eventsV1.TaskEvent | undefined =>
      events.find((e) => e.event?.$case === 'status' && e.event.status.state !== 'working');
    for (const deadline = Date.now() + 5_000; !final() && Date.now() < deadline;)
      await new Promise((r) => setTimeout(r, 10));
    const last = final()!;
    expect(last?.event).toMatchObject({ $case: 'status', status: { state: 'completed' } });
    expect(app.runner.state).toBe('STOPPED');
    await sub.close();
    await bus.close();
  });

  it('serves its health over mutual TLS with GRPC_TLS_* (issue 24): the CA verifies it, plaintext is not spoken', async () => {
    const pki = makeDevPki(mkdtempSync(join(tmpdir(), 'runner-pki-')), ['runner', 'tasks']) as string;
    const bus = new InMemoryBus();
    const app = await startRunnerApp(
      { bus, cache: new InMemoryCache(), blobs: new InMemoryBlobStore(), clock: systemClock, log: silentLogger() },
      loadRunnerConfig(
        { RUNNER_GRPC_PORT: '0', GRPC_HEALTH_PORT: '0', ...(tlsEnv(pki, 'runner') as Record<string, string>) },
        'runner-tls',
      ),
    );
    try {
      const pem = (f: string): Buffer => readFileSync(join(pki, f));
      // A prober with the CA only (as a kubelet exec probe or a team would), and another service's certificate.
      expect(await checkHealth(app.grpc.address, { credentials: grpc.credentials.createSsl(pem('ca.pem')) })).toBe(
        'SERVING',
      );
      const asTasks = grpc.credentials.createSsl(pem('ca.pem'), pem('tasks-key.pem'), pem('tasks.pem'));
      expect(await checkHealth(app.grpc.address, { credentials: asTasks })).toBe('SERVING');
      await expect(checkHealth(app.grpc.address, { timeoutMs: 1_000 })).rejects.toThrow();
      // GRPC_HEALTH_PORT: the kubelet's native grpc probe (plaintext) has a port that serves health and nothing
      // else, and follows the same status.
      const probe = `127.0.0.1:${app.grpc.healthPort}`;
      expect(await checkHealth(probe)).toBe('SERVING');
      const reflection = await reflectedServices(probe).catch((err: Error) => err.message);
      expect(reflection).toMatch(/UNIMPLEMENTED|Unimplemented|12/);
      await app.close();
      await expect(checkHealth(probe, { timeoutMs: 1_000 })).rejects.toThrow();
    } finally {
      await app.close();
      await bus.close();
      rmSync(pki, { recursive: true, force: true });
    }
  });
});
