import type { DocumentStore } from '@a2a-inbound/ports';
import { InMemoryCache, randomIds, systemClock } from '@a2a-inbound/ports';
import type { Role } from './domain/control-model';
import { ControlPlane, openControlCollections } from './domain/control-plane';
import { createAdminUser } from './domain/bootstrap';

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const USAGE = `usage: node services/tasks/dist/cli.js create-admin --email <address> [--subscription <id>] [--role admin|developer|operator] [--credits <n>]

Creates a user in the control-plane store (STORE_ADAPTER=mongo, MONGO_URL, MONGO_DB, NAMESPACE) and prints its bearer token
once: only its SHA-256 is stored. The subscription (default "default") is created when absent.
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

/** The tasks CLI; resolves the exit code. `openStore` opens the service's document store. */
export async function runTasksCli(argv: string[], io: CliIo, openStore: () => Promise<DocumentStore>): Promise<number> {
  const [command, ...rest] = argv;
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
