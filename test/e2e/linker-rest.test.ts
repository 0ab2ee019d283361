import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';
import { startSystem, type System } from '@a2a-inbound/embedded';

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
});
