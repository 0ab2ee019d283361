import { egressBlockedCause } from '@a2a-inbound/runtime';

/**
 * The model runtime's view of the runner's egress (`egressFetch` of the guarded egress agent, packages/runtime):
 * every provider and tool call goes through it.
 */
export interface EgressRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
}

export type GuardedFetch = (url: string, init: EgressRequest) => Promise<Response>;

/** The egress refusal behind a failed fetch (the runner's egress agent: public, plus the allow-list). */
export const blockedCause = egressBlockedCause;

/** Reads a body up to `maxBytes`; beyond it the read stops (`truncated`). */
export async function readCapped(res: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}
