import { describe, expect, it } from 'vitest';
// The console's pure modules (no DOM): its SSE reader and its role rules.
import { readFrames, takeFrames } from '../../console/src/sse';
import { deniedReason } from '../../console/src/roles';

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
