import { hash } from 'node:crypto';
import type { Request } from 'express';
import { AppError } from '@a2a-inbound/errors';
import type { controlV1 } from '@a2a-inbound/proto';
import { call } from '@a2a-inbound/runtime';
import { bearerOf, byDigest } from './auth';

export interface UserActor {
  userId: string;
  subscriptionId: string;
  role: 'admin' | 'developer' | 'operator';
  email: string;
}

const MAX_TOKEN_CHARS = 512;

/** Requests that came with a valid console session cookie (and no bearer): the digest of the session's user token. */
const sessionDigests = new WeakMap<Request, Buffer>();

/** Set by the console's session middleware (http/console.ts) once the cookie and the CSRF header are checked. */
export function setSessionDigest(req: Request, digest: Buffer): void {
  sessionDigests.set(req, digest);
}

/**
 * Authenticates a management user (`Authorization: Bearer usr_…`): looked up by SHA-256 in the control
 * plane, the stored digest compared in constant time. Roles are enforced by the tasks service per operation.
 */
export async function authenticateUser(req: Request, control: controlV1.ControlPlaneServiceClient): Promise<UserActor> {
  const token = bearerOf(req);
  if (!token) {
    // The console's session stands for the same token: same lookup, same identity and role.
    const session = sessionDigests.get(req);
    if (session) return authenticateUserDigest(session, control);
    throw new AppError('UNAUTHENTICATED', 'Missing bearer token: send Authorization: Bearer <USER_TOKEN>');
  }
  if (token.length > MAX_TOKEN_CHARS) throw new AppError('UNAUTHENTICATED', 'Invalid user token');
  return authenticateUserDigest(hash('sha256', token, 'buffer'), control);
}

/** The user whose token has this SHA-256 digest (a bearer token's, or the one a console session stands for). */
export async function authenticateUserDigest(
  digest: Buffer,
  control: controlV1.ControlPlaneServiceClient,
): Promise<UserActor> {
  const principal = await byDigest(
    digest,
    (tokenHash) => call(control.authenticateUser.bind(control), { tokenHash }, { deadlineMs: 10_000 }),
    (p) => p.tokenHash,
    'Invalid user token',
  );
  if (principal.role !== 'admin' && principal.role !== 'developer' && principal.role !== 'operator')
    throw new AppError('PERMISSION_DENIED', 'Unknown role');
  return {
    userId: principal.userId,
    subscriptionId: principal.subscriptionId,
    role: principal.role,
    email: principal.email,
  };
}
