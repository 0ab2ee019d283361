import { describe, expect, it } from 'vitest';
// The console's pure modules (no DOM): its SSE reader and its role rules.
import { readFrames, takeFrames } from '../../console/src/sse';
import { deniedReason } from '../../console/src/roles';
import { attemptsText, outcomeOf, statusText, whenText } from '../../console/src/push-log';
import { assembleText, describeAnswer, describeStream, METHODS } from '../../console/src/requests';

describe('console SSE reader', () => {
  it('splits frames on blank lines, joins data lines, keeps the id and skips heartbeats', () => {
    const { frames, rest } = takeFrames(
      'id: 1\ndata: {"a":1}\n\n: ping\n\nid: 2\r\ndata: x\r\ndata: y\r\n\r\ndata: {"par',
    );
    expect(frames).toEqual([
      { id: '1', data: '{"a":1}' },
      { id: '2', data: 'x\ny' },
    ]);
    expect(rest).toBe('data: {"par');
  });

  it('reads frames as chunks arrive, whatever the chunk boundaries, and flushes the last one at the end', async () => {
    const text = 'data: {"n":1}\n\ndata: {"n":2}\n\ndata: {"n":3,"final":true}';
    const bytes = new TextEncoder().encode(text);
    const seen: string[] = [];
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        // Split inside a multi-byte-free JSON value and inside the blank line.
        for (const [a, b] of [
          [0, 7],
          [7, 14],
          [14, 30],
          [30, bytes.length],
        ] as const)
          c.enqueue(bytes.slice(a, b));
        c.close();
      },
    });
    await readFrames(body, (f) => seen.push(f.data));
    expect(seen).toEqual(['{"n":1}', '{"n":2}', '{"n":3,"final":true}']);
  });
});

describe('console role rules (mirror the tasks service)', () => {
  it('A2A needs Admin and an AI Agent; push is the operator\u2019s; keys and promotion need Admin or Developer', () => {
    expect(deniedReason('admin', 'toggleA2a', { agentType: 'AI Agent' })).toBeUndefined();
    expect(deniedReason('admin', 'toggleA2a', { agentType: 'Task Agent' })).toBe('A2A is available only for AI Agents');
    expect(deniedReason('developer', 'toggleA2a', { agentType: 'AI Agent' })).toBe(
      'Enabling A2A requires the Admin role',
    );
    expect(deniedReason('operator', 'togglePush')).toBeUndefined();
    expect(deniedReason('admin', 'togglePush')).toMatch(/platform operator/);
    for (const a of ['createKey', 'revokeKey', 'promoteVersion', 'useApplications'] as const) {
      expect(deniedReason('admin', a)).toBeUndefined();
      expect(deniedReason('developer', a)).toBeUndefined();
      expect(deniedReason('operator', a)).toMatch(/Admin or Developer/);
    }
  });
});

describe('console push delivery log cells', () => {
  it('labels each outcome with its tone, and shows an unknown one as given', () => {
    expect(outcomeOf('delivered')).toEqual({ label: 'Delivered', tone: 'ok' });
    expect(outcomeOf('refused')).toEqual({ label: 'Refused (not a public https address)', tone: 'error' });
    expect(outcomeOf('exhausted').tone).toBe('error');
    expect(outcomeOf('rejected').label).toBe('Rejected by the receiver');
    expect(outcomeOf('pending')).toEqual({ label: 'In progress', tone: 'busy' });
    expect(outcomeOf('toString')).toEqual({ label: 'toString', tone: 'busy' });
  });

  it('shows the HTTP status, or why no answer came; the last attempt’s time in UTC; attempts with the word', () => {
    expect(statusText({ httpStatus: 503, error: null })).toBe('503');
    expect(statusText({ httpStatus: null, error: 'url must resolve to a public address' })).toBe(
      'no answer: url must resolve to a public address',
    );
    expect(statusText({ httpStatus: null, error: null })).toBe('no answer');
    expect(whenText({ startedAt: '2026-01-02T03:04:05.678Z', lastAttemptAt: '2026-01-02T03:04:09.000Z' })).toBe(
      '2026-01-02 03:04:09 UTC',
    );
    expect(whenText({ startedAt: '2026-01-02T03:04:05.678Z', lastAttemptAt: null })).toBe('2026-01-02 03:04:05 UTC');
    expect(attemptsText(1)).toBe('1 attempt');
    expect(attemptsText(4)).toBe('4 attempts');
  });
});

