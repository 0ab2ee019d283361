import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256. Keys are 256-bit random values, so a fast hash is the right one (no dictionary to attack). */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** A new secret with a readable prefix, e.g. `a2a_…` or `usr_…` (43 base64url chars = 256 bits). */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
