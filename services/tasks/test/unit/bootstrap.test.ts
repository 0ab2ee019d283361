import { describe, expect, it } from 'vitest';
import { InMemoryCache, InMemoryDocumentStore, ManualClock, randomIds, type DocumentStore } from '@a2a-inbound/ports';
import { runTasksCli } from '../../src/cli-run';
import { loadTasksConfig } from '../../src/config';
import { bootstrapFromConfig } from '../../src/domain/bootstrap';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { sha256Hex } from '../../src/domain/hashing';

const ADMIN_TOKEN = 'admin-token-0123456789-abcdefghijklmnop';
const OPERATOR_TOKEN = 'operator-token-0123456789-abcdefghijklm';

/** A store that outlives the CLI's close(), so the test can read what the CLI wrote. */
class KeptOpenStore extends InMemoryDocumentStore {
  override async close(): Promise<void> {
    await Promise.resolve();
  }
}

async function controlOn(store: DocumentStore): Promise<ControlPlane> {
  const clock = new ManualClock();
  return new ControlPlane(await openControlCollections(store), new InMemoryCache({ clock }), clock, randomIds);
}

describe('bootstrap of the first admin and the platform operator', () => {
  it('reads BOOTSTRAP_* from the environment and reports every problem together', () => {
    const c = loadTasksConfig({
      BOOTSTRAP_ADMIN_EMAIL: 'root@example.com',
      BOOTSTRAP_ADMIN_TOKEN: ADMIN_TOKEN,
      BOOTSTRAP_OPERATOR_TOKEN: OPERATOR_TOKEN,
    });
    expect(c.bootstrap?.subscriptionId).toBe('default');
    expect(c.bootstrap?.users.map((u) => u.role)).toEqual(['admin', 'operator']);
    expect(loadTasksConfig({}).bootstrap).toBeUndefined();
    expect(() =>
      loadTasksConfig({ BOOTSTRAP_ADMIN_EMAIL: 'root@example.com', BOOTSTRAP_OPERATOR_TOKEN: 'short' }),
    ).toThrow(
      /BOOTSTRAP_ADMIN_EMAIL and BOOTSTRAP_ADMIN_TOKEN go together[\s\S]*BOOTSTRAP_OPERATOR_TOKEN must be at least 32/,
    );
  });

  it('creates the subscription, admin and operator once; replicas racing on the same store agree', async () => {
    const store = new InMemoryDocumentStore();
    const spec = loadTasksConfig({
      BOOTSTRAP_ADMIN_EMAIL: 'Root@Example.com',
      BOOTSTRAP_ADMIN_TOKEN: ADMIN_TOKEN,
      BOOTSTRAP_OPERATOR_TOKEN: OPERATOR_TOKEN,
    }).bootstrap!;
    const [a, b] = await Promise.all([
      bootstrapFromConfig(await controlOn(store), spec),
      bootstrapFromConfig(await controlOn(store), spec),
    ]);
    expect([a.subscriptionCreated, b.subscriptionCreated].filter(Boolean)).toHaveLength(1);
    expect([...a.users, ...b.users].filter((u) => u.created)).toHaveLength(2);
    const control = await controlOn(store);
    const admin = await control.accounts.authenticateUser(sha256Hex(ADMIN_TOKEN));
    expect(admin.doc).toMatchObject({ email: 'root@example.com', role: 'admin', subscriptionId: 'default' });
    expect((await control.accounts.authenticateUser(sha256Hex(OPERATOR_TOKEN))).doc.role).toBe('operator');
    expect(await control.accounts.listUsers('default')).toHaveLength(2);
    // A later start with another token does not replace the stored one.
    const again = await bootstrapFromConfig(control, {
      ...spec,
      users: [{ email: 'root@example.com', token: `${ADMIN_TOKEN}-rotated`, role: 'admin' }],
    });
    expect(again.users[0]).toMatchObject({ created: false, tokenMatches: false });
    expect((await control.accounts.authenticateUser(sha256Hex(ADMIN_TOKEN))).doc.email).toBe('root@example.com');
  });

  it('create-admin prints a token once that authenticates, stored only as its hash', async () => {
    const store = new KeptOpenStore();
    let out = '';
    let err = '';
    const code = await runTasksCli(
      ['create-admin', '--email', 'ops@example.com'],
      { stdout: (t) => (out += t), stderr: (t) => (err += t) },
      async () => store,
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const token = out.trim().split('\n').at(-1)!;
    expect(token).toMatch(/^usr_/);
    const control = await controlOn(store);
    const user = await control.accounts.authenticateUser(sha256Hex(token));
    expect(user.doc).toMatchObject({ email: 'ops@example.com', role: 'admin', subscriptionId: 'default' });
    expect(JSON.stringify(user.doc)).not.toContain(token);
    // The same email again is refused.
    const dup = await runTasksCli(
      ['create-admin', '--email', 'ops@example.com'],
      { stdout: () => undefined, stderr: (t) => (err += t) },
      async () => store,
    );
    expect(dup).toBe(1);
    expect(err).toMatch(/exists/);
  });

  it('create-admin refuses bad arguments without touching the store', async () => {
    let err = '';
    let opened = false;
    const code = await runTasksCli(
      ['create-admin', '--email', 'not-an-email', '--role', 'root'],
      { stdout: () => undefined, stderr: (t) => (err += t) },
      async () => {
        opened = true;
        return new InMemoryDocumentStore();
      },
    );
    expect(code).toBe(2);
    expect(opened).toBe(false);
    expect(err).toMatch(/--email must be an email address[\s\S]*--role must be/);
  });
});
