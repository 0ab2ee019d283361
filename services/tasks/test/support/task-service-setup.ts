import { silentLogger } from '@a2a-inbound/logger';
import {
  InMemoryBlobStore,
  InMemoryBus,
  InMemoryCache,
  InMemoryDocumentStore,
  InMemoryEventLog,
  ManualClock,
  SequentialIds,
} from '@a2a-inbound/ports';
import { eventsV1 } from '@a2a-inbound/proto';
import type { Message } from '@a2a-js/sdk';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { seedDemo } from '../../src/domain/seed';
import {
  DEFAULT_TASK_CONFIG,
  openTaskCollections,
  TaskService,
  type TaskServiceConfig,
} from '../../src/domain/task-service';
import type { Sleep } from '../../src/domain/run-publish-retries';

/** A TaskService on in-memory adapters with the demo data seeded, a manual clock, and the demo echo caller. */
export async function taskServiceSetup<
  L extends InMemoryEventLog = InMemoryEventLog,
  B extends InMemoryBus = InMemoryBus,
>(
  options: {
    eventLog?: L;
    bus?: B;
    sleep?: Sleep;
    config?: Partial<TaskServiceConfig>;
    pushOn?: boolean;
    /** The shared cache (default: an in-memory one on the manual clock). */
    cache?: InMemoryCache;
  } = {},
) {
  const store = new InMemoryDocumentStore();
  const bus = options.bus ?? (new InMemoryBus() as B);
  const eventLog = options.eventLog ?? (new InMemoryEventLog() as L);
  const clock = new ManualClock(Date.UTC(2026, 10, 25));
  const ids = new SequentialIds('id');
  const cache = options.cache ?? new InMemoryCache({ clock });
  const control = new ControlPlane(await openControlCollections(store), cache, clock, ids);
  await seedDemo(control);
  // The demo agents start with push notifications off, and then their updates are not announced (ADR 0055).
  if (options.pushOn) await pushOn(control);
  const collections = await openTaskCollections(store);
  const deps = {
    control,
    blobs: new InMemoryBlobStore(),
    bus,
    eventLog,
    cache,
    clock,
    ids,
    log: silentLogger(),
    config: { ...DEFAULT_TASK_CONFIG, ...options.config },
    ...(options.sleep ? { sleep: options.sleep } : {}),
  };
  const tasks = new TaskService(collections, deps);
  /** Another tasks replica on the same engines: what this one remembers, it does not. */
  const replica = (): TaskService => new TaskService(collections, deps);
  const caller = {
    subscriptionId: 'demo-subscription',
    deploymentId: 'demo-deployment',
    agentId: 'demo-echo',
    keyId: 'k',
    protocolVersion: '0.3.0',
  };
  const credits = async (): Promise<number> => (await control.accounts.getSubscription('demo-subscription')).credits;
  return { tasks, replica, control, collections, bus, eventLog, clock, caller, credits };
}

/** A user text message with the given messageId. */
export const textMsg = (messageId: string, text = 'hi'): Message => ({
  kind: 'message',
  role: 'user',
  messageId,
  parts: [{ kind: 'text', text }],
});

/** A runner event: an appended text delta of the agent_response artifact. */
export const delta = (taskId: string, runId: string, runSeq: number, text: string): eventsV1.TaskEvent => ({
  taskId,
  runId,
  runSeq,
  emittedAtMs: 0,
  batch: [],
  event: {
    $case: 'artifact',
    artifact: {
      artifactId: 'a1',
      name: 'agent_response',
      partsJson: JSON.stringify([{ kind: 'text', text }]),
      append: true,
      lastChunk: false,
    },
  },
});
/** A runner event: a status update. */
export const status = (taskId: string, runId: string, runSeq: number, state: string): eventsV1.TaskEvent => ({
  taskId,
  runId,
  runSeq,
  emittedAtMs: 0,
  batch: [],
  event: { $case: 'status', status: { state, messageJson: '' } },
});

/** Turns push notifications on for the demo echo agent: its task updates are then announced to webhooks. */
export async function pushOn(control: ControlPlane): Promise<void> {
  await control.catalog.updateAgentSettings({ subscriptionId: 'demo-subscription', role: 'operator' }, 'demo-echo', {
    pushNotificationsEnabled: true,
  });
}
