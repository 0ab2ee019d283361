import { describe, expect, it } from 'vitest';
import { isIgnoredFile } from '../../src/domain/extract/index';
import { relaxedKey, splitUrl, topicMatches } from '../../src/domain/link';
import { HOLE, joinPath, matchScore, segments } from '../../src/domain/routes';
import { requireRole } from '../../src/domain/linker-service';
import { loadLinkerConfig } from '../../src/config';

describe('rule 1: templates normalised by position', () => {
  it('parameter syntaxes and constraint suffixes all become one parameter; digits-only constraints a numeric one', () => {
    const templates = ['/orders/{id}', '/orders/:orderId', '/orders/[id]', '/orders/{id:minlength(1)}'];
    for (const t of templates) expect(segments(t)).toEqual(['orders', '{}']);
    const numeric = ['/orders/{id:int}', '/orders/<int:pk>', '/orders/{id:[0-9]+}', '^orders/(?P<pk>\\d+)/$'];
    for (const t of numeric) expect(segments(t)).toEqual(['orders', '{#}']);
  });
  it('a call matches a template with a parameter at the same position, not at another length', () => {
    expect(matchScore(segments('/orders/42'), segments('/orders/{id:int}'))).toBe(1);
    expect(matchScore(segments(`/orders/${HOLE}`), segments('/orders/:id'))).toBe(1);
    expect(matchScore(segments('/orders/42/lines'), segments('/orders/{id}'))).toBeUndefined();
    expect(matchScore(segments('/orders/latest'), segments('/orders/latest'))).toBe(2);
    expect(matchScore(segments(`/orders/${HOLE}`), segments('/orders/latest'))).toBeUndefined();
  });
  it('spec rule 1: a template matches one with a differently named, constrained parameter at the same position, numeric ones included', () => {
    expect(matchScore(segments('/orders/{orderId:int}'), segments('/orders/{id:long}'))).toBe(1);
    expect(matchScore(segments('/orders/<int:pk>'), segments('/orders/{id:int}'))).toBe(1);
    expect(matchScore(segments('/orders/{id}'), segments('/orders/{pk:int}'))).toBe(1);
    expect(matchScore(segments('/orders/{orderId:int}'), segments('/orders/{id}'))).toBe(1);
    expect(matchScore(segments('/orders/latest'), segments('/orders/{id:int}'))).toBeUndefined();
  });
  it('a parameter inside a segment fits the literal text around it (v{version:apiVersion} fits v1, not x1 or a run-time value)', () => {
    expect(segments('/api/v{version:apiVersion}/items')).toEqual(['api', 'v{}', 'items']);
    expect(matchScore(segments('/api/v1/items'), segments('/api/v{version:apiVersion}/items'))).toBe(2);
    expect(matchScore(segments('/api/x1/items'), segments('/api/v{version:apiVersion}/items'))).toBeUndefined();
    expect(matchScore(segments(`/api/${HOLE}/items`), segments('/api/v{version}/items'))).toBeUndefined();
    expect(matchScore(segments('/files/report.json'), segments('/files/{name}.json'))).toBe(1);
  });
  it('ignores query strings and trailing slashes; literals compare case-insensitively', () => {
    expect(segments('/API/Orders/?page=2')).toEqual(['api', 'orders']);
    expect(joinPath('/api/', 'orders', '{id}')).toBe('/api/orders/{id}');
  });
});

describe('URLs and configuration keys', () => {
  it('splits hosts from paths and recognises dynamic URLs', () => {
    expect(splitUrl('http://orders:8080/api/orders')).toEqual({ host: 'orders', path: '/api/orders' });
    expect(splitUrl('https://user@api.example.com')).toEqual({ host: 'api.example.com', path: '/' });
    expect(splitUrl(`${HOLE}/api/orders`)).toEqual({ path: '/api/orders' });
    expect(splitUrl(HOLE)).toBeUndefined();
    expect(splitUrl(`${HOLE}?q=1`)).toBeUndefined();
    expect(splitUrl('api/orders')).toEqual({ path: '/api/orders' });
  });
  it('relaxes keys the way .NET and Spring bind them', () => {
    expect(relaxedKey('Services:Orders')).toBe(relaxedKey('SERVICES__ORDERS'));
    expect(relaxedKey('orders.base-url')).toBe(relaxedKey('ORDERS_BASEURL'));
  });
});

describe('rule 4: AMQP topic patterns', () => {
  it('* is one word, # is zero or more', () => {
    expect(topicMatches('order.*', 'order.created')).toBe(true);
    expect(topicMatches('order.*', 'order.created.eu')).toBe(false);
    expect(topicMatches('order.#', 'order')).toBe(true);
    expect(topicMatches('order.#', 'order.created.eu')).toBe(true);
    expect(topicMatches('#.eu', 'order.created.eu')).toBe(true);
    expect(topicMatches('order.created', 'order.cancelled')).toBe(false);
  });
});

describe('ignored files', () => {
  it('test folders and files are ignored unless included; generated bundles always', () => {
    expect(isIgnoredFile('src/__tests__/a.ts', false)).toBe(true);
    expect(isIgnoredFile('Orders.Tests/OrdersTest.cs', false)).toBe(true);
    expect(isIgnoredFile('pkg/handler_test.go', false)).toBe(true);
    expect(isIgnoredFile('app/test_views.py', false)).toBe(true);
    expect(isIgnoredFile('src/api.spec.ts', true)).toBe(false);
    expect(isIgnoredFile('src/requests/client.py', false)).toBe(false);
    expect(isIgnoredFile('public/vendor.min.js', true)).toBe(true);
    expect(isIgnoredFile('node_modules/x/index.js', true)).toBe(true);
  });
});

