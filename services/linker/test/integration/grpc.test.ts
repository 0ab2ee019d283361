import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@a2a-inbound/errors';
import { createLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, ManualClock, SequentialIds } from '@a2a-inbound/ports';
import { call, grpc } from '@a2a-inbound/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LinkerApp, startLinkerApp } from '../../src/app';
import { BEFORE_LINK_STAGE } from '../../src/domain/linker-service';
import { EMPTY_STATE } from '../../src/domain/report';
import { linkerV1 } from '../../src/transport/proto';
import { FIXTURES } from '../unit/helpers';

const silent = createLogger({ service: 'linker-test', level: 'silent' });
const TOKEN = 'linker-test-service-token-0123456789abcdef';
/** The user the gateway would have authenticated: subscription sub-a with the given role. */
const as = (role: string) => ({ subscriptionId: 'sub-a', role, userId: 'u-a' });
const authed = (): grpc.Metadata => {
  const m = new grpc.Metadata();
  m.set('authorization', `Bearer ${TOKEN}`);
  return m;
};

describe('LinkerService over gRPC (in-memory store)', () => {
  let app: LinkerApp;
  let store: InMemoryDocumentStore;
  let client: linkerV1.LinkerServiceClient;
  let tmp: string;
  const clock = new ManualClock();

  const rpc = <Req, Res>(method: keyof linkerV1.LinkerServiceClient, req: Req): Promise<Res> =>
    call<Req, Res>((client as any)[method].bind(client), req, { metadata: authed() });

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'linker-grpc-'));
    store = new InMemoryDocumentStore();
    app = await startLinkerApp(
      {
        store,
        clock,
        log: silent,
        ids: new SequentialIds('id'),
      },
      { allowedLocalRoots: [FIXTURES, tmp], serviceToken: TOKEN },
    );
    const server = await app.start();
    client = new linkerV1.LinkerServiceClient(server.address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client.close();
    await app.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('rule 7: roles other than admin and developer are refused', async () => {
    await expect(rpc('createApplication', { caller: as('viewer'), name: 'x' })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(rpc('listApplications', { caller: as('') })).rejects.toBeInstanceOf(AppError);
    await expect(rpc('listApplications', { caller: as('operator') })).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
  });

  it('ingests directories into versions with fetch, parse and link stages; one source is not linked (rule 6)', async () => {
    const created: linkerV1.Application = await rpc('createApplication', {
      caller: as('developer'),
      name: 'routing rules',
    });
    const dir = (repo: string) => ({ kind: { $case: 'dir', dir: join(FIXTURES, 'routing-rules', repo) } });
    for (const repo of ['web', 'users-service', 'accounts-go', 'reports-java'])
      await rpc('addSource', { caller: as('developer'), applicationId: created.id, name: repo, location: dir(repo) });

    const v1: linkerV1.Version = await rpc('ingestSource', {
      caller: as('admin'),
      applicationId: created.id,
      sourceId: 'web',
      ref: '',
      archive: Buffer.alloc(0),
      archiveFilename: '',
    });
    expect(v1.number).toBe(1);
    expect(v1.status).toBe('completed');
    expect(v1.stages.map((s) => [s.name, s.status])).toEqual([
      ['fetch', 'completed'],
      ['parse', 'completed'],
      ['link', 'skipped'],
    ]);
    expect(v1.linked).toBe(false);
    expect(v1.notLinkedReason).toBe('the application has one source');

    await rpc('ingestSource', {
      caller: as('admin'),
      applicationId: created.id,
      sourceId: 'users-service',
      ref: '',
      archive: Buffer.alloc(0),
      archiveFilename: '',
    });
    const v3: linkerV1.Version = await rpc('ingestSource', {
      caller: as('admin'),
      applicationId: created.id,
      sourceId: 'accounts-go',
      ref: '',
      archive: Buffer.alloc(0),
      archiveFilename: '',
    });
    expect(v3.number).toBe(3);
    expect(v3.linked).toBe(true);
    expect(v3.stages.map((s) => s.status)).toEqual(['completed', 'completed', 'completed']);
    await rpc('ingestSource', {
      caller: as('developer'),
      applicationId: created.id,
      sourceId: 'reports-java',
      ref: '',
      archive: Buffer.alloc(0),
      archiveFilename: '',
    });

    const report: linkerV1.Report = await rpc('getReport', {
      caller: as('developer'),
      applicationId: created.id,
      version: 0,
    });
    expect(report.version?.number).toBe(4);
    const expected = readFileSync(join(FIXTURES, 'routing-rules', 'expected-report.md'), 'utf8').replace(
      '# Link report: routing-rules',
      '# Link report: routing rules',
    );
    expect(report.markdown).toBe(expected);
    expect(JSON.parse(report.reportJson).statistics.apiLinks).toBe(7);

    const old: linkerV1.Report = await rpc('getReport', {
      caller: as('developer'),
      applicationId: created.id,
      version: 1,
    });
    expect(old.markdown).toContain('> Not linked: the application has one source.');
    expect(old.markdown).toContain(EMPTY_STATE);

    const listed: linkerV1.ListVersionsResponse = await rpc('listVersions', {
      caller: as('developer'),
      applicationId: created.id,
      limit: 0,
    });
    expect(listed.versions.map((v) => [v.number, v.sourceName, v.linked])).toEqual([
      [4, 'reports-java', true],
      [3, 'accounts-go', true],
      [2, 'users-service', true],
      [1, 'web', false],
    ]);
    await expect(
      rpc('listVersions', { caller: as('guest'), applicationId: created.id, limit: 0 }),
    ).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });

    const got: linkerV1.Application = await rpc('getApplication', {
      caller: as('developer'),
      applicationId: created.id,
    });
    expect(got.latestVersion).toBe(4);
    expect(got.sources.map((s) => [s.name, s.lastVersion])).toEqual([
      ['web', 1],
      ['users-service', 2],
      ['accounts-go', 3],
      ['reports-java', 4],
    ]);
  });

  it('rule 6: a version stored before the link stage existed reports that it was not linked', async () => {
    const created: linkerV1.Application = await rpc('createApplication', { caller: as('admin'), name: 'legacy' });
    const apps = await store.collection<{ latestVersion: number }>({ name: 'linker_applications' });
    const a = (await apps.get(created.id))!;
    await apps.replace(created.id, a.version, { ...a.doc, latestVersion: 1 });
    const versions = await store.collection({ name: 'linker_versions' });
    await versions.insert(`${created.id}:00000001`, {
      subscriptionId: 'sub-a',
      applicationId: created.id,
      number: 1,
      sourceId: 's',
      sourceName: 'old',
      createdAtMs: 1,
      status: 'completed',
      stages: [
        { name: 'fetch', status: 'completed', startedAtMs: 1, finishedAtMs: 2, durationMs: 1 },
        { name: 'parse', status: 'completed', startedAtMs: 2, finishedAtMs: 3, durationMs: 1 },
      ],
    });
    const v: linkerV1.Version = await rpc('getVersion', {
      caller: as('developer'),
      applicationId: created.id,
      number: 1,
    });
    expect(v.linked).toBe(false);
    expect(v.notLinkedReason).toBe(BEFORE_LINK_STAGE);
    const r: linkerV1.Report = await rpc('getReport', {
      caller: as('developer'),
      applicationId: created.id,
      version: 1,
    });
    expect(r.markdown).toContain(`> Not linked: ${BEFORE_LINK_STAGE}.`);
  });

  it('ingests a file:// git repository and .tar.gz / .zip archives', async () => {
    const created: linkerV1.Application = await rpc('createApplication', { caller: as('admin'), name: 'kafka' });
    const repo = join(tmp, 'clickstream-ts');
    execFileSync('cp', ['-r', join(FIXTURES, 'kafka', 'clickstream-ts'), repo]);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], {
        cwd: repo,
        encoding: 'utf8',
      }).trim();
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-qm', 'init');
    const commit = git('rev-parse', 'HEAD');
    await rpc('addSource', {
      caller: as('admin'),
      applicationId: created.id,
      name: 'clickstream-ts',
      location: { kind: { $case: 'git', git: { url: `file://${repo}`, ref: 'main' } } },
    });

    execFileSync('tar', ['-czf', join(tmp, 'analytics.tar.gz'), '-C', join(FIXTURES, 'kafka'), 'analytics-java']);
    execFileSync('zip', ['-qr', join(tmp, 'recommender.zip'), '.'], { cwd: join(FIXTURES, 'kafka', 'recommender-py') });
    await rpc('addSource', {
      caller: as('admin'),
      applicationId: created.id,
      name: 'analytics-java',
      location: { kind: { $case: 'archive', archive: { filename: 'analytics.tar.gz' } } },
    });
    await rpc('addSource', {
      caller: as('admin'),
      applicationId: created.id,
      name: 'recommender-py',
      location: { kind: { $case: 'archive', archive: { filename: 'recommender.zip' } } },
    });

    const g: linkerV1.Version = await rpc('ingestSource', {
      caller: as('admin'),
      applicationId: created.id,
      sourceId: 'clickstream-ts',
      ref: '',
      archive: Buffer.alloc(0),
      archiveFilename: '',
    });
    expect(g.revision).toBe(commit);
    const t: linkerV1.Version = await rpc('ingestSource', {
      caller: as('admin'),
      applicationId: created.id,
      sourceId: 'analytics-java',
      ref: '',
      archive: readFileSync(join(tmp, 'analytics.tar.gz')),
      archiveFilename: 'analytics.tar.gz',
    });
    expect(t.status).toBe('completed');
    const z: linkerV1.Version = await rpc('ingestSource', {
      caller: as('admin'),
      applicationId: created.id,
      sourceId: 'recommender-py',
      ref: '',
      archive: readFileSync(join(tmp, 'recommender.zip')),
      archiveFilename: 'recommender.zip',
    });
    expect(z.status).toBe('completed');
    const r: linkerV1.Report = await rpc('getReport', { caller: as('admin'), applicationId: created.id, version: 0 });
    const json = JSON.parse(r.reportJson);
    // clicks → analytics and recommender; sessions (analytics) → recommender.
    expect(json.statistics).toMatchObject({ messageFlows: 3, queueBindings: 2 });
    expect(json.table.map((row: { caller: string }) => row.caller)).toContain('clickstream-ts src/producer.ts:8');
  });

  it('records a failed fetch stage in the version, and refuses paths outside the allowed roots', async () => {
    const created: linkerV1.Application = await rpc('createApplication', { caller: as('admin'), name: 'broken' });
    await rpc('addSource', {
      caller: as('admin'),
      applicationId: created.id,
      name: 'gone',
      location: { kind: { $case: 'git', git: { url: `file://${join(tmp, 'missing.git')}`, ref: '' } } },
    });
    const v: linkerV1.Version = await rpc('ingestSource', {
      caller: as('admin'),
      applicationId: created.id,
      sourceId: 'gone',
      ref: '',
      archive: Buffer.alloc(0),
      archiveFilename: '',
    });
    expect(v.status).toBe('failed');
    expect(v.stages.map((s) => [s.name, s.status])).toEqual([['fetch', 'failed']]);
    expect(v.linked).toBe(false);
    await expect(
      rpc('addSource', {
        caller: as('admin'),
        applicationId: created.id,
        name: 'etc',
        location: { kind: { $case: 'dir', dir: '/etc' } },
      }),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(rpc('getReport', { caller: as('admin'), applicationId: 'nope', version: 0 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const empty: linkerV1.Application = await rpc('createApplication', { caller: as('admin'), name: 'empty' });
    await expect(rpc('getReport', { caller: as('admin'), applicationId: empty.id, version: 0 })).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
    });
  });
});

describe('local paths', () => {
  it('a symlink below an allowed root that leads outside it fails the fetch stage', async () => {
    const { symlinkSync } = await import('node:fs');
    const root = mkdtempSync(join(tmpdir(), 'linker-root-'));
    try {
      symlinkSync('/etc', join(root, 'escape'));
      const store = new InMemoryDocumentStore();
      const app = await startLinkerApp(
        {
          store,
          clock: new ManualClock(),
          log: silent,
        },
        { allowedLocalRoots: [root], serviceToken: TOKEN },
      );
      const created = await app.service.createApplication(as('admin'), 'symlinks');
      await app.service.addSource(as('admin'), created.id, 'escape', { kind: 'dir', path: join(root, 'escape') });
      const v = await app.service.ingest(as('admin'), created.id, 'escape');
      expect(v.status).toBe('failed');
      expect(v.stages).toEqual([
        expect.objectContaining({
          name: 'fetch',
          status: 'failed',
          detail: expect.stringContaining('outside the allowed roots'),
        }),
      ]);
      await app.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
