import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { AppError } from '@a2a-inbound/errors';
import { type GrpcServerHandle, grpc, startGrpcServer, unary } from '@a2a-inbound/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkerRouter } from '../../src/http/linker-routes';
import * as linkerV1 from '../../../../proto/gen/a2a_inbound/linker/v1/linker';

const TOKEN = 'gateway-test-linker-token-0123456789abcdef';

/**
 * A fake linker behind a real gRPC server: enough behaviour to check the REST mapping. It refuses calls
 * without the service credential and records the callers it was sent.
 */
function fakeLinker(
  seen: linkerV1.IngestSourceRequest[],
  callers: (linkerV1.Caller | undefined)[],
): linkerV1.LinkerServiceServer {
  const apps = new Map<string, linkerV1.Application>();
  const check = (caller: linkerV1.Caller | undefined): void => {
    callers.push(caller);
    if (caller?.role !== 'admin' && caller?.role !== 'developer')
      throw new AppError('PERMISSION_DENIED', 'role Admin or Developer is required');
  };
  const u = <Req, Res>(fn: (r: Req) => Promise<Res>) =>
    unary(async (r: Req, call: { metadata: grpc.Metadata }) => {
      if (call.metadata.get('authorization')[0] !== `Bearer ${TOKEN}`)
        throw new AppError('UNAUTHENTICATED', 'the linker needs the internal service credential');
      return fn(r);
    });
  const get = (id: string): linkerV1.Application => {
    const a = apps.get(id);
    if (!a) throw new AppError('NOT_FOUND', `application ${id} not found`);
    return a;
  };
  const version = (applicationId: string, number: number): linkerV1.Version => ({
    applicationId,
    number,
    sourceId: 's1',
    sourceName: 'web',
    createdAtMs: 1,
    status: 'completed',
    stages: [{ name: 'fetch', status: 'completed', startedAtMs: 1, finishedAtMs: 2, durationMs: 1, detail: '' }],
    revision: 'abc',
    error: '',
    linked: false,
    notLinkedReason: 'the application has one source',
  });
  return {
    createApplication: u(async (r: linkerV1.CreateApplicationRequest) => {
      check(r.caller);
      const a: linkerV1.Application = {
        id: `app-${apps.size + 1}`,
        name: r.name,
        sources: [],
        latestVersion: 0,
        createdAtMs: 1,
      };
      apps.set(a.id, a);
      return a;
    }),
    listApplications: u(async (r: linkerV1.ListApplicationsRequest) => {
      check(r.caller);
      return { applications: [...apps.values()] };
    }),
    getApplication: u(async (r: linkerV1.GetApplicationRequest) => {
      check(r.caller);
      return get(r.applicationId);
    }),
    addSource: u(async (r: linkerV1.AddSourceRequest) => {
      check(r.caller);
      const a = get(r.applicationId);
      const s: linkerV1.Source = {
        id: `s${a.sources.length + 1}`,
        name: r.name,
        location: r.location!,
        addedAtMs: 1,
        lastVersion: 0,
        revision: '',
      };
      a.sources.push(s);
      return s;
    }),
    ingestSource: u(async (r: linkerV1.IngestSourceRequest) => {
      check(r.caller);
      const a = get(r.applicationId);
      seen.push(r);
      a.latestVersion += 1;
      return version(a.id, a.latestVersion);
    }),
    getVersion: u(async (r: linkerV1.GetVersionRequest) => {
      check(r.caller);
      const a = get(r.applicationId);
      return version(a.id, r.number || a.latestVersion);
    }),
    listVersions: u(async (r: linkerV1.ListVersionsRequest) => {
      check(r.caller);
      const a = get(r.applicationId);
      return { versions: Array.from({ length: a.latestVersion }, (_, i) => version(a.id, a.latestVersion - i)) };
    }),
    deleteApplication: u(async (r: linkerV1.DeleteApplicationRequest) => {
      check(r.caller);
      get(r.applicationId);
      apps.delete(r.applicationId);
      return { deleted: true };
    }),
    getReport: u(async (r: linkerV1.GetReportRequest) => {
      check(r.caller);
      const a = get(r.applicationId);
      if (a.latestVersion === 0)
        throw new AppError('FAILED_PRECONDITION', 'the application has no ingested source yet');
      return {
        version: version(a.id, a.latestVersion),
        reportJson: JSON.stringify({ application: a.name, statistics: { apiLinks: 0 } }),
        markdown: `# Link report: ${a.name}\n`,
      };
    }),
  };
}

