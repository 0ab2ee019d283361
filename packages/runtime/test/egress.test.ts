import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressAgent, egressBlockedCause, egressFetch } from '../src/egress';
import { EgressPolicy, parseEgressAllowList, pushEgressPolicy, readPushAllowList } from '../src/net-guard';

describe('egress allow-list (EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS)', () => {
  it('validates entries and reports every bad one', () => {
    const ok = parseEgressAllowList(['Agents.Internal', '*.svc.cluster.local'], ['10.0.0.0/8', 'fd00::/8']);
    expect(ok.problems).toEqual([]);
    expect(ok.allowList.hosts).toEqual(['agents.internal', '*.svc.cluster.local']);
    const bad = parseEgressAllowList(['not a host', 'http://x'], ['10.0.0.0', '0.0.0.0/0', 'nope']);
    expect(bad.problems).toHaveLength(5);
    expect(bad.problems.join('\n')).toContain('EGRESS_ALLOW_CIDRS: "0.0.0.0/0" allows every address');
  });

  it('push receivers have their own allow-list (PUSH_ALLOW_*), https only', async () => {
    const problems: string[] = [];
    const env: Record<string, string[]> = {
      PUSH_ALLOW_HOSTS: ['hooks.internal'],
      PUSH_ALLOW_CIDRS: ['127.0.0.1/32', 'x'],
    };
    const list = readPushAllowList({ list: (n) => env[n] ?? [], problem: (m) => problems.push(m) });
    expect(problems).toEqual(['PUSH_ALLOW_CIDRS: "x" is not a CIDR range (e.g. 10.0.0.0/8)']);
    const p = pushEgressPolicy({ ...list, cidrs: ['127.0.0.1/32'] }); // a problem stops the service at start
    expect(p.checkUrlShape('https://127.0.0.1:8443/hook').ok).toBe(true);
    expect(p.checkUrlShape('http://127.0.0.1:8443/hook')).toEqual({ ok: false, reason: 'url must use https' });
    expect((await p.checkUrl('https://hooks.internal/h', async () => ['10.9.9.9'])).ok).toBe(true);
    expect(p.allowsAddress('10.9.9.9', 'hooks.internal')).toBe(true);
    expect(p.allowsAddress('10.9.9.9', 'other.internal')).toBe(false);
    const refused = p.checkUrlShape('https://10.0.0.1/hook');
    expect(!refused.ok && refused.reason).toContain('add it to PUSH_ALLOW_CIDRS');
    // No list: Webhook rule 1 (public https only).
    expect(pushEgressPolicy().empty).toBe(true);
    expect(pushEgressPolicy().checkUrlShape('https://127.0.0.1/hook').ok).toBe(false);
  });

  it('without an allow-list only public addresses over https pass', () => {
    const p = new EgressPolicy();
    expect(p.allowsAddress('93.184.216.34')).toBe(true);
    expect(p.allowsAddress('10.1.2.3')).toBe(false);
    expect(p.allowsAddress('127.0.0.1', 'agent.internal')).toBe(false);
    expect(p.checkUrlShape('https://agent.example.com/a2a').ok).toBe(true);
    expect(p.checkUrlShape('http://agent.example.com/a2a')).toEqual({ ok: false, reason: 'url must use https' });
    const refused = p.checkUrlShape('http://127.0.0.1:9999/');
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.reason).toContain('not on the operator allow-list');
    expect(p.checkUrlShape('https://agent.svc.cluster.local/').ok).toBe(false);
  });

  it('allow-listed ranges and hosts may be private and may use plain http', () => {
    const p = new EgressPolicy({ hosts: ['*.svc.cluster.local', 'model.lan'], cidrs: ['127.0.0.0/8', 'fd00::/8'] });
    expect(p.allowsAddress('127.0.0.1')).toBe(true);
    expect(p.allowsAddress('::ffff:127.0.0.1')).toBe(true);
    expect(p.allowsAddress('fd00::5')).toBe(true);
    expect(p.allowsAddress('10.0.0.1')).toBe(false);
    // A listed name may resolve to any address; an unlisted one to no private one.
    expect(p.allowsAddress('10.0.0.1', 'agent.ns.svc.cluster.local')).toBe(true);
    expect(p.allowsAddress('10.0.0.1', 'model.lan')).toBe(true);
    expect(p.allowsAddress('10.0.0.1', 'other.lan')).toBe(false);
    expect(p.checkUrlShape('http://127.0.0.1:8000/v1').ok).toBe(true);
    expect(p.checkUrlShape('http://agent.ns.svc.cluster.local/a2a').ok).toBe(true);
    expect(p.checkUrlShape('http://user:pw@model.lan/').ok).toBe(false);
    expect(p.checkUrlShape('ftp://model.lan/').ok).toBe(false);
    expect(p.checkUrlShape('http://10.0.0.1/').ok).toBe(false);
  });

  it('localhost passes when the addresses it resolves to are listed ranges; otherwise the error names the settings', async () => {
    const dns = async (h: string): Promise<string[]> => (h === 'localhost' ? ['127.0.0.1', '::1'] : []);
    const loopback = new EgressPolicy({ hosts: [], cidrs: ['127.0.0.1/32', '::1/128'] });
    expect(loopback.checkUrlShape('http://localhost:11434/v1').ok).toBe(true);
    expect((await loopback.checkUrl('http://localhost:11434/v1', dns)).ok).toBe(true);
    expect(loopback.allowsAddress('127.0.0.1', 'localhost')).toBe(true); // connect time
    // Only IPv4 loopback listed: localhost's ::1 is not, so the name is refused, naming what to set.
    const v4only = new EgressPolicy({ hosts: [], cidrs: ['127.0.0.1/32'] });
    const partly = await v4only.checkUrl('http://localhost:11434/v1', dns);
    expect(!partly.ok && partly.reason).toContain('EGRESS_ALLOW_CIDRS');
    const none = new EgressPolicy().checkUrlShape('http://localhost:11434/v1');
    expect(!none.ok && none.reason).toMatch(
      /localhost is private and not on the operator allow-list: add it to EGRESS_ALLOW_HOSTS/,
    );
    expect(new EgressPolicy({ hosts: ['localhost'], cidrs: [] }).checkUrlShape('http://localhost:1/').ok).toBe(true);
  });

  it('checkUrl refuses a name that resolves to an unlisted private address', async () => {
    const p = new EgressPolicy({ hosts: ['model.lan'], cidrs: [] });
    const dns = async (h: string): Promise<string[]> => (h === 'model.lan' ? ['10.0.0.7'] : ['10.0.0.8']);
    expect((await p.checkUrl('http://model.lan/', dns)).ok).toBe(true);
    expect((await p.checkUrl('https://looks-public.example.com/', dns)).ok).toBe(false);
  });
});

