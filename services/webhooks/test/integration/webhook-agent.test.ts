import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '@a2a-inbound/runtime';
import { request } from 'undici';
import { BlockedDestinationError, createWebhookAgent } from '../../src/egress/webhook-agent';
import { selfSignedCert, startReceiver, type Receiver, type TestCert } from '../support/receiver';

function blocked(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 5; i++) {
    if (e instanceof BlockedDestinationError) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

async function outcome(p: Promise<unknown>): Promise<'ok' | 'blocked' | 'other-error'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return blocked(err) ? 'blocked' : 'other-error';
  }
}

describe('Webhook rule 1: the egress agent refuses non-public destinations at connection time', () => {
  let tls: TestCert;
  let receiver: Receiver;
  beforeAll(async () => {
    tls = await selfSignedCert();
    receiver = await startReceiver(tls);
  });
  afterAll(async () => {
    await receiver.close();
  });

  it('refuses a literal 127.0.0.1 with the default (strict) policy: literal IPs are checked in dispatch', async () => {
    const agent = createWebhookAgent({ ca: tls.cert });
    try {
      expect(
        await outcome(request(`https://127.0.0.1:${receiver.port}/ok`, { dispatcher: agent, method: 'POST' })),
      ).toBe('blocked');
      expect(await outcome(request('https://[::ffff:127.0.0.1]:1/', { dispatcher: agent }))).toBe('blocked');
      expect(await outcome(request('https://169.254.169.254/latest', { dispatcher: agent }))).toBe('blocked');
      expect(receiver.received).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('refuses a hostname that resolves to 10.x (the resolved address is checked in lookup)', async () => {
    const agent = createWebhookAgent({
      resolve: (host) => Promise.resolve(host === 'internal.public.example' ? ['10.1.2.3'] : []),
    });
    try {
      expect(await outcome(request('https://internal.public.example/hook', { dispatcher: agent }))).toBe('blocked');
    } finally {
      await agent.close();
    }
  });

  it('refuses a name when any of its addresses is private (mixed answers)', async () => {
    const agent = createWebhookAgent({ resolve: () => Promise.resolve(['93.184.216.34', '192.168.0.1']) });
    try {
      expect(await outcome(request('https://mixed.public.example/hook', { dispatcher: agent }))).toBe('blocked');
    } finally {
      await agent.close();
    }
  });

  it('lets a public address through the lookup (the connection itself is not made by the guard)', async () => {
    expect(isPublicAddress('93.184.216.34')).toBe(true);
    const agent = createWebhookAgent({ resolve: () => Promise.resolve(['93.184.216.34']), connectTimeoutMs: 200 });
    try {
      // No network in tests: whatever happens next (timeout, unreachable) it is not the guard's refusal.
      expect(
        await outcome(
          request('https://public.public.example/hook', { dispatcher: agent, signal: AbortSignal.timeout(2_000) }),
        ),
      ).not.toBe('blocked');
    } finally {
      await agent.close();
    }
  });

  it('reaches an allowed receiver when the policy is injected (how tests reach 127.0.0.1)', async () => {
    const agent = createWebhookAgent({
      isAllowed: (ip) => ip === '127.0.0.1',
      resolve: () => Promise.resolve(['127.0.0.1']),
      ca: tls.cert,
    });
    try {
      const res = await request(`https://hook.public.example:${receiver.port}/ok`, {
        dispatcher: agent,
        method: 'POST',
        body: '{}',
      });
      await res.body.dump();
      expect(res.statusCode).toBe(200);
    } finally {
      await agent.close();
    }
  });
});
