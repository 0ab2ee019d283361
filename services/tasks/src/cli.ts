// Operator CLI: `node services/tasks/dist/cli.js create-admin --email <address> [--subscription <id>] [--role <role>]`,
// `node services/tasks/dist/cli.js reseal-secrets` (SECRETS_KEY, SECRETS_KEY_PREVIOUS: a key rotation).
import type { DocumentStore } from '@a2a-inbound/ports';
import { runTasksCli } from './cli-run';

/** The store the distributed tasks service uses (same variables: STORE_ADAPTER, MONGO_URL, MONGO_DB, NAMESPACE). */
async function openStore(): Promise<DocumentStore> {
  const env = process.env;
  if ((env.STORE_ADAPTER ?? 'mongo') !== 'mongo') {
    // An in-memory store lives inside one process: a user written here would vanish with the CLI.
    throw new Error(
      'the CLI writes to the shared control-plane store: use STORE_ADAPTER=mongo with MONGO_URL (and MONGO_DB)',
    );
  }
  const { MongoDocumentStore } = await import('@a2a-inbound/adapter-mongo');
  const ns = env.NAMESPACE ?? '';
  const db = env.MONGO_DB || 'a2a_inbound';
  return MongoDocumentStore.connect({
    url: env.MONGO_URL || 'mongodb://127.0.0.1:27017',
    dbName: ns ? `${db}_${ns}` : db,
  });
}

runTasksCli(
  process.argv.slice(2),
  { stdout: (t) => process.stdout.write(t), stderr: (t) => process.stderr.write(t) },
  openStore,
  process.env,
).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`tasks cli: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