describe('linker REST routes', () => {
  let grpcServer: GrpcServerHandle;
  let client: linkerV1.LinkerServiceClient;
  let http: Server;
  let base: string;
  const seen: linkerV1.IngestSourceRequest[] = [];
  const callers: (linkerV1.Caller | undefined)[] = [];
  let unconfigured: Server;
  let unconfiguredBase: string;
  let mismatched: Server;
  let mismatchedBase: string;

  beforeAll(async () => {
    grpcServer = await startGrpcServer(
      [{ definition: linkerV1.LinkerServiceService, implementation: fakeLinker(seen, callers) }],
      { host: '127.0.0.1', port: 0, isServing: () => true },
    );
    client = new linkerV1.LinkerServiceClient(grpcServer.address, grpc.credentials.createInsecure());
    // The user as the gateway's authentication resolved it: a role and a subscription (x-test-sub).
    const callerOf = (r: express.Request): linkerV1.Caller | undefined => {
      const role = r.header('x-test-role');
      return role ? { role, subscriptionId: r.header('x-test-sub') ?? 'sub-1', userId: 'u-1' } : undefined;
    };
    const app = express();
    app.use(createLinkerRouter({ linker: client, callerOf, serviceToken: TOKEN, maxArchiveBytes: 1024 }));
    http = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => http.once('listening', () => resolve()));
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const bare = express();
    bare.use(createLinkerRouter({ linker: client, callerOf, serviceToken: '' }));
    unconfigured = bare.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => unconfigured.once('listening', () => resolve()));
    unconfiguredBase = `http://127.0.0.1:${(unconfigured.address() as AddressInfo).port}`;
    const wrong = express();
    wrong.use(createLinkerRouter({ linker: client, callerOf, serviceToken: `${TOKEN}-rotated` }));
    mismatched = wrong.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => mismatched.once('listening', () => resolve()));
    mismatchedBase = `http://127.0.0.1:${(mismatched.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => http.close(() => resolve()));
    await new Promise<void>((resolve) => unconfigured.close(() => resolve()));
    await new Promise<void>((resolve) => mismatched.close(() => resolve()));
    client.close();
    await grpcServer.close();
  });

  const req = (
    method: string,
    path: string,
    role: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    fetch(base + path, {
      method,
      headers: {
        ...(role ? { 'x-test-role': role } : {}),
        ...(body !== undefined && !(body instanceof Uint8Array) ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
    });

  it('creates an application, adds sources, ingests and reads versions and the report', async () => {
    const created = await req('POST', '/api/applications', 'developer', { name: 'shop' });
    expect(created.status).toBe(201);
    const app = (await created.json()) as linkerV1.Application;
    expect(app).toMatchObject({ id: 'app-1', name: 'shop', latestVersion: 0 });

    const src = await req('POST', `/api/applications/${app.id}/sources`, 'developer', {
      name: 'web',
      git: { url: 'https://example.com/web.git', ref: 'main' },
    });
    expect(src.status).toBe(201);
    expect(await src.json()).toMatchObject({
      name: 'web',
      location: { kind: { $case: 'git', git: { url: 'https://example.com/web.git', ref: 'main' } } },
    });

    const noReport = await req('GET', `/api/applications/${app.id}/report`, 'developer');
    expect(noReport.status).toBe(409);
    expect(await noReport.json()).toEqual({
      error: { code: 'FAILED_PRECONDITION', message: 'the application has no ingested source yet' },
    });

    const ingested = await req('POST', `/api/applications/${app.id}/ingest`, 'admin', { source: 'web', ref: 'v2' });
    expect(ingested.status).toBe(200);
    expect(await ingested.json()).toMatchObject({
      number: 1,
      linked: false,
      notLinkedReason: 'the application has one source',
    });
    expect(seen.at(-1)).toMatchObject({ sourceId: 'web', ref: 'v2' });

    const archive = new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3]);
    const upload = await req(
      'POST',
      `/api/applications/${app.id}/ingest?source=web&filename=web.tar.gz`,
      'admin',
      archive,
      { 'content-type': 'application/gzip' },
    );
    expect(upload.status).toBe(200);
    expect(seen.at(-1)?.archiveFilename).toBe('web.tar.gz');
    expect([...seen.at(-1)!.archive]).toEqual([...archive]);

    const version = await req('GET', `/api/applications/${app.id}/versions/1`, 'developer');
    expect(await version.json()).toMatchObject({ number: 1, stages: [{ name: 'fetch', status: 'completed' }] });
    const all = await req('GET', `/api/applications/${app.id}/versions`, 'developer');
    expect(((await all.json()) as linkerV1.ListVersionsResponse).versions.map((v) => v.number)).toEqual([2, 1]);
    const latest = await req('GET', `/api/applications/${app.id}/versions/latest`, 'developer');
    expect(await latest.json()).toMatchObject({ number: 2 });

    const json = await req('GET', `/api/applications/${app.id}/report?format=json`, 'developer');
    expect(await json.json()).toMatchObject({
      version: { number: 2 },
      report: { application: 'shop', statistics: { apiLinks: 0 } },
    });
    const md = await req('GET', `/api/applications/${app.id}/report?format=markdown`, 'developer');
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(await md.text()).toBe('# Link report: shop\n');

    const list = await req('GET', '/api/applications', 'admin');
    expect(((await list.json()) as linkerV1.ListApplicationsResponse).applications.map((a) => a.name)).toEqual([
      'shop',
    ]);
  });

  it('answers errors as JSON: 401 without a role, 403 for other roles, 404, 400, 413', async () => {
    const anon = await req('GET', '/api/applications', undefined);
    expect(anon.status).toBe(401);
    expect(((await anon.json()) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');

    const viewer = await req('POST', '/api/applications', 'viewer', { name: 'x' });
    expect(viewer.status).toBe(403);
    expect(((await viewer.json()) as { error: { code: string } }).error.code).toBe('PERMISSION_DENIED');

    const missing = await req('GET', '/api/applications/nope', 'admin');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);

    const bad = await req('POST', '/api/applications/app-1/sources', 'admin', { name: 'x' });
    expect(bad.status).toBe(400);
    const badFormat = await req('GET', '/api/applications/app-1/report?format=html', 'admin');
    expect(badFormat.status).toBe(400);

    const broken = await fetch(`${base}/api/applications`, {
      method: 'POST',
      headers: { 'x-test-role': 'admin', 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe('PARSE_ERROR');

    const tooBig = await req('POST', '/api/applications/app-1/ingest?source=web', 'admin', new Uint8Array(2048), {
      'content-type': 'application/zip',
    });
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('sends the signed-in user as the caller (subscription, role, user) with the service credential', async () => {
    callers.length = 0;
    const r = await req('GET', '/api/applications', 'developer', undefined, { 'x-test-sub': 'sub-7' });
    expect(r.status).toBe(200);
    expect(callers).toEqual([{ subscriptionId: 'sub-7', role: 'developer', userId: 'u-1' }]);
  });

  it('DELETE /api/applications/:id deletes (204), then the application is 404', async () => {
    const created = (await (await req('POST', '/api/applications', 'admin', { name: 'gone' })).json()) as {
      id: string;
    };
    const del = await req('DELETE', `/api/applications/${created.id}`, 'admin');
    expect(del.status).toBe(204);
    expect((await req('GET', `/api/applications/${created.id}`, 'admin')).status).toBe(404);
    expect((await req('DELETE', `/api/applications/${created.id}`, 'admin')).status).toBe(404);
  });

  it('without LINKER_SERVICE_TOKEN the routes answer 503 JSON and never call the linker', async () => {
    callers.length = 0;
    const r = await fetch(`${unconfiguredBase}/api/applications`, { headers: { 'x-test-role': 'admin' } });
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({
      error: { code: 'UNAVAILABLE', message: expect.any(String) as string },
    });
    expect(callers).toEqual([]);
  });

  it('a credential the linker refuses is a 503 for the signed-in user, not a 401', async () => {
    const r = await fetch(`${mismatchedBase}/api/applications`, { headers: { 'x-test-role': 'admin' } });
    expect(r.status).toBe(503);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('UNAVAILABLE');
  });
});
