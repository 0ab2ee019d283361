import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMPTY_STATE, KAFKA_NOTE, buildReport, renderMarkdown } from '../../src/domain/report';
import { FIXTURES, extractFixture } from './helpers';

const APPS = [
  'http-polyglot',
  'routing-rules',
  'messaging',
  'kafka',
  'no-bindings',
  'shared-data',
  'independent',
  'extras',
] as const;

async function report(app: string) {
  return buildReport(await extractFixture(app), { application: app });
}

describe('fixture applications produce exactly the expected reports', () => {
  for (const app of APPS) {
    it(`${app}: Markdown and JSON`, async () => {
      const r = await report(app);
      expect(renderMarkdown(r)).toBe(readFileSync(join(FIXTURES, app, 'expected-report.md'), 'utf8'));
      expect(JSON.parse(JSON.stringify(r))).toEqual(
        JSON.parse(readFileSync(join(FIXTURES, app, 'expected-report.json'), 'utf8')),
      );
    });
  }
});

describe('statistics and rules, spelled out', () => {
  it('links calls across every listed framework and client (rule 1 normalises templates by position)', async () => {
    const r = await report('http-polyglot');
    expect(r.statistics).toEqual({
      apiLinks: 22,
      messageFlows: 0,
      queueBindings: 0,
      unresolvedCalls: 0,
      messagingGaps: 0,
      sharedData: 0,
    });
    const frameworks = new Set(r.table.map((row) => /\(([^)]+)\)$/.exec(row.servedBy)?.[1]));
    expect([...frameworks].sort()).toEqual(
      [
        'aspnetcore-minimal',
        'aspnetcore-mvc',
        'chi',
        'django',
        'express',
        'fastapi',
        'fastify',
        'flask',
        'gin',
        'go-kit',
        'gorilla/mux',
        'nestjs',
        'net/http',
        'spring',
      ].sort(),
    );
    // {id:int} in ASP.NET is matched by a call with a differently named parameter at the same position.
    expect(r.table).toContainEqual({
      caller: 'storefront src/server.ts:11',
      calls: 'GET orders-svc/api/orders/{}',
      servedBy: 'orders Controllers/OrdersController.cs:9 GET /api/Orders/{id:int} (aspnetcore-mvc)',
      match: 'host `orders-svc` + route template',
    });
  });

  it('resolves base URLs through .env, appsettings, @Value defaults, os.getenv defaults, settings objects, axios.create and RestClient builders', async () => {
    const r = await report('extras');
    expect(r.statistics).toEqual({
      apiLinks: 14,
      messageFlows: 1,
      queueBindings: 1,
      unresolvedCalls: 2,
      messagingGaps: 0,
      sharedData: 1,
    });
    expect(r.table.map((t) => t.match)).toEqual([
      'exact path',
      'host `catalog-spring` + route template',
      'host `legacy-py` + route template',
      'host `items-go` + route template',
      'host `items-go` + exact path',
      'host `legacy-py` + route template',
      'host `notes-nest` + route template',
      'host `gateway-ts` + route template',
      'host `gateway-ts` + route template',
      'host `gateway-ts` + route template',
      'host `catalog-spring` + route template',
      'host `billing-cs` + exact path',
      'host `pricing-py` + route template',
      'host `billing-cs` + route template',
      'Kafka topic `items` (its own binding)',
    ]);
    // Prefixes known only from the whole source: an Express router mounted from another file, a FastAPI
    // router included from another module, NestJS's global prefix, Spring's context path.
    const served = r.table.map((t) => t.servedBy);
    expect(served).toContain('gateway-ts src/routes/orders.ts:5 POST /api/orders/:orderId/refund (express)');
    expect(served).toContain('gateway-ts src/routes/orders.ts:10 POST /api/orders/:orderId/notes (express)');
    expect(served).toContain('notes-nest src/notes.controller.ts:5 GET /api/v1/notes/:id (nestjs)');
    expect(served).toContain(
      'catalog-spring src/main/java/com/acme/catalog/ProductsController.java:5 GET /catalog/products/{id} (spring)',
    );
    expect(served).toContain('pricing-py pricing/routers/quotes.py:9 GET /api/quotes/{sku} (fastapi)');
    expect(served).toContain('legacy-py shop/urls.py:6 ANY /shop/carts/<int:cart_id> (django)');
    // appsettings.Development.json resolves Items:BaseUrl; items-go serves PUT, not GET, on /v2/items/{id}.
    expect(r.unresolvedCalls[0]).toMatchObject({ calls: 'GET items-go/v2/items/{}', reason: 'no matching route' });
  });

  it('commented-out code and test folders are ignored by default, included on request', async () => {
    const without = await extractFixture('http-polyglot');
    const storefront = without.find((s) => s.source === 'storefront')!;
    expect(storefront.calls.some((c) => c.loc.file.startsWith('test/'))).toBe(false);
    expect(storefront.calls.some((c) => JSON.stringify(c.url).includes('/refunds'))).toBe(false);
    const withTests = await extractFixture('http-polyglot', { includeTests: true });
    expect(
      withTests.find((s) => s.source === 'storefront')!.calls.some((c) => c.loc.file === 'test/server.test.ts'),
    ).toBe(true);
    expect(
      withTests
        .find((s) => s.source === 'catalog')!
        .calls.some((c) => c.loc.file === 'src/test/java/ProductControllerTest.java'),
    ).toBe(true);
  });

  it('rule 2: ambiguous calls are not linked; compose and Kubernetes host names disambiguate', async () => {
    const r = await report('routing-rules');
    const ambiguous = r.unresolvedCalls.filter((u) => u.reason === 'ambiguous');
    expect(ambiguous).toHaveLength(1);
    expect(ambiguous[0]!.candidates.map((c) => `${c.source} ${c.file}:${c.line}`)).toEqual([
      'accounts-go main.go:11',
      'users-service src/app.ts:4',
    ]);
    expect(r.table.map((t) => t.match)).toContain('host `users` + exact path');
    expect(r.table.map((t) => t.match)).toContain('host `accounts.default.svc.cluster.local` + exact path');
    // Client configuration (a Feign client's service name) disambiguates too.
    expect(r.table.find((t) => t.caller === 'reports-java src/main/java/com/acme/reports/UsersClient.java:6')).toEqual({
      caller: 'reports-java src/main/java/com/acme/reports/UsersClient.java:6',
      calls: 'GET /api/health',
      servedBy: 'users-service src/app.ts:4 GET /api/health (express)',
      match: 'client `users` + exact path',
    });
  });

  it('rule 1: within a repository a literal segment beats a parameter', async () => {
    const r = await report('routing-rules');
    expect(r.table.find((t) => t.caller === 'web src/api.ts:7')?.servedBy).toBe(
      'users-service src/app.ts:6 GET /api/users/me (express)',
    );
  });

  it('rule 3: unresolved calls are listed with their reasons', async () => {
    const r = await report('routing-rules');
    expect(r.unresolvedCalls.map((u) => [u.caller.line, u.reason])).toEqual([
      [4, 'ambiguous'],
      [10, 'dynamic URL'],
      [11, 'external host'],
      [12, 'no matching route'],
      [13, 'no matching route'],
      [14, 'no matching route'],
    ]);
  });

  it('rule 4: flows through direct, topic, fanout and default-exchange bindings; gaps otherwise', async () => {
    const r = await report('messaging');
    expect(r.statistics).toMatchObject({ messageFlows: 10, queueBindings: 7, messagingGaps: 3 });
    expect(r.queueBindings.map((b) => b.exchangeType).sort()).toEqual([
      'default',
      'direct',
      'fanout',
      'fanout',
      'topic',
      'topic',
      'topic',
    ]);
    // One publish fans out to every queue its topic pattern reaches (order.* and order.# and order.cancelled).
    expect(
      r.table.filter((t) => t.caller === 'orders-js src/events.js:8').map((t) => t.servedBy.split(' ')[0]),
    ).toEqual(['billing-cs', 'dashboard-js', 'shipping-java']);
  });

  it('rule 4: without binding configuration in any repository, message flows are empty', async () => {
    const r = await report('no-bindings');
    expect(r.statistics.messageFlows).toBe(0);
    expect(r.messagingGaps.map((g) => g.reason)).toEqual([
      'no binding configuration in any attached repository',
      'no binding configuration in any attached repository',
    ]);
  });

  it('a Kafka topic is its own binding, and the report says so', async () => {
    const r = await report('kafka');
    expect(r.statistics).toMatchObject({ messageFlows: 6, queueBindings: 3, messagingGaps: 2 });
    expect(r.notes).toEqual([KAFKA_NOTE]);
  });

  it('shared data: tables, collections and Redis prefixes touched by more than one repository', async () => {
    const r = await report('shared-data');
    expect(r.sharedData.map((d) => [d.store, d.touchedBy.map((e) => e.source)])).toEqual([
      ['collection `events`', ['customers-java', 'reports-py', 'sessions-go']],
      ['redis `cart:`', ['orders-cs', 'sessions-go']],
      ['table `customers`', ['customers-java', 'reports-py']],
      ['table `orders`', ['orders-cs', 'reports-py']],
    ]);
  });

  it('rule 5: services that do not call each other get the empty state', async () => {
    const r = await report('independent');
    expect(r.linked).toBe(true);
    expect(r.emptyState).toBe(EMPTY_STATE);
    expect(renderMarkdown(r)).toContain(EMPTY_STATE);
  });

  it('rule 6: an application with one source is not linked', async () => {
    const facts = await extractFixture('independent');
    const r = buildReport(facts.slice(0, 1), { application: 'blog-only' });
    expect(r.linked).toBe(false);
    expect(r.notLinkedReason).toBe('the application has one source');
    expect(r.emptyState).toBe(EMPTY_STATE);
    expect(renderMarkdown(r)).toContain('> Not linked: the application has one source.');
  });

  it('rule 6: a version ingested before the link stage is not linked even with several sources', async () => {
    const r = buildReport(await extractFixture('http-polyglot'), {
      application: 'old',
      notLinkedReason: 'ingest completed before the link stage',
    });
    expect(r.linked).toBe(false);
    expect(r.statistics.apiLinks).toBe(0);
    expect(renderMarkdown(r)).toContain('> Not linked: ingest completed before the link stage.');
  });
});
