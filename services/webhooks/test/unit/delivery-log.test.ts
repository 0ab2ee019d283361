import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryDocumentStore } from '@a2a-inbound/ports';
import { openDeliveryLog } from '../../src/delivery';
import {
  listDeliveries,
  MAX_PAGE_SIZE,
  redactTarget,
  redactText,
  viewOf,
  type DeliveryLogDoc,
} from '../../src/delivery-log';

const doc = (over: Partial<DeliveryLogDoc> & { taskId: string; claimedAtMs: number }): DeliveryLogDoc => ({
  seq: 1,
  configId: 'c1',
  subscriptionId: 'sub-a',
  agentId: 'agent-1',
  target: { url: 'https://hook.example.com/in', host: 'hook.example.com' },
  state: 'delivered',
  outcome: 'delivered',
  attempts: [{ atMs: over.claimedAtMs + 5, status: 200 }],
  finishedAtMs: over.claimedAtMs + 6,
  ...over,
});

describe('push delivery log: redaction', () => {
  it('keeps scheme, host, port and path; drops userinfo and fragment; replaces every query value', () => {
    expect(redactTarget('https://bob:s3cret@hooks.example.com:8443/a2a/in?token=abc123&x=1#frag')).toEqual({
      url: 'https://hooks.example.com:8443/a2a/in?token=REDACTED&x=REDACTED',
      host: 'hooks.example.com:8443',
    });
    expect(redactTarget('https://hooks.example.com/in')).toEqual({
      url: 'https://hooks.example.com/in',
      host: 'hooks.example.com',
    });
    expect(redactTarget('not a url')).toEqual({ url: '(not a valid URL)', host: '' });
  });

  it('removes the URL, its userinfo and its query values from an error text', () => {
    const raw = 'https://bob:s3cret@hooks.example.com/in?token=abc123';
    const text = redactText(`connect ECONNREFUSED while posting ${raw} (user bob, password s3cret, token abc123)`, raw);
    expect(text).not.toMatch(/s3cret|abc123/);
    expect(text).not.toContain(raw);
    expect(text).toContain('REDACTED');
    expect(redactText('getaddrinfo ENOTFOUND hooks.example.com', raw)).toBe('getaddrinfo ENOTFOUND hooks.example.com');
  });
});

describe('push delivery log: records as the API shows them', () => {
  it('shows outcome, last status, attempt count and times; the error only when no HTTP answer came', () => {
    const exhausted = viewOf(
      doc({
        taskId: 't',
        claimedAtMs: 1_000,
        state: 'failed',
        outcome: 'exhausted',
        attempts: [
          { atMs: 1_001, error: 'ECONNRESET' },
          { atMs: 2_000, status: 503 },
        ],
        finishedAtMs: 2_001,
      }),
    );
    expect(exhausted).toEqual({
      taskId: 't',
      seq: 1,
      configId: 'c1',
      outcome: 'exhausted',
      httpStatus: 503,
      attempts: 2,
      error: '',
      targetUrl: 'https://hook.example.com/in',
      targetHost: 'hook.example.com',
      startedAtMs: 1_000,
      lastAttemptAtMs: 2_000,
      finishedAtMs: 2_001,
    });
    const refused = viewOf(
      doc({
        taskId: 'r',
        claimedAtMs: 5,
        state: 'failed',
        outcome: 'refused',
        attempts: [{ atMs: 6, error: 'url must resolve to a public address' }],
      }),
    );
    expect(refused).toMatchObject({ outcome: 'refused', attempts: 1, error: 'url must resolve to a public address' });
    expect(refused).not.toHaveProperty('httpStatus');
    const pending = viewOf(
      doc({ taskId: 'p', claimedAtMs: 7, state: 'pending', attempts: [], finishedAtMs: undefined as never }),
    );
    expect(pending).toMatchObject({ outcome: 'pending', attempts: 0, error: '' });
    expect(pending).not.toHaveProperty('lastAttemptAtMs');
  });
});

describe('push delivery log: listing per agent', () => {
  const store = new InMemoryDocumentStore();
  afterEach(async () => {
    const log = await openDeliveryLog(store);
    for (const d of await log.find({})) await log.delete(d.id);
  });

  const seed = async (): Promise<void> => {
    const log = await openDeliveryLog(store);
    for (let i = 0; i < 25; i++) await log.insert(`a-${i}`, doc({ taskId: `task-${i}`, claimedAtMs: 1_000 + i }));
    await log.insert('other-agent', doc({ taskId: 'x', claimedAtMs: 9_000, agentId: 'agent-2' }));
    // Another subscription's record for an agent of the same id: never listed for sub-a.
    await log.insert('other-tenant', doc({ taskId: 'secret-task', claimedAtMs: 9_500, subscriptionId: 'sub-b' }));
  };

  it('lists newest first within the subscription and agent, 20 by default, paged by token to the end', async () => {
    await seed();
    const log = await openDeliveryLog(store);
    const first = await listDeliveries(log, { subscriptionId: 'sub-a', agentId: 'agent-1' });
    expect(first.deliveries).toHaveLength(20);
    expect(first.deliveries[0]!.taskId).toBe('task-24');
    expect(first.deliveries[19]!.taskId).toBe('task-5');
    expect(first.nextPageToken).not.toBe('');
    const second = await listDeliveries(log, {
      subscriptionId: 'sub-a',
      agentId: 'agent-1',
      pageToken: first.nextPageToken,
    });
    expect(second.deliveries.map((d) => d.taskId)).toEqual(['task-4', 'task-3', 'task-2', 'task-1', 'task-0']);
    expect(second.nextPageToken).toBe('');
    const all = [...first.deliveries, ...second.deliveries].map((d) => d.taskId);
    expect(all).not.toContain('secret-task');
    expect(all).not.toContain('x');
  });

  it('another subscription sees only its own records for the same agent id', async () => {
    await seed();
    const log = await openDeliveryLog(store);
    const b = await listDeliveries(log, { subscriptionId: 'sub-b', agentId: 'agent-1' });
    expect(b.deliveries.map((d) => d.taskId)).toEqual(['secret-task']);
    expect((await listDeliveries(log, { subscriptionId: 'sub-c', agentId: 'agent-1' })).deliveries).toEqual([]);
  });

  it('honours the limit and refuses a limit out of range, a forged page token and a missing owner', async () => {
    await seed();
    const log = await openDeliveryLog(store);
    const three = await listDeliveries(log, { subscriptionId: 'sub-a', agentId: 'agent-1', limit: 3 });
    expect(three.deliveries.map((d) => d.taskId)).toEqual(['task-24', 'task-23', 'task-22']);
    await expect(
      listDeliveries(log, { subscriptionId: 'sub-a', agentId: 'agent-1', limit: MAX_PAGE_SIZE + 1 }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(listDeliveries(log, { subscriptionId: 'sub-a', agentId: 'agent-1', limit: -1 })).rejects.toMatchObject(
      { code: 'INVALID_PARAMS' },
    );
    await expect(
      listDeliveries(log, { subscriptionId: 'sub-a', agentId: 'agent-1', pageToken: 'bm9wZQ' }),
    ).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    await expect(listDeliveries(log, { subscriptionId: '', agentId: 'agent-1' })).rejects.toMatchObject({
      code: 'INVALID_PARAMS',
    });
  });
});
