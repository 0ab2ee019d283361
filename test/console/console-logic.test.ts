import { describe, expect, it } from 'vitest';
// The console's pure modules (no DOM): its SSE reader and its role rules.
import { readFrames, takeFrames } from '../../console/src/sse';
import { deniedReason } from '../../console/src/roles';
import { attemptsText, outcomeOf, statusText, whenText } from '../../console/src/push-log';

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