describe('rule 7 and config', () => {
  it('accepts admin and developer only', () => {
    expect(requireRole('Admin')).toBe('admin');
    expect(requireRole('developer')).toBe('developer');
    expect(() => requireRole('viewer')).toThrow(/Admin or Developer/);
  });
  it('loads defaults and reports every problem together', () => {
    expect(loadLinkerConfig({ LINKER_SERVICE_TOKEN: 't'.repeat(32) })).toMatchObject({
      grpcPort: 50055,
      store: 'memory',
      allowedLocalRoots: [],
    });
    expect(() => loadLinkerConfig({ LINKER_GRPC_PORT: 'x', STORE: 'mongo', LINKER_ALLOWED_DIRS: 'rel' })).toThrow(
      /LINKER_GRPC_PORT[\s\S]*MONGO_URL[\s\S]*LINKER_ALLOWED_DIRS/,
    );
    expect(() => loadLinkerConfig({ NODE_ENV: 'production' })).toThrow(/ALLOW_MEMORY_IN_PRODUCTION/);
  });
});

describe('SQL tables', () => {
  it('reads tables of statements, not of prose', async () => {
    const { sqlTables } = await import('../../src/domain/extract/common');
    expect(sqlTables('SELECT o.id FROM orders o JOIN customers c ON c.id = o.customer_id')).toEqual([
      'customers',
      'orders',
    ]);
    expect(sqlTables('\n  insert into "public"."audit_log" (id) values ($1)')).toEqual(['audit_log']);
    expect(sqlTables('UPDATE invoices SET paid = true WHERE id = $1')).toEqual(['invoices']);
    expect(sqlTables('CREATE TABLE IF NOT EXISTS addresses (customer_id BIGINT REFERENCES customers (id))')).toEqual([
      'addresses',
      'customers',
    ]);
    expect(sqlTables('Please select a file from the list')).toEqual([]);
    expect(sqlTables('Delete from your account')).toEqual([]);
  });
});

describe('migrations', () => {
  it('reads tables per statement with their lines; commented-out statements do not count', async () => {
    const { extractFixture } = await import('./helpers');
    const customers = (await extractFixture('shared-data')).find((s) => s.source === 'customers-java')!;
    const sql = customers.data.filter((d) => d.loc.file.endsWith('V1__init.sql')).map((d) => `${d.name}:${d.loc.line}`);
    expect(sql).toEqual(['customers:2', 'addresses:7', 'customers:7', 'customers:16']);
  });
});

describe('rule 2: deployment names', () => {
  it('maps compose services and Kubernetes Services to the repositories they run', async () => {
    const { topology } = await import('../../src/domain/link');
    const { emptyFacts } = await import('../../src/domain/model');
    const deploy = emptyFacts('deploy');
    const loc = { file: 'docker-compose.yml', line: 1 };
    deploy.services.push(
      { name: 'orders-svc', targets: ['../orders'], env: [], loc },
      { name: 'pay', targets: ['registry.acme.io:5000/acme/payments:2.1@sha256:abcdef'], env: [], loc },
      { name: 'unknown', targets: ['nginx:1.27'], env: [], loc },
    );
    const hosts = topology([deploy, emptyFacts('orders'), emptyFacts('payments')]).hosts;
    expect(hosts.get('orders-svc')).toBe('orders');
    expect(hosts.get('pay')).toBe('payments');
    expect(hosts.get('orders')).toBe('orders');
    expect(hosts.has('unknown')).toBe(false);
  });
});

describe('ingest slots', () => {
  it('runs at most N holders at once, the others in arrival order', async () => {
    const { Semaphore } = await import('@a2a-inbound/runtime');
    const sem = new Semaphore(2);
    const order: string[] = [];
    const a = await sem.acquire();
    const b = await sem.acquire();
    const c = sem.acquire().then((release) => {
      order.push('c');
      return release;
    });
    const d = sem.acquire().then((release) => {
      order.push('d');
      return release;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    a();
    a(); // releasing twice frees one slot only
    const releaseC = await c;
    expect(order).toEqual(['c']);
    b();
    (await d)();
    releaseC();
    expect(order).toEqual(['c', 'd']);
  });
});

describe('one row per (call site, target) (issue 20 item 5)', () => {
  it('drops a second equal row that another rule reached; a different target or call at the site stays', async () => {
    const { oneRowPerSite } = await import('../../src/domain/link');
    const at = (source: string, line: number) => ({ source, file: 'server.go', line });
    const row = (calls: string, target: string) => ({
      kind: 'api' as const,
      caller: at('order', 59),
      calls,
      servedBy: at(target, 24),
      served: calls,
      match: 'service and method',
      edge: calls,
    });
    const a = row('gRPC pb.AccountService/GetAccount', 'account');
    const links = [a, { ...a }, row('gRPC pb.AccountService/GetAccount', 'accounts-v2'), row('gRPC pb.X/Y', 'account')];
    expect(oneRowPerSite(links)).toEqual([links[0], links[2], links[3]]);
  });
});
