import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { linkerV1 } from '@a2a-inbound/proto';
import { grpc } from '@a2a-inbound/runtime';
import { createAdminUser } from '@a2a-inbound/tasks';

const FIXTURE = join(__dirname, '../../services/linker/test/fixtures/http-polyglot');

// The linker through the gateway's REST endpoints, in the embedded system (the console's path).
describe('linker REST through the gateway (embedded)', () => {
  let system: System;
  let admin: string;
  let operator: string;
  const api = (path: string, init: { method?: string; body?: unknown; token?: string } = {}) =>
    fetch(`${system.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'Content-Type': 'application/json', ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}) },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });

  beforeAll(async () => {
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', LINKER_ALLOWED_DIRS: FIXTURE },
      log: silentLogger(),
      // DNS of the test: a public name, and names that resolve to loopback and to the metadata address.
      resolver: async (host) =>
        ({
          'git.example.com': ['93.184.216.34'],
          'rebind.example.com': ['127.0.0.1'],
          'meta.example.com': ['169.254.169.254'],
        })[host] ?? [],
    });
    admin = system.tasks.seed!.credentials!.adminToken;
    operator = system.tasks.seed!.credentials!.operatorToken;
  }, 60_000);
  afterAll(async () => {
    await system?.close();
  });

  it('needs a signed-in user, answers JSON, and refuses roles other than Admin and Developer (rule 7)', async () => {
    const anonymous = await api('/api/applications');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/json/);
    const asOperator = await api('/api/applications', { token: operator });
    expect(asOperator.status).toBe(403);
    expect(((await asOperator.json()) as { error: { code: string } }).error.code).toBe('PERMISSION_DENIED');
  });

  it('ingests the sources of an application and serves its link report as JSON and Markdown', async () => {
    const created = await api('/api/applications', { method: 'POST', token: admin, body: { name: 'http-polyglot' } });
    expect(created.status).toBe(201);
    const app = (await created.json()) as { id: string; name: string };
    expect(app.name).toBe('http-polyglot');
    const appId = app.id;
    const repos = readdirSync(FIXTURE).filter((n) => statSync(join(FIXTURE, n)).isDirectory());
    for (const name of repos) {
      const source = await api(`/api/applications/${appId}/sources`, {
        method: 'POST',
        token: admin,
        body: { name, dir: join(FIXTURE, name) },
      });
      expect(source.status).toBe(201);
      const s = (await source.json()) as { id: string; name: string };
      expect(s.name).toBe(name);
      const ingest = await api(`/api/applications/${appId}/ingest`, {
        method: 'POST',
        token: admin,
        body: { source: s.id },
      });
      expect(ingest.status).toBe(200);
    }
    const report = await api(`/api/applications/${appId}/report?format=json`, { token: admin });
    expect(report.status).toBe(200);
    const body = (await report.json()) as { report: { statistics: Record<string, number> } };
    expect(body.report.statistics.apiLinks).toBe(22);
    const md = await api(`/api/applications/${appId}/report?format=markdown`, { token: admin });
    expect(md.headers.get('content-type')).toMatch(/text\/markdown/);
    const text = await md.text();
    expect(text).toContain('| Caller | Calls | Served by | Match |');
    expect(text).toContain('| API links | 22 |');
  });

  describe('two tenants, each with an admin and a developer', () => {
    let adminA: string;
    let devA: string;
    let adminB: string;
    let devB: string;
    let appA: string;
    const json = async (r: Response): Promise<any> => r.json();

    beforeAll(async () => {
      adminA = admin;
      const b = await createAdminUser(system.tasks.control, {
        email: 'admin@tenant-b.example',
        subscriptionId: 'tenant-b',
        role: 'admin',
        initialCredits: 0,
      });
      adminB = b.token;
      const newUser = async (token: string, email: string): Promise<string> => {
        const r = await api('/api/v1/users', { method: 'POST', token, body: { email, role: 'developer' } });
        expect(r.status).toBe(201);
        return ((await r.json()) as { token: string }).token;
      };
      devA = await newUser(adminA, 'dev@tenant-a.example');
      devB = await newUser(adminB, 'dev@tenant-b.example');
      const created = await api('/api/applications', { method: 'POST', token: devA, body: { name: 'a-private' } });
      appA = ((await created.json()) as { id: string }).id;
      const src = await api(`/api/applications/${appA}/sources`, {
        method: 'POST',
        token: adminA,
        body: { name: 'orders', dir: join(FIXTURE, 'orders') },
      });
      expect(src.status).toBe(201);
      expect(
        (await api(`/api/applications/${appA}/ingest`, { method: 'POST', token: devA, body: { source: 'orders' } }))
          .status,
      ).toBe(200);
    });

    it("tenant B cannot see or touch tenant A's application in any route: 404 exactly like a missing one", async () => {
      for (const token of [adminB, devB]) {
        const list = await json(await api('/api/applications', { token }));
        expect(list.applications.map((a: { id: string }) => a.id)).not.toContain(appA);
        const routes: [string, string, unknown?][] = [
          ['GET', ''],
          ['POST', '/sources', { name: 'steal', dir: join(FIXTURE, 'payments') }],
          ['POST', '/ingest', { source: 'orders' }],
          ['GET', '/report?format=json'],
          ['GET', '/report?format=markdown'],
          ['GET', '/versions'],
          ['GET', '/versions/1'],
          ['GET', '/versions/latest'],
          ['DELETE', ''],
        ];
        for (const [method, suffix, body] of routes) {
          const foreign = await api(`/api/applications/${appA}${suffix}`, { method, token, body });
          const missing = await api(`/api/applications/no-such-app${suffix}`, { method, token, body });
          expect(foreign.status, `${method} ${suffix}`).toBe(404);
          expect(foreign.headers.get('content-type')).toMatch(/json/);
          const [f, m] = [await json(foreign), await json(missing)];
          expect(f.error.code).toBe('NOT_FOUND');
          expect(f.error.message.replace(appA, 'ID')).toBe(m.error.message.replace('no-such-app', 'ID'));
        }
      }
      // A still has its application, unchanged: one source, one version.
      const still = await json(await api(`/api/applications/${appA}`, { token: devA }));
      expect(still.sources.map((s: { name: string }) => s.name)).toEqual(['orders']);
      expect(still.latestVersion).toBe(1);
      const versions = await json(await api(`/api/applications/${appA}/versions`, { token: adminA }));
      expect(versions.versions).toHaveLength(1);
    });

    it('each tenant lists only its own applications, and deletes only its own', async () => {
      const b = await json(
        await api('/api/applications', { method: 'POST', token: devB, body: { name: 'b-private' } }),
      );
      const listA = await json(await api('/api/applications', { token: devA }));
      const listB = await json(await api('/api/applications', { token: devB }));
      expect(listA.applications.map((a: { id: string }) => a.id)).toContain(appA);
      expect(listA.applications.map((a: { id: string }) => a.id)).not.toContain(b.id);
      expect(listB.applications.map((a: { id: string }) => a.id)).toEqual([b.id]);
      expect((await api(`/api/applications/${b.id}`, { method: 'DELETE', token: devA })).status).toBe(404);
      expect((await api(`/api/applications/${b.id}`, { method: 'DELETE', token: adminB })).status).toBe(204);
      expect((await api(`/api/applications/${b.id}`, { token: devB })).status).toBe(404);
    });

    it('refuses git URLs to loopback, metadata, private ranges and names resolving to them with 400', async () => {
      for (const url of [
        'http://127.0.0.1:6379/repo.git',
        'http://169.254.169.254/latest/meta-data/',
        'http://10.1.2.3/repo.git',
        'http://172.16.0.1/repo.git',
        'http://192.168.1.1/repo.git',
        'http://[::1]/repo.git',
        'http://localhost/repo.git',
        'https://rebind.example.com/repo.git',
        'https://meta.example.com/repo.git',
        'ssh://git@github.com/acme/repo.git',
      ]) {
        const r = await api(`/api/applications/${appA}/sources`, {
          method: 'POST',
          token: devA,
          body: { name: 'remote', git: { url } },
        });
        expect(r.status, url).toBe(400);
        expect((await json(r)).error.code).toBe('INVALID_PARAMS');
      }
    });

    it('never returns the credentials of a git URL', async () => {
      const r = await api(`/api/applications/${appA}/sources`, {
        method: 'POST',
        token: devA,
        body: { name: 'private-remote', git: { url: 'https://deploy:ghp_s3cret@git.example.com/acme/web.git' } },
      });
      expect(r.status).toBe(201);
      const answers = JSON.stringify([
        await json(r),
        await json(await api(`/api/applications/${appA}`, { token: devA })),
        await json(await api('/api/applications', { token: adminA })),
      ]);
      expect(answers).not.toContain('ghp_s3cret');
      expect(answers).not.toContain('deploy:');
      expect(answers).toContain('https://***@git.example.com/acme/web.git');
    });

    it('the linker gRPC port refuses a raw call without the internal credential, whatever role it claims', async () => {
      const { address } = await system.linker.start();
      expect(address).toMatch(/^127\.0\.0\.1:/);
      const client = new linkerV1.LinkerServiceClient(address, grpc.credentials.createInsecure());
      try {
        const err = await new Promise<grpc.ServiceError | null>((resolve) =>
          client.listApplications(
            { caller: { subscriptionId: 'tenant-b', role: 'admin', userId: '' } },
            new grpc.Metadata(),
            (e) => resolve(e),
          ),
        );
        expect(err?.code).toBe(grpc.status.UNAUTHENTICATED);
      } finally {
        client.close();
      }
    });

    it("creating a user with another tenant's email does not reveal it (201); a duplicate within a tenant is 409", async () => {
      const r = await api('/api/v1/users', {
        method: 'POST',
        token: adminB,
        body: { email: 'dev@tenant-a.example', role: 'developer' },
      });
      expect(r.status).toBe(201);
      const again = await api('/api/v1/users', {
        method: 'POST',
        token: adminB,
        body: { email: 'dev@tenant-a.example', role: 'developer' },
      });
      expect(again.status).toBe(409);
      expect((await json(again)).error.code).toBe('CONFLICT');
    });
  });
});
