import { AppError, DuplicateKeyError } from '@a2a-inbound/errors';
import type { ControlPlane } from './control-plane';
import type { Role } from './control-model';
import { sha256Hex } from './hashing';

export interface BootstrapUser {
  email: string;
  /** The bearer token chosen in configuration; only its SHA-256 is stored. */
  token: string;
  role: Extract<Role, 'admin' | 'operator'>;
}

export interface BootstrapSpec {
  subscriptionId: string;
  subscriptionName: string;
  /** Credits of the subscription when it is created here (an existing one is left alone). */
  initialCredits: number;
  users: BootstrapUser[];
}

export interface BootstrapResult {
  subscriptionCreated: boolean;
  users: { email: string; role: Role; created: boolean; tokenMatches: boolean }[];
}

/**
 * Creates the first subscription and its admin (and the platform operator) from configuration when they
 * are absent. Safe on every start and from several replicas at once: inserts decide, and a lost race or an
 * earlier start reads as "exists". An existing user is never changed (its token is not overwritten).
 */
export async function bootstrapFromConfig(control: ControlPlane, spec: BootstrapSpec): Promise<BootstrapResult> {
  const subscriptionCreated = await createSubscriptionIfAbsent(
    control,
    spec.subscriptionId,
    spec.subscriptionName,
    spec.initialCredits,
  );
  const users: BootstrapResult['users'] = [];
  for (const u of spec.users) {
    const existing = await control.accounts.findUserByEmail(spec.subscriptionId, u.email);
    if (existing) {
      users.push(existingUser(existing.doc, u.token));
      continue;
    }
    try {
      // A deterministic id: two replicas racing insert the same document and one of them loses.
      await control.accounts.createUser({
        subscriptionId: spec.subscriptionId,
        email: u.email,
        role: u.role,
        token: u.token,
        id: `bootstrap-${u.role}-${sha256Hex(u.email.trim().toLowerCase()).slice(0, 16)}`,
      });
      users.push({ email: u.email.trim().toLowerCase(), role: u.role, created: true, tokenMatches: true });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
      const raced = await control.accounts.findUserByEmail(spec.subscriptionId, u.email);
      if (!raced)
        throw new AppError('FAILED_PRECONDITION', `the bootstrap ${u.role} token is already used by another user`);
      users.push(existingUser(raced.doc, u.token));
    }
  }
  return { subscriptionCreated, users };
}

/** `create-admin`: a new user with a fresh token, printed once by the CLI; the subscription is made if absent. */
export async function createAdminUser(
  control: ControlPlane,
  input: { email: string; subscriptionId: string; role: Role; initialCredits: number },
): Promise<{ userId: string; token: string; subscriptionCreated: boolean }> {
  const subscriptionCreated = await createSubscriptionIfAbsent(
    control,
    input.subscriptionId,
    input.subscriptionId,
    input.initialCredits,
  );
  const u = await control.accounts.createUser({
    subscriptionId: input.subscriptionId,
    email: input.email,
    role: input.role,
  });
  return { userId: u.id, token: u.token, subscriptionCreated };
}

/** Creates the subscription; true when this call made it, false when it was there (or a racing replica made it). */
async function createSubscriptionIfAbsent(
  control: ControlPlane,
  id: string,
  name: string,
  initialCredits: number,
): Promise<boolean> {
  try {
    await control.accounts.createSubscription(id, name, initialCredits);
    return true;
  } catch (err) {
    if (err instanceof DuplicateKeyError) return false;
    throw err;
  }
}

/** A bootstrap user that was already there: reported as is, with whether the configured token is its token. */
function existingUser(
  doc: { email: string; role: Role; tokenHash: string },
  token: string,
): BootstrapResult['users'][number] {
  return { email: doc.email, role: doc.role, created: false, tokenMatches: doc.tokenHash === sha256Hex(token) };
}
