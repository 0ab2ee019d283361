import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryBus, InMemoryDocumentStore } from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import { eventually } from '@a2a-inbound/testing';
import { startWebhooksApp, TASK_UPDATES_TOPIC, type WebhooksApp } from '../../src/app';
import { loadWebhooksConfig } from '../../src/config';

// An announcement carries the updates of many tasks (ADR 0041); WEBHOOKS_CONCURRENCY still bounds how many
// tasks are pushed at once (each push reads its task, then posts to every config), across messages.
describe('task-updates consumer: WEBHOOKS_CONCURRENCY bounds the tasks of a batch (review21)', () => {
  let app: WebhooksApp | undefined;
  const bus = new InMemoryBus();
  afterEach(async () => {
    await app?.close();
    await bus.close();
  });

  it('six tasks in one message, concurrency 2: at most two pushed at once, and every one pushed', async () => {
    let open = 0;
    let most = 0;
    const read: string[] = [];
    const waiting: (() => void)[] = [];
    app = await startWebhooksApp(
      {
        bus,
        store: new InMemoryDocumentStore(),
        source: {
          // A task's push starts by reading it: held until the test lets it go.
          get: async (taskId) => {
            open += 1;
            most = Math.max(most, open);
            await new Promise<void>((r) => waiting.push(r));
            open -= 1;
            read.push(taskId);
            return { taskJson: '', enabled: false, targets: [] };
          },
        },
        log: silentLogger(),
        readinessIntervalMs: 600_000,
      },
      loadWebhooksConfig({ WEBHOOKS_GRPC_PORT: '0', WEBHOOKS_CONCURRENCY: '2' }),
    );
    const update = (taskId: string): eventsV1.LoggedTaskEvent => ({
      taskId,
      seq: 1,
      eventJson: JSON.stringify({ kind: 'status-update', taskId, status: { state: 'working' }, final: false }),
      final: false,
      subscriptionId: 'sub',
      agentId: 'agent-1',
      pushOff: false,
      preceding: [],
    });
    const tasks = ['t1', 't2', 't3', 't4', 't5', 't6'];
    const last = { ...update(tasks.at(-1)!), preceding: tasks.slice(0, -1).map(update) };
    await bus.publish({ topic: TASK_UPDATES_TOPIC, key: 't1', value: eventsV1.LoggedTaskEvent.encode(last).finish() });
    await eventually(async () => {
      await Promise.resolve();
      return open === 2;
    }, 10_000);
    await new Promise((r) => setTimeout(r, 100)); // the others had their chance to start
    expect(most).toBe(2);
    await eventually(async () => {
      waiting.splice(0).forEach((go) => go());
      await new Promise((r) => setTimeout(r, 5));
      return read.length === tasks.length;
    }, 10_000);
    expect(read.sort()).toEqual(tasks);
    expect(most).toBe(2);
  });
});
