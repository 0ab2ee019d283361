import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { createLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, ManualClock, SequentialIds } from '@a2a-inbound/ports';
import { call, checkHealth, grpc } from '@a2a-inbound/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LinkerApp, startLinkerApp } from '../../src/app';
import type { EgressPolicy } from '../../src/domain/git-url';
import { linkerV1 } from '../../src/transport/proto';
import { FIXTURES } from '../unit/helpers';

// The log of the app under test, kept to check what it says (and what it never says).
const logLines: string[] = [];
const log = createLogger({
  service: 'linker-test',
  level: 'info',
  destination: { write: (line: string) => (logLines.push(line), true) },
});
const TOKEN = 'tenancy-test-service-token-0123456789abcdef';
const A = { subscriptionId: 'sub-a', role: 'admin', userId: 'ua' };
const A_DEV = { subscriptionId: 'sub-a', role: 'developer', userId: 'ua2' };
const B = { subscriptionId: 'sub-b', role: 'admin', userId: 'ub' };
const NO_BYTES = { ref: '', archive: Buffer.alloc(0), archiveFilename: '' };

/** A "dumb HTTP" git server (static files of bare repositories) on loopback. */
async function gitHttpServer(root: string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const path = normalize(join(root, decodeURIComponent((req.url ?? '/').split('?')[0]!)));
    try {
      if (!path.startsWith(root) || !statSync(path).isFile()) throw new Error('not a file');
      res.writeHead(200).end(readFileSync(path));
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('the linker is tenant-scoped and trusts only the gateway (gRPC, in-memory store)', () => {
  let app: LinkerApp;
  let store: InMemoryDocumentStore;
  let client: linkerV1.LinkerServiceClient;
  let address: string;
  let tmp: string;
  let git: { server: Server; port: number };
  // DNS of the test: names → addresses, changed by the tests. Loopback is allowed only for the
  // dumb-HTTP git server's made-up name, so the guard itself is what refuses everything else.
  const names: Record<string, string[]> = {};
  const egress: EgressPolicy = {
    resolve: (host) => (names[host] ? Promise.resolve(names[host]) : Promise.reject(new Error('ENOTFOUND'))),
    isAllowed: (ip) => allowed(ip),
  };
  let allowLoopback = false;
  const loopbackIfAllowed = (ip: string): boolean => ip === '127.0.0.1' && allowLoopback;
  let allowed = loopbackIfAllowed;

  const meta = (token = TOKEN): grpc.Metadata => {
    const m = new grpc.Metadata();
    m.set('authorization', `Bearer ${token}`);
    return m;
  };
  const rpc = <Res>(method: keyof linkerV1.LinkerServiceClient, req: object, metadata = meta()): Promise<Res> =>
    call<object, Res>((client as any)[method].bind(client), req, { metadata });

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'linker-tenancy-'));
    store = new InMemoryDocumentStore();
    app = await startLinkerApp(
      {
        store,
        clock: new ManualClock(),
        log,
        ids: new SequentialIds('t'),
        egress,
      },
      { allowedLocalRoots: [FIXTURES], serviceToken: TOKEN },
    );
    address = (await app.start()).address;
    client = new linkerV1.LinkerServiceClient(address, grpc.credentials.createInsecure());
    // A bare repository served over dumb HTTP.
    const work = join(tmp, 'work');
    execFileSync('cp', ['-r', join(FIXTURES, 'kafka', 'ledger-go'), work]);
    const g = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], { cwd, encoding: 'utf8' });
    g(work, 'init', '-q', '-b', 'main');
    g(work, 'add', '.');
    g(work, 'commit', '-qm', 'init');
    execFileSync('git', ['clone', '-q', '--bare', work, join(tmp, 'srv', 'ledger.git')]);
    g(join(tmp, 'srv', 'ledger.git'), 'update-server-info');
    git = await gitHttpServer(join(tmp, 'srv'));
  });
  afterAll(async () => {
    client.close();
    await app.close();
    await new Promise<void>((resolve) => git.server.close(() => resolve()));
    rmSync(tmp, { recursive: true, force: true });
  });

  it('listens on loopback by default', () => {
    expect(address.startsWith('127.0.0.1:')).toBe(true);
  });

  it('refuses every RPC without the internal service credential, whatever caller it claims', async () => {
    const claims = { caller: { subscriptionId: 'sub-a', role: 'admin', userId: '' } };
    const raw = (metadata: grpc.Metadata) =>
      new Promise<grpc.ServiceError | null>((resolve) =>
        client.listApplications(claims, metadata, (err) => resolve(err)),
      );
    const none = await raw(new grpc.Metadata());
    expect(none?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await raw(meta('wrong-token-wrong-token-wrong-token-x')))?.code).toBe(grpc.status.UNAUTHENTICATED);
    const basic = new grpc.Metadata();
    basic.set('authorization', `Basic ${TOKEN}`);
    expect((await raw(basic))?.code).toBe(grpc.status.UNAUTHENTICATED);
    for (const m of ['createApplication', 'getReport', 'ingestSource', 'deleteApplication'] as const)
      await expect(
        rpc(
          m,
          { ...claims, ...NO_BYTES, applicationId: 'x', name: 'x', sourceId: 'x', version: 0 },
          new grpc.Metadata(),
        ),
      ).rejects.toMatchObject({
        code: 'UNAUTHENTICATED',
      });
    // Health stays open for probes.
    expect(await checkHealth(address)).toBe('SERVING');
    // Refusals are logged with the peer, never with what was sent.
    const refused = logLines.filter((l) => l.includes('no valid service credential'));
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(refused[0]!)).toMatchObject({ level: 'warn', peer: expect.stringContaining('127.0.0.1') });
    expect(logLines.join('')).not.toContain('wrong-token');
  });

  it('a call with the credential but without a caller subscription is refused', async () => {
    await expect(rpc('listApplications', {})).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(
      rpc('listApplications', { caller: { subscriptionId: '', role: 'admin', userId: '' } }),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it("another subscription's application is NOT_FOUND in every RPC, exactly like a missing one", async () => {
    const a: linkerV1.Application = await rpc('createApplication', { caller: A, name: 'a-shop' });
    const dir = (repo: string) => ({ kind: { $case: 'dir', dir: join(FIXTURES, 'routing-rules', repo) } });
    await rpc('addSource', { caller: A, applicationId: a.id, name: 'web', location: dir('web') });
    const v: linkerV1.Version = await rpc('ingestSource', {
      caller: A_DEV,
      applicationId: a.id,
      sourceId: 'web',
      ...NO_BYTES,
    });
    expect(v.status).toBe('completed');
    const b: linkerV1.Application = await rpc('createApplication', { caller: B, name: 'b-shop' });

    const listA: linkerV1.ListApplicationsResponse = await rpc('listApplications', { caller: A_DEV });
    expect(listA.applications.map((x) => x.name)).toContain('a-shop');
    expect(listA.applications.map((x) => x.name)).not.toContain('b-shop');
    const listB: linkerV1.ListApplicationsResponse = await rpc('listApplications', { caller: B });
    expect(listB.applications.map((x) => x.id)).toEqual([b.id]);

    const missing = 'no-such-app';
    const attempts: [keyof linkerV1.LinkerServiceClient, object][] = [
      ['getApplication', {}],
      ['addSource', { name: 'evil', location: dir('users-service') }],
      ['ingestSource', { sourceId: 'web', ...NO_BYTES }],
      ['getVersion', { number: 1 }],
      ['listVersions', { limit: 10 }],
      ['getReport', { version: 0 }],
      ['deleteApplication', {}],
    ];
    for (const [method, extra] of attempts) {
      const foreign = await rpc(method, { caller: B, applicationId: a.id, ...extra }).then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string },
      );
      const absent = await rpc(method, { caller: B, applicationId: missing, ...extra }).then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string },
      );
      expect(foreign?.code, method).toBe('NOT_FOUND');
      expect(foreign?.message.replace(a.id, 'ID'), method).toBe(absent?.message.replace(missing, 'ID'));
    }
    // Nothing of A changed: still one source, one version, and A still reads it.
    const still: linkerV1.Application = await rpc('getApplication', { caller: A, applicationId: a.id });
    expect(still.sources.map((s) => s.name)).toEqual(['web']);
    expect(still.latestVersion).toBe(1);
    const report: linkerV1.Report = await rpc('getReport', { caller: A_DEV, applicationId: a.id, version: 0 });
    expect(report.version?.number).toBe(1);

    // A deletes its own: gone with its versions and facts.
    await rpc('deleteApplication', { caller: A, applicationId: a.id });
    await expect(rpc('getApplication', { caller: A, applicationId: a.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const versions = await store.collection<{ applicationId: string }>({ name: 'linker_versions' });
    const facts = await store.collection<{ applicationId: string }>({ name: 'linker_facts' });
    expect(await versions.count({ applicationId: a.id })).toBe(0);
    expect(await facts.count({ applicationId: a.id })).toBe(0);
  });

  it('documents stored before ownership existed are visible to nobody', async () => {
    const apps = await store.collection({ name: 'linker_applications' });
    await apps.insert('legacy-app', { name: 'legacy', createdAtMs: 0, sources: [], latestVersion: 0 });
    for (const caller of [A, B]) {
      const list: linkerV1.ListApplicationsResponse = await rpc('listApplications', { caller });
      expect(list.applications.map((x) => x.id)).not.toContain('legacy-app');
      await expect(rpc('getApplication', { caller, applicationId: 'legacy-app' })).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    }
  });

  it('refuses git URLs to loopback, metadata, private and internal hosts with INVALID_PARAMS (400)', async () => {
    const app: linkerV1.Application = await rpc('createApplication', { caller: A, name: 'ssrf' });
    names['evil.example.com'] = ['127.0.0.1'];
    names['meta.example.com'] = ['169.254.169.254'];
    for (const url of [
      'http://127.0.0.1:6379/x.git',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/x.git',
      'http://192.168.0.1/x.git',
      'http://[::1]/x.git',
      'http://localhost/x.git',
      'https://evil.example.com/x.git',
      'https://meta.example.com/x.git',
      'ssh://git@github.com/acme/x.git',
      'file:///etc',
    ]) {
      const err = await rpc('addSource', {
        caller: A,
        applicationId: app.id,
        name: 'x',
        location: { kind: { $case: 'git', git: { url, ref: '' } } },
      }).then(
        () => undefined,
        (e: unknown) => e as { code: string },
      );
      expect(err?.code, url).toBe(url.startsWith('file:') ? 'PERMISSION_DENIED' : 'INVALID_PARAMS');
    }
    const got: linkerV1.Application = await rpc('getApplication', { caller: A, applicationId: app.id });
    expect(got.sources).toEqual([]);
  });

  it('checks again at fetch time: a host that now resolves to loopback fails the fetch stage', async () => {
    const app: linkerV1.Application = await rpc('createApplication', { caller: A, name: 'rebind' });
    names['flip.example.com'] = ['93.184.216.34'];
    allowed = (ip) => ip === '93.184.216.34';
    try {
      await rpc('addSource', {
        caller: A,
        applicationId: app.id,
        name: 'flip',
        location: { kind: { $case: 'git', git: { url: 'https://flip.example.com/x.git', ref: '' } } },
      });
      names['flip.example.com'] = ['127.0.0.1'];
      const v: linkerV1.Version = await rpc('ingestSource', {
        caller: A,
        applicationId: app.id,
        sourceId: 'flip',
        ...NO_BYTES,
      });
      expect(v.status).toBe('failed');
      expect(v.stages).toEqual([
        expect.objectContaining({ name: 'fetch', status: 'failed', detail: expect.stringMatching(/non-public/) }),
      ]);
    } finally {
      allowed = loopbackIfAllowed;
    }
  });

  it('clones through the pinned address; URL credentials are never answered nor stored in stage details', async () => {
    allowLoopback = true;
    names['gitsrv.test'] = ['127.0.0.1'];
    try {
      const app: linkerV1.Application = await rpc('createApplication', { caller: A, name: 'creds' });
      // gitsrv.test is in no real DNS: the clone can only reach the server through the pin.
      const url = `http://alice:s3cret-token@gitsrv.test:${git.port}/ledger.git`;
      const added: linkerV1.Source = await rpc('addSource', {
        caller: A,
        applicationId: app.id,
        name: 'ledger',
        location: { kind: { $case: 'git', git: { url, ref: 'main' } } },
      });
      const shown = `http://***@gitsrv.test:${git.port}/ledger.git`;
      expect(added.location?.kind).toEqual({ $case: 'git', git: { url: shown, ref: 'main' } });
      const ok: linkerV1.Version = await rpc('ingestSource', {
        caller: A,
        applicationId: app.id,
        sourceId: 'ledger',
        ...NO_BYTES,
      });
      expect(ok.status).toBe('completed');
      expect(ok.revision).toMatch(/^[0-9a-f]{40}$/);

      await rpc('addSource', {
        caller: A,
        applicationId: app.id,
        name: 'missing',
        location: {
          kind: {
            $case: 'git',
            git: { url: `http://alice:s3cret-token@gitsrv.test:${git.port}/missing.git`, ref: '' },
          },
        },
      });
      const failed: linkerV1.Version = await rpc('ingestSource', {
        caller: A,
        applicationId: app.id,
        sourceId: 'missing',
        ...NO_BYTES,
      });
      expect(failed.status).toBe('failed');
      const answers = JSON.stringify([
        failed,
        await rpc('getApplication', { caller: A, applicationId: app.id }),
        await rpc('listApplications', { caller: A }),
        await rpc('listVersions', { caller: A, applicationId: app.id, limit: 10 }),
      ]);
      expect(answers).not.toContain('s3cret');
      expect(answers).not.toContain('alice');
      expect(answers).toContain(shown);
      expect(logLines.join('')).not.toContain('s3cret');
    } finally {
      allowLoopback = false;
    }
  });
});
