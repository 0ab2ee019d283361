import { afterAll, describe, expect, it } from 'vitest';
import { MongoDocumentStore } from '@a2a-inbound/adapter-mongo';
import { type DocumentStore, InMemoryCache, InMemoryDocumentStore, ManualClock, randomIds } from '@a2a-inbound/ports';
import { ControlPlane, openControlCollections } from '../../src/domain/control-plane';
import { Management } from '../../src/domain/management';

// The in-memory store always; the real engine too when MONGO_URL is set (CI sets it), one database per run.
const url = process.env.MONGO_URL ?? '';
const opened: DocumentStore[] = [];
const stores: [string, () => Promise<DocumentStore>][] = [['memory', async () => new InMemoryDocumentStore()]];
if (url)
  stores.push(['mongo', () => MongoDocumentStore.connect({ url, dbName: `users_test_${process.pid}_${Date.now()}` })]);
afterAll(async () => {
  for (const s of opened) await s.close();
});

async function control(open: () => Promise<DocumentStore>): Promise<ControlPlane> {
  const clock = new ManualClock();
  const store = await open();
  opened.push(store);
  const c = new ControlPlane(await openControlCollections(store), new InMemoryCache({ clock }), clock, randomIds);
  await c.accounts.createSubscription('sub-a', 'A', 0);
  await c.accounts.createSubscription('sub-b', 'B', 0);
  return c;
}

describe.each(stores)('users on the %s store: an email is unique within its subscription only', (_mode, open) => {
  it("creating a user with another tenant's email succeeds: nothing reveals that the address exists elsewhere", async () => {
    const c = await control(open);
    const adminA = { userId: 'a', role: 'admin' as const, subscriptionId: 'sub-a' };
    const adminB = { userId: 'b', role: 'admin' as const, subscriptionId: 'sub-b' };
    const a = await new Management(c).createUser(adminA, { email: 'Shared@Example.com', role: 'developer' });
    const b = await new Management(c).createUser(adminB, { email: 'shared@example.com', role: 'admin' });
    expect(b.email).toBe('shared@example.com');
    expect(b.id).not.toBe(a.id);
    // Each tenant sees only its own user; each token authenticates into its own subscription.
    expect((await c.accounts.listUsers('sub-a')).map((u) => u.id)).toEqual([a.id]);
    expect((await c.accounts.listUsers('sub-b')).map((u) => u.id)).toEqual([b.id]);
    expect((await c.accounts.findUserByEmail('sub-b', 'SHARED@example.com'))?.id).toBe(b.id);
  });

  it('the same email twice in one subscription is a conflict (409) naming that subscription', async () => {
    const c = await control(open);
    const adminA = { userId: 'a', role: 'admin' as const, subscriptionId: 'sub-a' };
    await new Management(c).createUser(adminA, { email: 'dev@example.com', role: 'developer' });
    await expect(
      new Management(c).createUser(adminA, { email: 'DEV@example.com', role: 'admin' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'a user with this email exists in this subscription',
    });
  });
});
