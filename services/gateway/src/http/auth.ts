import { hash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { AppError } from '@a2a-inbound/errors';
import type { Clock } from '@a2a-inbound/ports';
import type { Lookups } from '../clients';

export interface KeyAuth {
  keyId: string;
  subscriptionId: string;
  scopes: string[];
}

const MAX_KEY_CHARS = 512;

export function bearerOf(req: Request): string | undefined {
  return bearerOfHeader(req.headers.authorization);
}

/** The token of an `Authorization: Bearer <token>` value (an HTTP header or gRPC metadata). */
export function bearerOfHeader(h: unknown): string | undefined {
  if (typeof h !== 'string') return undefined;
  const m = /^Bearer[ ]+([^\s]+)\s*$/i.exec(h);
  return m?.[1];
}

/**
 * Authenticates the bearer key: looked up by its SHA-256, the stored digest compared in constant time,
 * then expiry, revocation and scope. 401 for missing/unknown/expired/revoked, 403 for a wrong scope.
 */
export async function authenticateKey(
  req: Request,
  scope: 'a2a' | 'invoke',
  lookups: Lookups,
  clock: Clock,
): Promise<KeyAuth> {
  return authenticateToken(bearerOf(req), scope, lookups, clock);
}

/** `authenticateKey` for a token read elsewhere (gRPC metadata). */
export async function authenticateToken(
  token: string | undefined,
  scope: 'a2a' | 'invoke',
  lookups: Lookups,
  clock: Clock,
): Promise<KeyAuth> {
  if (!token) throw new AppError('UNAUTHENTICATED', 'Missing bearer token: send Authorization: Bearer <API_KEY>');
  if (token.length > MAX_KEY_CHARS) throw new AppError('UNAUTHENTICATED', 'Invalid API key');
  // One-shot `crypto.hash`: no Hash object per request (strings are hashed as UTF-8).
  const digest = hash('sha256', token, 'buffer');
  const principal = await byDigest(
    digest,
    (hex) => lookups.key(hex),
    (p) => p.keyHash,
    'Invalid API key',
  );
  if (principal.revoked) throw new AppError('UNAUTHENTICATED', 'The API key was revoked');
  if (principal.expiresAtMs > 0 && principal.expiresAtMs <= clock.now())
    throw new AppError('UNAUTHENTICATED', 'The API key has expired');
  if (!principal.scopes.includes(scope))
    throw new AppError('PERMISSION_DENIED', `The API key lacks the "${scope}" scope`);
  return { keyId: principal.keyId, subscriptionId: principal.subscriptionId, scopes: principal.scopes };
}

/**
 * The principal whose secret has this SHA-256 digest: looked up by the digest, then the stored digest compared
 * in constant time. An unknown digest and a mismatch are the same 401 (`invalid`).
 */
export async function byDigest<P>(
  digest: Buffer,
  lookup: (hex: string) => Promise<P>,
  storedHex: (principal: P) => string,
  invalid: string,
): Promise<P> {
  let principal: P;
  try {
    principal = await lookup(digest.toString('hex'));
  } catch (err) {
    if (err instanceof AppError && (err.code === 'UNAUTHENTICATED' || err.code === 'NOT_FOUND'))
      throw new AppError('UNAUTHENTICATED', invalid);
    throw err;
  }
  const stored = Buffer.from(storedHex(principal), 'hex');
  if (stored.length !== digest.length || !timingSafeEqual(stored, digest))
    throw new AppError('UNAUTHENTICATED', invalid);
  return principal;
}