describe('console Test console requests', () => {
  const ctx = { taskId: 't-1', contextId: 'c-1' };
  const target = (id: string) => {
    const m = METHODS.find((x) => x.id === id)!;
    const body = m.template(ctx);
    return { scope: m.scope, stream: m.stream, ...m.http('agent 1', body), body };
  };

  it('offers every A2A method with an a2a key, and every invoke endpoint (run history included) with an invoke key', () => {
    for (const id of ['message/send', 'message/stream', 'tasks/get', 'tasks/cancel', 'tasks/resubscribe']) {
      const t = target(id);
      expect(t).toMatchObject({ scope: 'a2a', method: 'POST', path: '/agents/agent%201/a2a', send: true });
      expect(t.body).toMatchObject({ jsonrpc: '2.0', method: id });
    }
    // The gateway's invoke router (services/gateway/src/http/invoke-router.ts): each of its routes has a method.
    const invoke = METHODS.filter((m) => m.scope === 'invoke').map((m) => {
      const t = target(m.id);
      return `${t.method} ${t.path}`;
    });
    expect(invoke.sort()).toEqual(
      [
        'POST /agents/agent%201/runs',
        'GET /agents/agent%201/runs?limit=20',
        'GET /agents/agent%201/runs/t-1',
        'POST /agents/agent%201/run',
        'POST /agents/agent%201/run/stream',
        'GET /agents/agent%201/conversations/c-1',
      ].sort(),
    );
    // The run history pages with `before` from the previous page's next_before.
    const history = METHODS.find((m) => m.id === 'runs/list')!;
    expect(history.http('a', { limit: 5, before: 1700000000000 }).path).toBe(
      '/agents/a/runs?limit=5&before=1700000000000',
    );
  });

  it('names a 429 and INSUFFICIENT_CREDITS as such, in an answer and in a stream\u2019s error frame', () => {
    expect(describeAnswer(429, { error: { code: 'RESOURCE_EXHAUSTED' } }).text).toMatch(/^HTTP 429: rate limited/);
    const credits = {
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'x', data: { code: 'INSUFFICIENT_CREDITS' } },
    };
    expect(describeAnswer(200, credits)).toMatchObject({
      kind: 'error',
      text: expect.stringMatching(/^INSUFFICIENT_CREDITS/),
    });

    const working = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { kind: 'status-update', final: false } });
    expect(describeStream([working], 12)).toEqual({ kind: 'ok', text: 'Stream ended after 1 frame(s), 12 ms' });
    const interrupted = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32603,
        message: 'Stream interrupted; resume with tasks/resubscribe',
        data: { code: 'UNAVAILABLE' },
      },
    });
    const s = describeStream([working, interrupted], 30);
    expect(s.kind).toBe('error');
    expect(s.text).toContain('Stream interrupted; resume with tasks/resubscribe');
    expect(describeStream([working, JSON.stringify(credits)], 30).text).toContain('INSUFFICIENT_CREDITS');
    // The invoke stream's error frame.
    const run = describeStream([JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'Stream interrupted' } })], 5);
    expect(run).toMatchObject({ kind: 'error', text: expect.stringContaining('UNAVAILABLE: Stream interrupted') });
  });

  it('assembles the answer text from append deltas by artifact id', () => {
    const f = (artifactId: string, text: string, append: boolean) =>
      JSON.stringify({
        result: { kind: 'artifact-update', append, artifact: { artifactId, parts: [{ kind: 'text', text }] } },
      });
    expect([...assembleText([f('a', 'Hel', false), f('a', 'lo', true), f('b', 'x', false)]).entries()]).toEqual([
      ['a', 'Hello'],
      ['b', 'x'],
    ]);
  });
});
