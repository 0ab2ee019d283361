import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoDocumentStore } from '@a2a-inbound/adapter-mongo';
import { type DocumentStore, InMemoryDocumentStore, ManualClock, SequentialIds } from '@a2a-inbound/ports';
import { afterAll, describe, expect, it } from 'vitest';
import { diskSourceAccess } from '../../src/app';
import { LinkerService } from '../../src/domain/linker-service';
import { FIXTURES } from '../unit/helpers';

// Both store modes: memory always; the real engine when MONGO_URL is set (CI sets it), one database per run.
const url = process.env.MONGO_URL ?? '';
const ADMIN = { subscriptionId: 'sub-1', role: 'admin' };
const DEV = { subscriptionId: 'sub-1', role: 'developer' };
const modes: [string, () => Promise<DocumentStore>][] = [
  ['memory', () => Promise.resolve(new InMemoryDocumentStore())],
];
if (url)
  modes.push(['mongo', () => MongoDocumentStore.connect({ url, dbName: `linker_test_${process.pid}_${Date.now()}` })]);

describe.each(modes)('linker on the %s document store', (_mode, open) => {
  const opened: DocumentStore[] = [];
  afterAll(async () => {
    for (const s of opened) await s.close();
  });

  it('stores applications, facts and versions, and reads back the exact report', async () => {
    const store = await open();
    opened.push(store);
    const service = await LinkerService.open({
      store,
      clock: new ManualClock(),
      ids: new SequentialIds('x'),
      access: diskSourceAccess([FIXTURES]),
      allowedLocalRoots: [FIXTURES],
    });
    const app = await service.createApplication(ADMIN, 'http-polyglot');
    for (const repo of ['catalog', 'deploy', 'orders', 'payments', 'shipping', 'storefront']) {
      await service.addSource(ADMIN, app.id, repo, { kind: 'dir', path: join(FIXTURES, 'http-polyglot', repo) });
      const v = await service.ingest(DEV, app.id, repo);
      expect(v.status).toBe('completed');
    }
    const { version, markdown, report } = await service.getReport(DEV, app.id);
    expect(version.number).toBe(6);
    expect(version.linked).toBe(true);
    expect(markdown).toBe(readFileSync(join(FIXTURES, 'http-polyglot', 'expected-report.md'), 'utf8'));
    expect(report.statistics.apiLinks).toBe(22);
    const first = await service.getVersion(ADMIN, app.id, 1);
    expect(first.linked).toBe(false);
    expect(first.notLinkedReason).toBe('the application has one source');
  });

  it('scopes applications, versions and facts to their subscription; unowned documents stay invisible', async () => {
    const store = await open();
    opened.push(store);
    const service = await LinkerService.open({
      store,
      clock: new ManualClock(),
      ids: new SequentialIds('t'),
      access: diskSourceAccess([FIXTURES]),
      allowedLocalRoots: [FIXTURES],
    });
    const OTHER = { subscriptionId: 'sub-2', role: 'admin' };
    const mine = await service.createApplication(ADMIN, 'mine');
    const theirs = await service.createApplication(OTHER, 'theirs');
    await service.addSource(ADMIN, mine.id, 'blog', { kind: 'dir', path: join(FIXTURES, 'independent', 'blog') });
    await service.ingest(DEV, mine.id, 'blog');
    const apps = await store.collection({ name: 'linker_applications' });
    await apps.insert('unowned', { name: 'unowned', createdAtMs: 0, sources: [], latestVersion: 0 });

    expect((await service.listApplications(DEV)).map((a) => a.id)).toEqual([mine.id]);
    expect((await service.listApplications(OTHER)).map((a) => a.id)).toEqual([theirs.id]);
    await expect(service.getApplication(OTHER, mine.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.getApplication(ADMIN, 'unowned')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.listVersions(OTHER, mine.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.getReport(OTHER, mine.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.deleteApplication(OTHER, mine.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await service.listVersions(DEV, mine.id)).map((v) => v.number)).toEqual([1]);

    await service.deleteApplication(ADMIN, mine.id);
    const versions = await store.collection({ name: 'linker_versions' });
    const facts = await store.collection({ name: 'linker_facts' });
    expect(await versions.count({ applicationId: mine.id })).toBe(0);
    expect(await facts.count({ applicationId: mine.id })).toBe(0);
    expect((await service.listApplications(OTHER)).map((a) => a.id)).toEqual([theirs.id]);
  });
});
