import { describe, expect, it } from 'vitest';
import { encodeShared, eventsV1 } from '@a2a-inbound/proto';

const logged = (eventJson: string, seq: number): eventsV1.LoggedTaskEvent => ({
  taskId: 't-1',
  seq,
  eventJson,
  final: false,
  subscriptionId: 'sub-1',
  agentId: 'agent-1',
  preceding: [],
  pushOff: false,
});

describe('encodeShared', () => {
  it('gives the bytes of a fresh writer, each message in a buffer of its own', () => {
    const big = logged('x'.repeat(5000), 1);
    const small = logged('{"kind":"status-update"}', 2);
    const a = encodeShared(eventsV1.LoggedTaskEvent, big);
    const b = encodeShared(eventsV1.LoggedTaskEvent, small);
    expect(Buffer.from(a).equals(Buffer.from(eventsV1.LoggedTaskEvent.encode(big).finish()))).toBe(true);
    expect(Buffer.from(b).equals(Buffer.from(eventsV1.LoggedTaskEvent.encode(small).finish()))).toBe(true);
    expect(a.buffer).not.toBe(b.buffer); // the second encode did not overwrite the first's bytes
    expect(eventsV1.LoggedTaskEvent.decode(a).eventJson).toBe(big.eventJson);
  });

  it('a failed encode leaves nothing behind for the next one', () => {
    const broken = { ...logged('{}', 1), preceding: [null] } as unknown as eventsV1.LoggedTaskEvent;
    expect(() => encodeShared(eventsV1.LoggedTaskEvent, broken)).toThrow();
    const ok = logged('{}', 2);
    const bytes = encodeShared(eventsV1.LoggedTaskEvent, ok);
    expect(Buffer.from(bytes).equals(Buffer.from(eventsV1.LoggedTaskEvent.encode(ok).finish()))).toBe(true);
  });
});
