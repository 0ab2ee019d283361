import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, systemClock } from '@a2a-inbound/ports';
import {
  Deliverer,
  DeliveryInterruptedError,
  openDeliveryLog,
  parseRetryAfter,
  type PushTarget,
} from '../../src/delivery';
import { createWebhookAgent, type WebhookAgent } from '../../src/egress/webhook-agent';
import { selfSignedCert, startReceiver, update, type Receiver, type TestCert } from '../support/receiver';

describe('Deliverer: delivery log and retry timing', () => {
  let receiver: Receiver;
  let agent: WebhookAgent;
  let store: InMemoryDocumentStore;
  let tls: TestCert;
  const sleeps: number[] = [];
  const isAllowed = (ip: string): boolean => ip === '127.0.0.1';
  const resolve = (): Promise<string[]> => Promise.resolve(['127.0.0.1']);

  beforeAll(async () => {
    tls = await selfSignedCert();
    receiver = await startReceiver(tls);
    agent = createWebhookAgent({ isAllowed, resolve, ca: tls.cert });
    store = new InMemoryDocumentStore();
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
    await store.close();
  });

  const deliverer = async (): Promise<Deliverer> =>
    new Deliverer({
      agent,
      log: await openDeliveryLog(store),
      logger: silentLogger(),
      clock: systemClock,
      policy: { retryBaseMs: 100, retryMaxDelayMs: 1_000 },
      isAllowed,
      resolve,
      random: () => 0.5,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    });
  const target = (configId: string, path: string): PushTarget => ({
    configId,
    url: `https://hook.public.example:${receiver.port}${path}`,
    token: 'tok',
    authenticationJson: JSON.stringify({ schemes: ['Bearer'], credentials: 'cred-1' }),
  });

  it('a redelivered update (same task, seq, config) is not delivered again, also by another replica', async () => {
    const t = target('c1', '/ok?idem');
    const first = await (await deliverer()).deliver(update('task-1', 3), t, '{"kind":"task"}');
    expect(first?.state).toBe('delivered');
    expect(await (await deliverer()).deliver(update('task-1', 3), t, '{"kind":"task"}')).toBeUndefined();
    const hits = receiver.received.filter((r) => r.path === '/ok?idem');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.headers.authorization).toBe('Bearer cred-1');
    // The next update of the same task is a new delivery.
    expect((await (await deliverer()).deliver(update('task-1', 4), t, '{"kind":"task"}'))?.state).toBe('delivered');
  });

  it('a 307 to another origin is not followed: the push token and credentials never reach it (issue 19)', async () => {
    const other = await startReceiver(tls);
    try {
      const elsewhere = `https://rebind.public.example:${other.port}/ok`;
      const t = target('c-307', `/redirect307?to=${encodeURIComponent(elsewhere)}`);
      const d = await (await deliverer()).deliver(update('task-307', 1), t, '{"kind":"task"}');
      expect(d).toMatchObject({ state: 'failed', outcome: 'rejected', attempts: [{ status: 307 }] });
      expect(other.received).toEqual([]);
      const hit = receiver.received.find((r) => r.path.startsWith('/redirect307'));
      expect(hit?.headers.authorization).toBe('Bearer cred-1'); // the configured origin got them
    } finally {
      await other.close();
    }
  });

  it('Webhook rule 3: exponential backoff with jitter between the 4 attempts, bounded by the cap', async () => {
    sleeps.length = 0;
    const d = await (await deliverer()).deliver(update('task-2', 1), target('c2', '/fail'), '{}');
    expect(d?.attempts).toHaveLength(4);
    expect(sleeps).toEqual([150, 250, 450]); // base·2^(n-1) + jitter (0.5·base)
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3', 0)).toBe(3_000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });

  it('Webhook rule 1: the URL is re-checked before delivery (http and internal names are refused)', async () => {
    const dl = await deliverer();
    expect(await dl.checkUrl('http://hook.public.example/x')).toMatch(/https/);
    expect(await dl.checkUrl('https://metadata.google.internal/x')).toBeDefined();
    const r = await dl.deliver(
      update('task-3', 1),
      { ...target('c3', '/ok'), url: 'http://hook.public.example/x' },
      '{}',
    );
    expect(r?.state).toBe('failed');
    expect(r?.attempts).toHaveLength(1);
  });

  it('shutdown stops the retry wait at once, releases the claim and rejects (so the bus redelivers)', async () => {
    const shutdown = new AbortController();
    const log = await openDeliveryLog(store);
    const dl = new Deliverer({
      agent,
      log,
      logger: silentLogger(),
      clock: systemClock,
      policy: { retryBaseMs: 60_000, retryMaxDelayMs: 60_000 }, // a real, long wait
      isAllowed,
      resolve,
      shutdown: shutdown.signal,
    });
    const started = Date.now();
    const p = dl.deliver(update('task-4', 1), target('c4', '/fail'), '{}');
    await new Promise((r) => setTimeout(r, 200)); // the first attempt got its 500; now waiting to retry
    shutdown.abort();
    await expect(p).rejects.toBeInstanceOf(DeliveryInterruptedError);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await log.get('task-4:1:c4')).toBeUndefined();
  });
});