describe('egress agent and fetch: the policy at connect time, redirects re-checked', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/to-private') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
      } else if (req.url === '/to-listed') {
        res.writeHead(307, { location: `http://upstream.test:${port}/ok` }).end();
      } else res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${req.method}`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  const dns = async (): Promise<string[]> => ['127.0.0.1'];

  it('refuses a loopback destination without an allow-list, literal or by name', async () => {
    const agent = createEgressAgent({ resolve: dns });
    const f = egressFetch(agent);
    const literal = await f(`http://127.0.0.1:${port}/ok`).catch((e: unknown) => e);
    expect(egressBlockedCause(literal)).toBeDefined();
    // A public-looking https name resolving to loopback: refused at connect time.
    const named = await f(`https://public.example.com:${port}/ok`).catch((e: unknown) => e);
    expect(egressBlockedCause(named)?.address).toBe('127.0.0.1');
    await agent.close();
  });

  it('reaches an allow-listed host, and refuses its redirect to an address not on the list', async () => {
    const agent = createEgressAgent({
      resolve: dns,
      policy: new EgressPolicy({ hosts: ['upstream.test'], cidrs: [] }),
    });
    const f = egressFetch(agent);
    const ok = await f(`http://upstream.test:${port}/ok`);
    expect(await ok.text()).toBe('ok GET');
    const redirected = await f(`http://upstream.test:${port}/to-private`).catch((e: unknown) => e);
    expect(egressBlockedCause(redirected)?.host).toBe('127.0.0.1');
    const followed = await f(`http://upstream.test:${port}/to-listed`, { method: 'POST', body: 'x' });
    expect(await followed.text()).toBe('ok POST');
    await agent.close();
  });
});

