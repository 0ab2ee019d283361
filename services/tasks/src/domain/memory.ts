import { messageResolvedBytes, type MessageLike } from '@a2a-inbound/ports';

export interface MemoryLimits {
  /** At most this many messages. */
  maxMessages: number;
  /** At most this many bytes of part JSON as the agent receives it (spilled parts counted at full size). */
  maxBytes: number;
}

/**
 * Conversation memory: the latest messages of a context (given oldest first), newest kept first, until the
 * count or the byte budget is reached. The window is contiguous: a message that does not fit ends it, so
 * the agent never sees a conversation with a hole in it. However large one message was, later turns of the
 * context still get a bounded memory (ADR 0013).
 */
export function memoryWindow<M extends MessageLike>(messages: readonly M[], limits: MemoryLimits): M[] {
  const out: M[] = [];
  let bytes = 0;
  for (let i = messages.length - 1; i >= 0 && out.length < limits.maxMessages; i--) {
    const m = messages[i]!;
    const size = messageResolvedBytes(m);
    if (bytes + size > limits.maxBytes) break;
    bytes += size;
    out.push(m);
  }
  return out.reverse();
}
