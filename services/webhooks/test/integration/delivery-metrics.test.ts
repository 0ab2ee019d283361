// Webhook deliveries by outcome, retries by reason and delivery durations, as Prometheus scrapes them from
// /metrics (packages/telemetry's endpoint, started before the Deliverer creates its instruments).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, systemClock } from '@a2a-inbound/ports';
import { startMetrics, type MetricsServer } from '@a2a-inbound/telemetry';
import { Deliverer, DeliveryInterruptedError, openDeliveryLog, type PushTarget } from '../../src/delivery';
import { createWebhookAgent, type WebhookAgent } from '../../src/egress/webhook-agent';
import { selfSignedCert, startReceiver, update, type Receiver } from '../support/receiver';

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describe('webhook delivery metrics', () => {
  let metrics: MetricsServer;
  let receiver: Receiver;
  let agent: WebhookAgent;
  let store: InMemoryDocumentStore;
  const isAllowed = (ip: string): boolean => ip === '127.0.0.1';
  const resolve = (): Promise<string[]> => Promise.resolve(['127.0.0.1']);

  beforeAll(async () => {
    metrics = await startMetrics({ enabled: true, host: '127.0.0.1', port: 0 }, 'webhooks-test');
    const tls = await selfSignedCert();
    receiver = await startReceiver(tls);
    agent = createWebhookAgent({ isAllowed, resolve, ca: tls.cert });
    store = new InMemoryDocumentStore();
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
    await store.close();
    await metrics.close();
  });

  const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
  const deliverer = async (shutdown?: AbortSignal): Promise<Deliverer> =>
    new Deliverer({
      agent,
      log: await openDeliveryLog(store),
      logger: silentLogger(),
      clock: systemClock,
      policy: { retryBaseMs: shutdown ? 60_000 : 1, retryMaxDelayMs: shutdown ? 60_000 : 5 },
      isAllowed,
      resolve,
      ...(shutdown ? { shutdown } : {}),
    });
  const target = (configId: string, path: string): PushTarget => ({
    configId,
    url: `https://hook.public.example:${receiver.port}${path}`,
    token: 'secret-token-never-a-label',
    authenticationJson: '',
  });

  it('counts each delivery once by outcome, each retry by reason, and times deliveries', async () => {
    const d = await deliverer();
    expect((await d.deliver(update('t1', 1), target('ok', '/ok'), '{}'))?.state).toBe('delivered');
    // 429 then 200: one retry, delivered.
    expect((await d.deliver(update('t2', 1), target('limited', '/limited'), '{}'))?.state).toBe('delivered');
    // 500 on all 4 attempts: 3 retries, exhausted.
    expect((await d.deliver(update('t3', 1), target('fail', '/fail'), '{}'))?.attempts).toHaveLength(4);
    // 400: not retried.
    expect((await d.deliver(update('t4', 1), target('bad', '/bad'), '{}'))?.state).toBe('failed');
    // Not https: nothing is sent.
    const plain = { ...target('plain', '/ok'), url: 'http://hook.public.example/x' };
    expect((await d.deliver(update('t5', 1), plain, '{}'))?.state).toBe('failed');
    // A redelivered update that was delivered already is no new delivery.
    expect(await d.deliver(update('t1', 1), target('ok', '/ok'), '{}')).toBeUndefined();

    const text = await scrape();
    expect(sample(text, 'a2a_webhook_deliveries_total', { outcome: 'delivered' })).toBe(2);
    expect(sample(text, 'a2a_webhook_deliveries_total', { outcome: 'exhausted' })).toBe(1);
    expect(sample(text, 'a2a_webhook_deliveries_total', { outcome: 'rejected' })).toBe(1);
    expect(sample(text, 'a2a_webhook_deliveries_total', { outcome: 'refused' })).toBe(1);
    expect(sample(text, 'a2a_webhook_retries_total', { reason: 'rate_limited' })).toBe(1);
    expect(sample(text, 'a2a_webhook_retries_total', { reason: 'server_error' })).toBe(3);
    expect(sample(text, 'a2a_webhook_retries_total', { reason: 'network' })).toBeUndefined();
    expect(sample(text, 'a2a_webhook_delivery_duration_seconds_count', { outcome: 'delivered' })).toBe(2);
    expect(sample(text, 'a2a_webhook_delivery_duration_seconds_bucket', { outcome: 'exhausted', le: '+Inf' })).toBe(1);
    expect(sample(text, 'a2a_webhook_delivery_duration_seconds_sum', { outcome: 'delivered' })).toBeGreaterThan(0);
    expect(text).not.toContain('secret-token-never-a-label');
    expect(text).not.toContain('hook.public.example');
  });

  it('a network error is retried with reason network', async () => {
    const before = sample(await scrape(), 'a2a_webhook_retries_total', { reason: 'network' }) ?? 0;
    const d = await deliverer();
    // Nothing listens on port 1 of 127.0.0.1: connection refused on every attempt.
    const r = await d.deliver(
      update('t6', 1),
      { ...target('down', '/ok'), url: 'https://hook.public.example:1/x' },
      '{}',
    );
    expect(r?.attempts).toHaveLength(4);
    const text = await scrape();
    expect(sample(text, 'a2a_webhook_retries_total', { reason: 'network' })).toBe(before + 3);
    expect(sample(text, 'a2a_webhook_deliveries_total', { outcome: 'exhausted' })).toBe(2);
  });

  it('a delivery cut short by shutdown counts as interrupted', async () => {
    const shutdown = new AbortController();
    const p = (await deliverer(shutdown.signal)).deliver(update('t7', 1), target('fail2', '/fail'), '{}');
    // Handled from the start: it rejects as soon as the shutdown lands, before the scrape below finishes.
    const outcome = p.then(
      () => undefined,
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 200)); // first attempt answered 500; waiting to retry
    shutdown.abort();
    const retries = sample(await scrape(), 'a2a_webhook_retries_total', { reason: 'server_error' });
    expect(await outcome).toBeInstanceOf(DeliveryInterruptedError);
    const text = await scrape();
    expect(sample(text, 'a2a_webhook_deliveries_total', { outcome: 'interrupted' })).toBe(1);
    // The retry it was waiting for was never made: not counted.
    expect(sample(text, 'a2a_webhook_retries_total', { reason: 'server_error' })).toBe(retries);
  });
});
