import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkerV1 } from '@a2a-inbound/proto';
import { checkHealth, grpc } from '@a2a-inbound/runtime';
import { eventually, manage, type Sut } from '@a2a-inbound/testing';
import { engineUrlsSet, startDistributed, type Cluster } from './cluster';

const FIXTURES = join(__dirname, '../../services/linker/test/fixtures/http-polyglot');

/**
 * The linker as separate processes on FerretDB (issue 8, item 7): two tenants through the gateway's REST API,
 * sources uploaded as archives (no local directories outside development), the linker's gRPC port
 * refusing calls without the gateway's credential.
 */
describe.runIf(engineUrlsSet)('linker tenancy (distributed)', () => {
  let cluster: Cluster;
  let sut: Sut;
  let base: string;
  let linkerAddress: string;
  const tokens: Record<'adminA' | 'devA' | 'adminB' | 'devB', string> = { adminA: '', devA: '', adminB: '', devB: '' };
  const api = (path: string, init: { method?: string; token: string; body?: unknown; raw?: Buffer; type?: string }) =>
    fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        Authorization: `Bearer ${init.token}`,
        'Content-Type': init.type ?? 'application/json',
      },
      ...(init.raw ? { body: init.raw } : init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });

  beforeAll(async () => {
    ({ cluster, sut } = await startDistributed({ gateways: 1, runners: 1 }));
    base = cluster.gateways[0]!;
    const linker = cluster.procs.get('linker') as unknown as { env: Record<string, string> };
    linkerAddress = `127.0.0.1:${linker.env.LINKER_GRPC_PORT}`;
    await eventually(async () => (await checkHealth(linkerAddress).catch(() => 'DOWN')) === 'SERVING', 60_000, 200);
    const user = async (subscriptionId: string, role: 'admin' | 'developer', email: string): Promise<string> =>
      (await manage({ ...sut, subscriptionId }, 'admin', 'users.create', { email, role })).token as string;
    const run = Math.random().toString(36).slice(2, 8);
    tokens.adminA = await user(sut.subscriptionId, 'admin', `admin-a-${run}@example.com`);
    tokens.devA = await user(sut.subscriptionId, 'developer', `dev-a-${run}@example.com`);
    tokens.adminB = await user(`tenant-b-${run}`, 'admin', `admin-b-${run}@example.com`);
    tokens.devB = await user(`tenant-b-${run}`, 'developer', `dev-b-${run}@example.com`);
  }, 240_000);
  afterAll(async () => {
    await cluster?.stopAll();
  }, 120_000);

  it('isolates two tenants in every route; the owner ingests an uploaded archive and reads its report', async () => {
    const created = await api('/api/applications', { method: 'POST', token: tokens.devA, body: { name: 'shop' } });
    expect(created.status).toBe(201);
    const appA = ((await created.json()) as { id: string }).id;
    expect(
      (
        await api(`/api/applications/${appA}/sources`, {
          method: 'POST',
          token: tokens.adminA,
          body: { name: 'orders', archive: { filename: 'orders.tar.gz' } },
        })
      ).status,
    ).toBe(201);
    const tarball = execFileSync('tar', ['-czf', '-', '-C', FIXTURES, 'orders']);
    const ingested = await api(`/api/applications/${appA}/ingest?source=orders&filename=orders.tar.gz`, {
      method: 'POST',
      token: tokens.devA,
      raw: tarball,
      type: 'application/gzip',
    });
    expect(ingested.status).toBe(200);
    expect(((await ingested.json()) as { status: string }).status).toBe('completed');

    // A local directory is refused: the distributed linker has no LINKER_ALLOWED_DIRS.
    const local = await api(`/api/applications/${appA}/sources`, {
      method: 'POST',
      token: tokens.adminA,
      body: { name: 'etc', dir: '/etc' },
    });
    expect(local.status).toBe(403);

    for (const token of [tokens.adminB, tokens.devB]) {
      const list = (await (await api('/api/applications', { token })).json()) as { applications: { id: string }[] };
      expect(list.applications.map((a) => a.id)).not.toContain(appA);
      for (const [method, suffix, body] of [
        ['GET', '', undefined],
        ['POST', '/sources', { name: 'x', archive: { filename: 'x.zip' } }],
        ['POST', '/ingest', { source: 'orders' }],
        ['GET', '/report', undefined],
        ['GET', '/versions', undefined],
        ['GET', '/versions/1', undefined],
        ['DELETE', '', undefined],
      ] as const) {
        const r = await api(`/api/applications/${appA}${suffix}`, { method, token, body });
        expect(r.status, `${method} ${suffix}`).toBe(404);
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
      }
    }
    const report = await api(`/api/applications/${appA}/report?format=json`, { token: tokens.devA });
    expect(report.status).toBe(200);
    expect(((await report.json()) as { version: { number: number } }).version.number).toBe(1);
  });

  it('refuses git URLs to loopback, the metadata address and private ranges with 400', async () => {
    const created = await api('/api/applications', { method: 'POST', token: tokens.devB, body: { name: 'remote' } });
    const id = ((await created.json()) as { id: string }).id;
    for (const url of [
      `http://${linkerAddress}/x.git`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/x.git',
      'http://localhost/x.git',
    ]) {
      const r = await api(`/api/applications/${id}/sources`, {
        method: 'POST',
        token: tokens.devB,
        body: { name: 'r', git: { url } },
      });
      expect(r.status, url).toBe(400);
    }
  });

  it('the linker listens on loopback and refuses raw gRPC without the gateway credential', async () => {
    expect(linkerAddress.startsWith('127.0.0.1:')).toBe(true);
    const client = new linkerV1.LinkerServiceClient(linkerAddress, grpc.credentials.createInsecure());
    try {
      for (const metadata of [
        new grpc.Metadata(),
        (() => {
          const m = new grpc.Metadata();
          m.set('authorization', 'Bearer guessed-guessed-guessed-guessed-guessed');
          return m;
        })(),
      ]) {
        const err = await new Promise<grpc.ServiceError | null>((resolve) =>
          client.listApplications(
            { caller: { subscriptionId: sut.subscriptionId, role: 'admin', userId: '' } },
            metadata,
            (e) => resolve(e),
          ),
        );
        expect(err?.code).toBe(grpc.status.UNAUTHENTICATED);
      }
    } finally {
      client.close();
    }
  });
});
