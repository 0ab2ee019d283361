// `npm run admin -- token --role admin|developer|operator [--email <address>]`, `npm run admin -- key --scope a2a|invoke [--name <n>]`:
// credentials for the durable embedded deployment in DATA_DIR, minted straight into its database (the server
// may be running: LMDB takes writers from several processes). Each is printed once; only its hash is kept.
// `npm run admin -- compact`: offline copy-compaction of the database (npm start stopped; ADR 0038).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { InMemoryCache, randomIds, systemClock } from '@a2a-inbound/ports';
import { ControlPlane, DEMO, openControlCollections } from '@a2a-inbound/tasks';
import { loadEmbeddedConfig } from './config';
import { DataDir } from './data-dir';

const USAGE = `usage: npm run admin -- token --role admin|developer|operator [--email <address>]
       npm run admin -- key --scope a2a|invoke [--name <name>]
       npm run admin -- compact
Mints a user token or an API key of the embedded deployment (subscription ${DEMO.subscriptionId}) in DATA_DIR
(default .data/embedded) and prints it once. compact (with npm start stopped) gives the database's free pages
back to the file system.
`;

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function flags(args: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-z]+)(?:=(.*))?$/.exec(args[i]!);
    const value = m?.[2] ?? args[i + 1];
    if (!m || value === undefined) throw new Error(`unexpected argument ${args[i]}`);
    if (m[2] === undefined) i += 1;
    out.set(m[1]!, value);
  }
  return out;
}

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'token' && command !== 'key' && command !== 'compact') {
    process.stderr.write(USAGE);
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
  const f = flags(rest);
  const config = loadEmbeddedConfig(process.env, join(__dirname, '..', '..'));
  if (config.store !== 'durable')
    throw new Error('STORE=memory keeps nothing on disk: there is no deployment to add to');
  const dbDir = join(config.dataDir, 'db');
  if (!existsSync(dbDir))
    throw new Error(`no embedded deployment in ${config.dataDir}: run npm start first (or set DATA_DIR)`);
  const { LmdbDatabase, LmdbDocumentStore } = await import('@a2a-inbound/adapter-lmdb');
  if (command === 'compact') {
    // Offline: the lock refuses while npm start holds the directory, and keeps it from starting meanwhile.
    const dataDir = DataDir.open(config.dataDir);
    try {
      const { before, after } = await LmdbDatabase.compact(dataDir.databaseDir);
      process.stdout.write(`compacted ${join(dataDir.databaseDir, 'a2a.mdb')}: ${mb(before)} -> ${mb(after)}\n`);
      return 0;
    } finally {
      dataDir.close();
    }
  }
  const store = new LmdbDocumentStore(LmdbDatabase.open(dbDir));
  try {
    const control = new ControlPlane(await openControlCollections(store), new InMemoryCache(), systemClock, randomIds);
    const subscriptionId = DEMO.subscriptionId;
    if (command === 'token') {
      const role = f.get('role') ?? 'admin';
      if (role !== 'admin' && role !== 'developer' && role !== 'operator')
        throw new Error('--role must be admin, developer or operator');
      const email = f.get('email') ?? `${role}-${randomBytes(4).toString('hex')}@embedded.local`;
      const u = await control.accounts.createUser({ subscriptionId, email, role });
      process.stdout.write(`${role} ${email} (user ${u.id}); token, shown once (only its hash is kept):\n${u.token}\n`);
    } else {
      const scope = f.get('scope') ?? 'a2a';
      const k = await control.accounts.createKey({
        subscriptionId,
        name: f.get('name') ?? `${scope} key (npm run admin)`,
        scopes: [scope],
      });
      process.stdout.write(`${scope} key ${k.id}; shown once (only its hash is kept):\n${k.key}\n`);
    }
    return 0;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`admin: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exitCode = 1;
  },
);