describe('egress fetch: credentials never follow a redirect to another origin', () => {
  const seen: { origin: 'first' | 'other'; path: string; method: string; headers: Record<string, unknown> }[] = [];
  let first: Server;
  let other: Server;
  let firstBase = '';
  let otherBase = '';
  const listen = async (s: Server): Promise<string> => {
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  };
  beforeAll(async () => {
    first = createServer((req, res) => {
      const path = req.url ?? '/';
      const status = Number(/^\/(30\d)\//.exec(path)?.[1] ?? 307);
      if (path.includes('/cross/')) res.writeHead(status, { location: `${otherBase}/landed` }).end();
      else if (path.includes('/same/')) res.writeHead(status, { location: '/landed' }).end();
      else if (path.includes('/back/')) res.writeHead(status, { location: `${otherBase}/return` }).end();
      else {
        seen.push({ origin: 'first', path, method: req.method ?? '', headers: req.headers });
        res.end('first');
      }
    });
    other = createServer((req, res) => {
      seen.push({ origin: 'other', path: req.url ?? '/', method: req.method ?? '', headers: req.headers });
      if (req.url === '/return') res.writeHead(307, { location: `${firstBase}/landed` }).end();
      else res.end('other');
    });
    firstBase = await listen(first);
    otherBase = await listen(other);
  });
  afterAll(async () => {
    await new Promise<void>((r) => first.close(() => r()));
    await new Promise<void>((r) => other.close(() => r()));
  });
  const credentials = {
    Authorization: 'Bearer top-secret',
    Cookie: 'session=top-secret',
    'Proxy-Authorization': 'Basic top-secret',
    'X-Api-Key': 'top-secret',
    'X-Mcp-Key': 'top-secret',
    Accept: 'application/json',
    'Content-Type': 'application/json',
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  };
  const loopback = (): ReturnType<typeof createEgressAgent> =>
    createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.0/8'] }) });

  it.each([307, 308, 302, 303, 301])(
    'a %i to another origin (another port of loopback) drops every credential header and keeps the safe ones',
    async (status) => {
      seen.length = 0;
      const agent = loopback();
      const res = await egressFetch(agent)(`${firstBase}/${status}/cross/x`, {
        method: 'POST',
        headers: credentials,
        body: '{"q":1}',
      });
      expect(await res.text()).toBe('other');
      expect(seen).toHaveLength(1);
      const h = seen[0]!.headers;
      expect(seen[0]!.origin).toBe('other');
      for (const name of ['authorization', 'cookie', 'proxy-authorization', 'x-api-key', 'x-mcp-key'])
        expect(h[name]).toBeUndefined();
      expect(JSON.stringify(h)).not.toContain('top-secret');
      expect(h.accept).toBe('application/json');
      expect(h.traceparent).toBe(credentials.traceparent);
      // 307 and 308 repeat the POST with its body; the others turn it into a GET without one.
      expect(seen[0]!.method).toBe(status === 307 || status === 308 ? 'POST' : 'GET');
      await agent.close();
    },
  );

  it('a redirect within the same origin keeps them', async () => {
    seen.length = 0;
    const agent = loopback();
    const res = await egressFetch(agent)(`${firstBase}/307/same/x`, {
      method: 'POST',
      headers: credentials,
      body: '{}',
    });
    expect(await res.text()).toBe('first');
    expect(seen[0]).toMatchObject({
      origin: 'first',
      path: '/landed',
      headers: { authorization: 'Bearer top-secret', cookie: 'session=top-secret', 'x-api-key': 'top-secret' },
    });
    await agent.close();
  });

  it('once dropped they stay dropped, even when a later hop comes back to the first origin', async () => {
    seen.length = 0;
    const agent = loopback();
    const res = await egressFetch(agent)(`${firstBase}/307/back/x`, { headers: new Headers(credentials) });
    expect(await res.text()).toBe('first');
    expect(seen.map((s) => `${s.origin} ${s.path}`)).toEqual(['other /return', 'first /landed']);
    for (const s of seen) expect(JSON.stringify(s.headers)).not.toContain('top-secret');
    await agent.close();
  });

  it('a Request given as input: its headers are sent, and dropped on the other origin too', async () => {
    seen.length = 0;
    const agent = loopback();
    const res = await egressFetch(agent)(new Request(`${firstBase}/307/cross/x`, { headers: credentials }));
    expect(await res.text()).toBe('other');
    expect(JSON.stringify(seen[0]!.headers)).not.toContain('top-secret');
    seen.length = 0;
    await egressFetch(agent)(new Request(`${firstBase}/plain`, { headers: credentials }));
    expect(seen[0]!.headers.authorization).toBe('Bearer top-secret');
    await agent.close();
  });
});
