import { readSecretsConfig } from '@a2a-inbound/agent-definitions';
import { ConfigError, EnvReader, type Env } from '@a2a-inbound/config';
import type { DocumentStore } from '@a2a-inbound/ports';
import { InMemoryCache, randomIds, systemClock } from '@a2a-inbound/ports';
import type { Role } from './domain/control-model';
import { ControlPlane, openControlCollections } from './domain/control-plane';
import { createAdminUser } from './domain/bootstrap';
import { Secrets } from './domain/secrets';
import { CardKeys } from './domain/card-keys';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const USAGE = `usage: node services/tasks/dist/cli.js create-admin --email <address> [--subscription <id>] [--role admin|developer|operator] [--credits <n>]
       node services/tasks/dist/cli.js reseal-secrets

create-admin creates a user in the control-plane store (STORE_ADAPTER=mongo, MONGO_URL, MONGO_DB, NAMESPACE) and prints its
bearer token once: only its SHA-256 is stored. The subscription (default "default") is created when absent.

reseal-secrets (a rotation of the secrets key, docs/runbook.md) seals again with SECRETS_KEY every stored secret that an
older key in SECRETS_KEY_PREVIOUS sealed; it prints how many it resealed and names those no configured key opens.
`;

function flags(args: string[]): Map<string, string> | string {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) return `unexpected argument ${a}`;
    const value = m[2] ?? args[++i];
    if (value === undefined) return `--${m[1]} needs a value`;
    out.set(m[1]!, value);
  }
  return out;
}

/** The tasks CLI; resolves the exit code. `openStore` opens the service's document store; `env` has the secrets key. */
export async function runTasksCli(
  argv: string[],
  io: CliIo,
  openStore: () => Promise<DocumentStore>,
  env: Env = {},
): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'reseal-secrets') return resealSecrets(rest, io, openStore, env);
  if (command !== 'create-admin') {
    io.stderr(
      command === undefined || command === '--help' || command === 'help'
        ? USAGE
        : `unknown command ${command}\n${USAGE}`,
    );
    return command === '--help' || command === 'help' ? 0 : 2;
  }
  const f = flags(rest);
  if (typeof f === 'string') {
    io.stderr(`${f}\n${USAGE}`);
    return 2;
  }
  const email = f.get('email');
  const role = (f.get('role') ?? 'admin') as Role;
  const subscriptionId = f.get('subscription') ?? 'default';
  const credits = Number(f.get('credits') ?? '10000');
  const problems: string[] = [];
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) problems.push('--email must be an email address');
  if (!['admin', 'developer', 'operator'].includes(role)) problems.push('--role must be admin, developer or operator');
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(subscriptionId))
    problems.push('--subscription must be 1-100 characters of letters, digits, ".", "_" or "-"');
  if (!Number.isSafeInteger(credits) || credits < 0) problems.push('--credits must be a non-negative integer');
  for (const k of f.keys())
    if (!['email', 'role', 'subscription', 'credits'].includes(k)) problems.push(`unknown option --${k}`);
  if (problems.length > 0) {
    io.stderr(`${problems.join('\n')}\n${USAGE}`);
    return 2;
  }
  const store = await openStore();
  try {
    const control = new ControlPlane(
      await openControlCollections(store),
      new InMemoryCache({ clock: systemClock }),
      systemClock,
      randomIds,
    );
    const r = await createAdminUser(control, { email: email!, subscriptionId, role, initialCredits: credits });
    io.stdout(
      [
        `created ${role} ${email!.toLowerCase()} (user ${r.userId}) in subscription ${subscriptionId}${r.subscriptionCreated ? ' (new subscription)' : ''}`,
        'token (shown once; store it now, only its hash is kept):',
        r.token,
        '',
      ].join('\n'),
    );
    return 0;
  } catch (err) {
    io.stderr(`create-admin failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

async function resealSecrets(
  args: string[],
  io: CliIo,
  openStore: () => Promise<DocumentStore>,
  env: Env,
): Promise<number> {
  if (args.length > 0) {
    io.stderr(`unexpected argument ${args[0]}\n${USAGE}`);
    return 2;
  }
  const r = new EnvReader({ SECRETS_KEY: env.SECRETS_KEY, SECRETS_KEY_PREVIOUS: env.SECRETS_KEY_PREVIOUS });
  const box = readSecretsConfig(r);
  try {
    r.done();
  } catch (err) {
    io.stderr(`${err instanceof ConfigError ? err.problems.join('\n') : String(err)}\n`);
    return 2;
  }
  if (!box) {
    io.stderr('reseal-secrets needs SECRETS_KEY (the new key) and the old keys in SECRETS_KEY_PREVIOUS\n');
    return 2;
  }
  const store = await openStore();
  try {
    const secrets = await Secrets.open(store, box, systemClock);
    const res = await secrets.resealStale();
    io.stdout(
      `resealed ${res.resealed} secret(s) with key ${box.keyId}; ${res.current} already used it; ${res.unopenable.length} no configured key opens\n`,
    );
    for (const id of res.unopenable) io.stdout(`  not opened: ${id}\n`);
    // The agent-card signing keys are sealed with the same key (ADR 0034).
    const cardKeys = await CardKeys.open(store, {
      box,
      cache: new InMemoryCache(),
      clock: systemClock,
      retentionMs: 0,
    });
    const signing = await cardKeys.resealStale();
    io.stdout(
      `resealed ${signing.resealed} agent-card signing key(s); ${signing.unopenable.length} no configured key opens\n`,
    );
    // Such a key cannot sign: rotating that deployment's signing key replaces it.
    for (const id of signing.unopenable) io.stdout(`  not opened: card signing key ${id}\n`);
    return res.unopenable.length + signing.unopenable.length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}
