import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header of every push delivery (Authentication rule 9). */
export const SIGNATURE_HEADER = 'X-A2A-Signature';

/**
 * Header of every push delivery: `<taskId>:<seq>:<configId>`, the same on every attempt and after a restart,
 * so a receiver drops a repeat (an attempt whose answer was lost, a delivery taken over after a crash).
 */
export const DELIVERY_ID_HEADER = 'X-A2A-Delivery-Id';

/** Hex HMAC-SHA256 of the exact request body bytes, keyed with the push config's token. */
export function signBody(body: string | Uint8Array, token: string): string {
  return createHmac('sha256', token).update(body).digest('hex');
}

/** What a receiver does: constant-time comparison of the received signature with its own. */
export function verifySignature(body: string | Uint8Array, token: string, signature: string): boolean {
  const expected = Buffer.from(signBody(body, token), 'hex');
  const got = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  return got.length === expected.length && timingSafeEqual(got, expected);
}
