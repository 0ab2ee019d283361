import { describe, expect, it } from 'vitest';
import { regexPrefixes } from '../../src/domain/extract/config';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20: capabilities of the shared engine (framework knowledge as table rows, one evaluator), each
 * with a small application written here the way such code is written, and the exact report expected.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('file-system routes (table FS_ROUTES)', () => {
  it('Next.js pages/api handlers by switch (method) and method comparisons, app-router exports, pages; only with next in package.json', async () => {
    const r = await reportOf({
      web: {
        'package.json': JSON.stringify({ dependencies: { next: '15.0.0', react: '19.0.0' } }),
        'pages/api/cart.ts': lines(
          'const handler = async ({ method }, res) => {',
          '  switch (method) {',
          "    case 'GET': {",
          '      return res.json([]);',
          '    }',
          "    case 'POST': {",
          '      return res.json({});',
          '    }',
          '  }',
          '};',
          'export default handler;',
        ),
        'pages/api/products/[productId]/index.ts': lines(
          'export default async function handler(req, res) {',
          "  if (req.method === 'GET') return res.json({});",
          '}',
        ),
        'app/api/orders/[id]/route.ts': lines(
          'export async function GET(request) { return Response.json({}); }',
          'export const DELETE = async () => new Response(null);',
        ),
        'pages/index.tsx': lines('export default function Home() { return null; }'),
        'pages/_app.tsx': lines('export default function App() { return null; }'),
      },
      spa: {
        'package.json': JSON.stringify({ dependencies: { react: '19.0.0' } }),
        'src/pages/api/users.ts': lines('export default function Users() { return null; }'),
      },
      tools: {
        'client.py': lines(
          'import os, httpx',
          'BASE = os.getenv("SHOP_ENDPOINT", "localhost:8080")',
          'def cart():',
          '    return httpx.get(f"http://{BASE}/api/cart")',
          'def add():',
          '    return httpx.post(f"http://{BASE}/api/cart", json={})',
          'def product(pid):',
          '    return httpx.get(f"http://{BASE}/api/products/{pid}")',
          'def order(oid):',
          '    return httpx.delete(f"http://{BASE}/api/orders/{oid}")',
          'def home():',
          '    return httpx.get(f"http://{BASE}/")',
          'def users():',
          '    return httpx.get(f"http://{BASE}/api/users")',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'tools client.py:4 | GET localhost/api/cart | web pages/api/cart.ts:3 GET /api/cart (Next.js API route)',
      'tools client.py:6 | POST localhost/api/cart | web pages/api/cart.ts:6 POST /api/cart (Next.js API route)',
      'tools client.py:8 | GET localhost/api/products/{} | web pages/api/products/[productId]/index.ts:2 GET /api/products/[productId] (Next.js API route)',
      'tools client.py:10 | DELETE localhost/api/orders/{} | web app/api/orders/[id]/route.ts:2 DELETE /api/orders/[id] (Next.js route handler)',
      'tools client.py:12 | GET localhost/ | web pages/index.tsx:1 GET / (Next.js page)',
    ]);
    // The SPA's src/pages/api/users.ts is a component (no next dependency): nothing serves /api/users.
    expect(unresolved(r).map((u) => u.split(' — ')[0])).toEqual(['tools client.py:14 GET localhost/api/users']);
  });

  it('SvelteKit +server.ts exports and Nuxt server/api files with a method suffix', async () => {
    const r = await reportOf({
      kit: {
        'package.json': JSON.stringify({ devDependencies: { '@sveltejs/kit': '2.0.0' } }),
        'src/routes/api/items/[id]/+server.ts': lines(
          'export async function PUT({ params }) { return new Response(); }',
        ),
      },
      nuxt: {
        'package.json': JSON.stringify({ dependencies: { nuxt: '3.0.0' } }),
        'server/api/stock/[sku].get.ts': lines('export default defineEventHandler(() => ({}));'),
      },
      caller: {
        'main.go': lines(
          'package main',
          'import ("net/http"; "os")',
          'func main() {',
          '\treq, _ := http.NewRequest("PUT", os.Getenv("KIT_URL")+"/api/items/7", nil)',
          '\thttp.DefaultClient.Do(req)',
          '\thttp.Get(os.Getenv("NUXT_URL") + "/api/stock/abc")',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'caller main.go:4 | PUT /api/items/7 | kit src/routes/api/items/[id]/+server.ts:1 PUT /api/items/[id] (SvelteKit endpoint)',
      'caller main.go:6 | GET /api/stock/abc | nuxt server/api/stock/[sku].get.ts:1 GET /api/stock/[sku] (Nuxt server route)',
    ]);
  });
});

describe('Envoy front proxy (static_resources routes as gateway routes)', () => {
  it('prefix routes with prefix_rewrite, a catch-all last, cluster addresses from ${X} defaulting to the cluster name', async () => {
    const r = await reportOf({
      proxy: {
        'envoy.yaml': lines(
          'static_resources:',
          '  listeners:',
          '    - filter_chains:',
          '        - filters:',
          '            - typed_config:',
          '                route_config:',
          '                  virtual_hosts:',
          '                    - name: front',
          '                      routes:',
          '                        - match: { prefix: "/images/" }',
          '                          route: { cluster: images, prefix_rewrite: "/" }',
          '                        - match: { prefix: "/" }',
          '                          route: { cluster: web }',
          '  clusters:',
          '    - name: web',
          '      load_assignment:',
          '        endpoints:',
          '          - lb_endpoints:',
          '              - endpoint:',
          '                  address:',
          '                    socket_address: { address: "${WEB_HOST}", port_value: 8080 }',
          '    - name: images',
          '      load_assignment:',
          '        endpoints:',
          '          - lb_endpoints:',
          '              - endpoint:',
          '                  address:',
          '                    socket_address: { address: img, port_value: 80 }',
        ),
      },
      web: { 'server.js': lines('const app = require("express")();', 'app.get("/api/cart", h);') },
      img: { 'app.py': lines('@app.route("/products/<name>")', 'def pic(name):', '    return ""') },
      loadgen: {
        'script.js': lines(
          "import http from 'k6/http';",
          "const BASE = __ENV.TARGET_URL || 'http://proxy:8080';",
          'export default function () {',
          '  http.get(`${BASE}/api/cart`);',
          '  http.get(`${BASE}/images/products/telescope.jpg`);',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'loadgen script.js:4 | GET proxy/api/cart | web server.js:2 GET /api/cart (express)',
      'loadgen script.js:5 | GET proxy/images/products/telescope.jpg | img app.py:1 GET /products/<name> (flask)',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

/** An Envoy v2 front proxy: `/c/` rewritten to `rewrite` on the cluster `catalog` at `catalog-api` (`hosts:`). */
const envoyV2 = (rewrite: string): string =>
  lines(
    'static_resources:',
    '  listeners:',
    '  - filter_chains:',
    '    - filters:',
    '      - config:',
    '          route_config:',
    '            virtual_hosts:',
    '            - name: front',
    '              routes:',
    '              - match: { prefix: "/c/" }',
    `                route: { cluster: catalog, prefix_rewrite: "${rewrite}" }`,
    '  clusters:',
    '  - name: catalog',
    '    type: strict_dns',
    '    hosts:',
    '    - socket_address:',
    '        address: catalog-api',
    '        port_value: 80',
  );

describe('Envoy v2 clusters (`hosts:`) with prefix_rewrite', () => {
  it('a cluster given by `hosts[].socket_address` forwards to that address, the matched prefix rewritten', async () => {
    const r = await reportOf({
      proxy: {
        'envoy.yaml': envoyV2('/catalog/'),
      },
      'catalog-api': { 'server.js': lines('const app = require("express")();', 'app.get("/catalog/items", h);') },
      web: { 'client.js': lines('fetch("http://proxy/c/items");') },
    });
    expect(rows(r)).toEqual([
      'web client.js:1 | GET proxy/c/items | catalog-api server.js:2 GET /catalog/items (express)',
    ]);
  });
});

/** An Envoy front proxy whose catch-all `/` goes to `aggregator` at `address`. */
const envoyCatchAll = (address: string): string =>
  lines(
    'static_resources:',
    '  listeners:',
    '  - filter_chains:',
    '    - filters:',
    '      - config:',
    '          route_config:',
    '            virtual_hosts:',
    '            - name: front',
    '              routes:',
    '              - match: { prefix: "/" }',
    '                route: { cluster: aggregator }',
    '  clusters:',
    '  - name: aggregator',
    '    hosts:',
    '    - socket_address:',
    `        address: ${address}`,
    '        port_value: 80',
  );

describe('proxy configuration tied to the compose service that mounts it (volumes)', () => {
  it('two Envoy gateways of one image, each mounting its own folder (short and long syntax): each host goes through its own routes', async () => {
    const r = await reportOf({
      compose: {
        'docker-compose.yml': lines(
          'services:',
          '  webgw:',
          '    image: envoyproxy/envoy:v1.11.1',
          '  mobilegw:',
          '    image: envoyproxy/envoy:v1.11.1',
          '  web-agg:',
          '    build: ../web-agg',
          '  mobile-agg:',
          '    build: ../mobile-agg',
        ),
        'docker-compose.override.yml': lines(
          'services:',
          '  mobilegw:',
          '    volumes:',
          '      - ../envoy/config/mobile:/etc/envoy:ro',
          '  webgw:',
          '    volumes:',
          '      - type: bind',
          '        source: ../envoy/config/web',
          '        target: /etc/envoy',
          '      - logs:/var/log',
        ),
      },
      envoy: {
        'config/mobile/envoy.yaml': envoyCatchAll('mobile-agg'),
        'config/web/envoy.yaml': envoyCatchAll('web-agg'),
      },
      'web-agg': { 'server.js': lines('const app = require("express")();', 'app.get("/api/cart", h);') },
      'mobile-agg': { 'server.js': lines('const app = require("express")();', 'app.get("/api/cart", h);') },
      shop: { 'client.js': lines('fetch("http://webgw/api/cart");', 'fetch("http://mobilegw/api/cart");') },
    });
    expect(rows(r)).toEqual([
      'shop client.js:1 | GET webgw/api/cart | web-agg server.js:2 GET /api/cart (express)',
      'shop client.js:2 | GET mobilegw/api/cart | mobile-agg server.js:2 GET /api/cart (express)',
    ]);
  });

  it("an nginx gateway mounting one file of its own folder: its host reaches only that file's routes", async () => {
    const r = await reportOf({
      gateway: {
        'docker-compose.yml': lines(
          'services:',
          '  front:',
          '    image: nginx:1.27',
          '    volumes:',
          '      - ./conf/front.conf:/etc/nginx/conf.d/default.conf',
          '  admin:',
          '    image: nginx:1.27',
          '    volumes:',
          '      - ./conf/admin.conf:/etc/nginx/conf.d/default.conf',
        ),
        'conf/admin.conf': lines('server {', '  location /api/ { proxy_pass http://orders:8080/admin/; }', '}'),
        'conf/front.conf': lines('server {', '  location /api/ { proxy_pass http://orders:8080/; }', '}'),
      },
      orders: {
        'server.js': lines('const app = require("express")();', 'app.get("/items", h);', 'app.get("/admin/items", h);'),
      },
      shop: { 'client.js': lines('fetch("http://front/api/items");', 'fetch("http://admin/api/items");') },
    });
    expect(rows(r)).toEqual([
      'shop client.js:1 | GET front/api/items | orders server.js:2 GET /items (express)',
      'shop client.js:2 | GET admin/api/items | orders server.js:3 GET /admin/items (express)',
    ]);
  });
});

describe('nginx regex locations and rewrites', () => {
  it('~ ^/api/(orders|users)/ is a prefix per word; a rewrite in the location strips its prefix and puts the target in front; ~* and exact $ forms; a regex without a leading path is not followed', async () => {
    const r = await reportOf({
      web: {
        'nginx/default.conf': lines(
          'server {',
          '    listen 80;',
          '    location ~ ^/api/(orders|users)/ {',
          '        rewrite ^/api/(.*)$ /$1 break;',
          '        proxy_pass http://backend;',
          '    }',
          '    location ~* ^/billing/v[0-9]+/ {',
          '        rewrite ^/billing/(.*) /internal/$1 break;',
          '        proxy_pass http://billing:9000;',
          '    }',
          '    location ~ ^/health$ { proxy_pass http://users:8080; }',
          '    location ~ \\.(png|jpg)$ { proxy_pass http://static; }',
          '}',
          'upstream backend { server gateway:8080; }',
        ),
        'src/app.js': lines(
          "fetch('/api/orders/42');",
          "fetch('/api/users/me', { method: 'POST' });",
          "fetch('/billing/v2/invoices');",
          "fetch('/health');",
        ),
      },
      gateway: {
        'server.js': lines(
          "const app = require('express')();",
          "app.get('/orders/:id', h);",
          "app.post('/users/me', h);",
        ),
      },
      billing: {
        'main.go': lines('package main', 'func main() {', '\thttp.HandleFunc("GET /internal/v2/invoices", h)', '}'),
      },
      users: { 'app.py': lines('@app.get("/health")', 'def health():', '    return ""') },
    });
    expect(rows(r)).toEqual([
      'web src/app.js:1 | GET /api/orders/42 | gateway server.js:2 GET /orders/:id (express)',
      'web src/app.js:2 | POST /api/users/me | gateway server.js:3 POST /users/me (express)',
      'web src/app.js:3 | GET /billing/v2/invoices | billing main.go:3 GET /internal/v2/invoices (net/http)',
      'web src/app.js:4 | GET /health | users app.py:1 GET /health (fastapi)',
    ]);
    expect(regexPrefixes('\\.php$')).toEqual([]);
    expect(regexPrefixes('^/api/ord.*')).toEqual([{ path: '/api', exact: false }]);
    expect(regexPrefixes('^\\/v1\\/(?:a|b)$')).toEqual([
      { path: '/v1/a', exact: true },
      { path: '/v1/b', exact: true },
    ]);
  });
});

describe('ASP.NET UsePathBase with the base from the deployment', () => {
  it('a service mounted with UsePathBase(PATH_BASE) serves its routes under the compose value too, behind an Envoy prefix_rewrite', async () => {
    const r = await reportOf({
      compose: {
        'docker-compose.yml': lines(
          'services:',
          '  catalog-api:',
          '    build: ../catalog-api',
          '    environment:',
          '      - PATH_BASE=/catalog-api',
          '  proxy:',
          '    image: envoyproxy/envoy',
        ),
      },
      proxy: {
        'envoy.yaml': envoyV2('/catalog-api/'),
      },
      'catalog-api': {
        'Startup.cs': lines(
          'public class Startup',
          '{',
          '    public void Configure(IApplicationBuilder app)',
          '    {',
          '        var pathBase = Configuration["PATH_BASE"];',
          '        if (!string.IsNullOrEmpty(pathBase)) app.UsePathBase(pathBase);',
          '    }',
          '}',
        ),
        'CatalogController.cs': lines(
          '[Route("api/v1/[controller]")]',
          '[ApiController]',
          'public class CatalogController : ControllerBase',
          '{',
          '    [HttpGet("items")] public IActionResult Items() => Ok();',
          '}',
        ),
      },
      web: {
        'client.js': lines(
          'fetch("http://proxy/c/api/v1/catalog/items");',
          'fetch("http://catalog-api/api/v1/catalog/items");',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web client.js:1 | GET proxy/c/api/v1/catalog/items | catalog-api CatalogController.cs:5 GET /catalog-api/api/v1/Catalog/items (aspnetcore-mvc)',
      'web client.js:2 | GET catalog-api/api/v1/catalog/items | catalog-api CatalogController.cs:5 GET /api/v1/Catalog/items (aspnetcore-mvc)',
    ]);
  });
});

describe('a message-bus library shared by several services (summaries instantiated at the call sites)', () => {
  const library = {
    'EventBus/RabbitBus.cs': lines(
      'public sealed class RabbitBus(IOptions<BusOptions> options, IOptions<SubscriptionInfo> subs) : IEventBus',
      '{',
      '    private const string ExchangeName = "shop_bus";',
      '    private readonly string _queueName = options.Value.ClientName;',
      '    private readonly SubscriptionInfo _info = subs.Value;',
      '    public async Task PublishAsync(IntegrationEvent @event)',
      '    {',
      '        var routingKey = @event.GetType().Name;',
      '        await _pipeline.Execute(async () =>',
      '        {',
      '            await channel.BasicPublishAsync(exchange: ExchangeName, routingKey: routingKey, body: body);',
      '        });',
      '    }',
      '    public async Task StartAsync()',
      '    {',
      '        await _ch.ExchangeDeclareAsync(exchange: ExchangeName, type: "direct");',
      '        await _ch.QueueDeclareAsync(queue: _queueName, durable: true);',
      '        await _ch.BasicConsumeAsync(queue: _queueName, autoAck: false, consumer: consumer);',
      '        foreach (var (eventName, _) in _info.EventTypes)',
      '        {',
      '            await _ch.QueueBindAsync(queue: _queueName, exchange: ExchangeName, routingKey: eventName);',
      '        }',
      '    }',
      '}',
    ),
    'EventBus/Extensions.cs': lines(
      'public static class BusExtensions',
      '{',
      '    private const string SectionName = "Bus";',
      '    public static IBuilder AddBus(this IHostApplicationBuilder builder)',
      '    {',
      '        builder.Services.Configure<BusOptions>(builder.Configuration.GetSection(SectionName));',
      '        return new Builder(builder.Services);',
      '    }',
      '    public static IBuilder AddSubscription<T, TH>(this IBuilder b) where T : IntegrationEvent',
      '    {',
      '        b.Services.Configure<SubscriptionInfo>(o =>',
      '        {',
      '            o.EventTypes[typeof(T).Name] = typeof(T);',
      '        });',
      '        return b;',
      '    }',
      '}',
    ),
  };
  it('publish: exchange from the library, routing key = the message type name; subscribe: the queue from each service configuration; one row per call site and consumer', async () => {
    const r = await reportOf({
      bus: library,
      orders: {
        'Handlers/Paid.cs': lines(
          'public class PaidHandler(IEventBus eventBus)',
          '{',
          '    public async Task Handle(bool ok)',
          '    {',
          '        IntegrationEvent evt;',
          '        if (ok) { evt = new PaymentSucceeded(1); } else { evt = new PaymentFailed(1); }',
          '        await eventBus.PublishAsync(evt);',
          '        var other = ok ? (IntegrationEvent)new StockRejected(1) : new StockConfirmed(1);',
          '        await eventBus.PublishAsync(other);',
          '    }',
          '}',
        ),
      },
      billing: {
        'Program.cs': lines(
          'builder.AddBus()',
          '    .AddSubscription<PaymentSucceeded, SucceededHandler>()',
          '    .AddSubscription<StockConfirmed, ConfirmedHandler>();',
        ),
        'appsettings.json': JSON.stringify({ Bus: { ClientName: 'Billing' } }),
      },
      audit: {
        'Program.cs': lines('builder.AddBus().AddSubscription<PaymentFailed, FailedHandler>();'),
        'appsettings.json': JSON.stringify({ Bus: { ClientName: 'Audit' } }),
      },
    });
    expect(rows(r)).toEqual([
      'orders Handlers/Paid.cs:7 | publish `shop_bus` / `PaymentFailed` | audit Program.cs:1 consume queue `Audit`',
      'orders Handlers/Paid.cs:7 | publish `shop_bus` / `PaymentSucceeded` | billing Program.cs:2 consume queue `Billing`',
      'orders Handlers/Paid.cs:9 | publish `shop_bus` / `StockConfirmed` | billing Program.cs:3 consume queue `Billing`',
    ]);
    // StockRejected reaches no queue (nobody subscribes); the library itself reports nothing.
    expect(gaps(r)).toEqual([
      'publisher orders Handlers/Paid.cs:9 no binding routes `shop_bus` / `StockRejected` to a queue',
    ]);
  });

  it('without a library summary, MassTransit convention: one exchange per message type', async () => {
    const r = await reportOf({
      orders: { 'Api.cs': lines('await bus.Publish(new OrderCreated(id));') },
      mail: { 'Program.cs': lines('builder.AddSubscription<OrderCreated, OrderCreatedHandler>();') },
    });
    expect(rows(r)).toEqual([
      'orders Api.cs:1 | publish `OrderCreated` | mail Program.cs:1 consume queue `OrderCreatedHandler`',
    ]);
  });
});

describe('C#: a request wrapper of another file and URI builders (partial values keep the known path)', () => {
  it('RequestProvider.GetAsync(string uri) → httpClient.GetAsync(uri) is the call at each caller; CombineUri(unknown base, known path) links by the unique path', async () => {
    const r = await reportOf({
      mobile: {
        'Services/RequestProvider.cs': lines(
          'public class RequestProvider : IRequestProvider',
          '{',
          '    public async Task<T> GetAsync<T>(string uri, string token = "")',
          '    {',
          '        HttpClient httpClient = await GetOrCreateHttpClientAsync(token);',
          '        var response = await httpClient.GetAsync(uri);',
          '        return default;',
          '    }',
          '    public async Task<T> PostAsync<T>(string uri, T data)',
          '    {',
          '        var response = await _httpClient.PostAsync(uri, content);',
          '        return default;',
          '    }',
          '}',
        ),
        'Services/CatalogService.cs': lines(
          'public class CatalogService',
          '{',
          '    private const string ApiUrlBase = "api/catalog";',
          '    public async Task<X> Items()',
          '    {',
          '        var uri = UriHelper.CombineUri(_settings.GatewayBase, $"{ApiUrlBase}/items?PageSize=100");',
          '        return await _requestProvider.GetAsync<Root>(uri).ConfigureAwait(false);',
          '    }',
          '    public Task Order(Order o)',
          '    {',
          '        var uri = $"{UriHelper.CombineUri(_settings.OrdersBase, "api/orders")}?v=1";',
          '        return _requestProvider.PostAsync(uri, o);',
          '    }',
          '}',
        ),
      },
      catalog: { 'Api.cs': lines('app.MapGet("/api/catalog/items", GetItems);') },
      ordering: { 'Api.cs': lines('app.MapPost("/api/orders", Create);') },
    });
    expect(rows(r)).toEqual([
      'mobile Services/CatalogService.cs:7 | GET /api/catalog/items | catalog Api.cs:1 GET /api/catalog/items (aspnetcore-minimal)',
      'mobile Services/CatalogService.cs:12 | POST /api/orders | ordering Api.cs:1 POST /api/orders (aspnetcore-minimal)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Kotlin, Rust, Ruby and PHP front-ends (one syntax table each, shared route and client tables)', () => {
  it('actix attributes and axum routes, reqwest/awc with format! and env::var defaults; Sinatra and HTTParty; Slim and Laravel routes, Guzzle; Ktor routes', async () => {
    const r = await reportOf({
      shipping: {
        'src/main.rs': lines(
          '#[post("/get-quote")]',
          'pub async fn get_quote() -> impl Responder { HttpResponse::Ok() }',
          'async fn request_quote() {',
          '    let client = awc::Client::new();',
          '    let addr: String = format!(',
          '        "{}{}",',
          '        env::var("QUOTE_ADDR").unwrap_or_else(|_| "http://quote:8090".to_string()),',
          '        "/getquote"',
          '    );',
          '    let resp = client.post(addr).send_json(&body).await;',
          '}',
          'fn app() -> Router { Router::new().route("/health", get(health)) }',
        ),
      },
      quote: {
        'app/routes.php': lines(
          '<?php',
          'return function (App $app) {',
          "    $app->post('/getquote', function (Request $request, Response $response) { return $response; });",
          '};',
          "Route::get('/users/{id}', [UserController::class, 'show']);",
        ),
        'app/Client.php': lines(
          '<?php',
          "$base = getenv('EMAIL_ADDR');",
          "$client->request('POST', $base . '/send_order_confirmation');",
        ),
      },
      email: {
        'email_server.rb': lines(
          'post "/send_order_confirmation" do',
          '  "ok"',
          'end',
          'def notify',
          '  HTTParty.get(ENV.fetch("SHIPPING_ADDR", "http://shipping:8080") + "/health")',
          '  Net::HTTP.get(URI("http://quote/users/#{id}"))',
          'end',
        ),
      },
      catalog: {
        'src/main/kotlin/App.kt': lines(
          'fun Application.module() {',
          '    routing {',
          '        get("/items/{id}") { call.respond("x") }',
          '    }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'email email_server.rb:5 | GET shipping/health | shipping src/main.rs:12 GET /health (axum)',
      'email email_server.rb:6 | GET quote/users/{} | quote app/routes.php:5 GET /users/{id} (php-router)',
      'quote app/Client.php:3 | POST /send_order_confirmation | email email_server.rb:1 POST /send_order_confirmation (sinatra)',
      'shipping src/main.rs:10 | POST quote/getquote | quote app/routes.php:3 POST /getquote (php-router)',
    ]);
  });

  it('Kotlin: a Kafka consumer subscribing in KafkaConsumer(…).apply { subscribe(listOf(topic)) }, the topic System.getenv("T") ?: "orders"', async () => {
    const r = await reportOf({
      checkout: {
        'kafka/producer.go': lines(
          'package kafka',
          'import "os"',
          'var Topic = getTopic()',
          'func getTopic() string {',
          '\tif topic := os.Getenv("KAFKA_TOPIC"); topic != "" {',
          '\t\treturn topic',
          '\t}',
          '\treturn "orders"',
          '}',
        ),
        'main.go': lines(
          'package main',
          'import ("github.com/IBM/sarama"; "example.com/checkout/kafka")',
          'func send(p sarama.AsyncProducer) {',
          '\tmsg := sarama.ProducerMessage{',
          '\t\tTopic: kafka.Topic,',
          '\t}',
          '\tp.Input() <- &msg',
          '}',
        ),
      },
      fraud: {
        'src/main/kotlin/main.kt': lines(
          'val topic: String = System.getenv("KAFKA_TOPIC") ?: "orders"',
          'fun main() {',
          '    val consumer = KafkaConsumer<String, ByteArray>(props).apply {',
          '        subscribe(listOf(topic))',
          '    }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'checkout main.go:5 | produce Kafka topic `orders` | fraud src/main/kotlin/main.kt:4 consume Kafka topic `orders`',
    ]);
  });
});

describe('Ruby: Rails and Grape routes, Faraday and Net::HTTP clients; Rust rocket', () => {
  it('Rails resources (only:, nested, member) and namespaces of symbols, Grape resources and route_param; a Faraday connection built with its base URL; rocket attributes', async () => {
    const r = await reportOf({
      orders: {
        'config/routes.rb': lines(
          'Rails.application.routes.draw do',
          '  get "/orders/:id", to: "orders#show"',
          '  namespace :api do',
          '    post "refunds", to: "refunds#create"',
          '    resources :invoices, only: [:index, :show] do',
          '      resources :lines, only: :create',
          '      member do',
          '        post :void',
          '      end',
          '    end',
          '    resource :profile, except: [:destroy]',
          '  end',
          'end',
        ),
      },
      carts: {
        'app/api/carts.rb': lines(
          'class CartsAPI < Grape::API',
          '  resource :carts do',
          '    route_param :id do',
          '      get do',
          '        {}',
          '      end',
          "      delete 'items/:item' do",
          '      end',
          '    end',
          '  end',
          'end',
        ),
      },
      stock: {
        'src/main.rs': lines(
          '#[macro_use] extern crate rocket;',
          '#[get("/stock/<sku>")]',
          'fn stock(sku: &str) -> String { sku.to_string() }',
          '#[launch]',
          'fn rocket() -> _ { rocket::build().mount("/", routes![stock]) }',
        ),
      },
      web: {
        'app/clients.rb': lines(
          'class Clients',
          '  def run(id, sku)',
          '    conn = Faraday.new(url: ENV.fetch("ORDERS_URL", "http://orders"))',
          '    conn.get("/orders/#{id}")',
          '    conn.post("/api/invoices/#{id}/lines")',
          '    conn.post("/api/invoices/#{id}/void")',
          '    conn.put("/api/profile")',
          '    conn.delete("/api/profile")',
          '    Faraday.post("http://orders/api/refunds")',
          '    Net::HTTP.get(URI("http://carts/carts/#{id}"))',
          '    Net::HTTP.get(URI("http://carts/carts/#{id}/items/#{sku}"))',
          '    HTTParty.get("http://stock/stock/#{sku}")',
          '  end',
          'end',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app/clients.rb:4 | GET orders/orders/{} | orders config/routes.rb:2 GET /orders/:id (rails)',
      'web app/clients.rb:5 | POST orders/api/invoices/{}/lines | orders config/routes.rb:6 POST /api/invoices/:invoice_id/lines (rails)',
      'web app/clients.rb:6 | POST orders/api/invoices/{}/void | orders config/routes.rb:8 POST /api/invoices/:id/void (rails)',
      'web app/clients.rb:7 | PUT orders/api/profile | orders config/routes.rb:11 PUT /api/profile (rails)',
      'web app/clients.rb:9 | POST orders/api/refunds | orders config/routes.rb:4 POST /api/refunds (rails)',
      'web app/clients.rb:10 | GET carts/carts/{} | carts app/api/carts.rb:4 GET /carts/:id (grape)',
      'web app/clients.rb:12 | GET stock/stock/{} | stock src/main.rs:2 GET /stock/<sku> (rocket)',
    ]);
    expect(unresolved(r)).toEqual([
      'web app/clients.rb:8 DELETE orders/api/profile — no matching route: `orders` serves no DELETE /api/profile',
      'web app/clients.rb:11 GET carts/carts/{}/items/{} — no matching route: `carts` serves no GET /carts/{}/items/{}',
    ]);
  });
});

describe('front doors and PHP idioms met on unseen applications', () => {
  it('a locust load test calling relative paths links through the one gateway that forwards them; Symfony @Route docblocks and #[Route] attributes; curl_init of a sprintf URL', async () => {
    const r = await reportOf({
      loadgen: {
        'locustfile.py': lines(
          'from locust import HttpUser, task',
          'class Shopper(HttpUser):',
          '    @task',
          '    def browse(self):',
          "        self.client.put('/api/ratings/api/rate/{}/{}'.format(sku, 5))",
          "        self.client.get('/api/catalogue/product/{}'.format(sku))",
        ),
      },
      web: {
        'default.conf': lines(
          'server {',
          '  location /api/catalogue/ { proxy_pass http://catalogue:8080/; }',
          '  location /api/ratings/ { proxy_pass http://ratings:80/; }',
          '}',
        ),
      },
      catalogue: { 'server.js': lines('const app = require("express")();', 'app.get("/product/:sku", h);') },
      ratings: {
        'src/Controller/RatingsApiController.php': lines(
          '<?php',
          'namespace App\\Controller;',
          '/**',
          ' * @Route("/api")',
          ' */',
          'class RatingsApiController extends AbstractController',
          '{',
          '    /**',
          '     * @Route(path="/rate/{sku}/{score}", methods={"PUT"})',
          '     */',
          '    public function put(string $sku, int $score) {}',
          "    #[Route('/fetch/{sku}', methods: ['GET'])]",
          '    public function get(string $sku) {}',
          '}',
        ),
        'src/Service/CatalogueService.php': lines(
          '<?php',
          'class CatalogueService {',
          '    public function product(string $sku) {',
          "        $url = sprintf('%s/product/%s', $this->catalogueUrl, $sku);",
          '        $curl = curl_init($url);',
          '    }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'loadgen locustfile.py:5 | PUT /api/ratings/api/rate/{}/{} | ratings src/Controller/RatingsApiController.php:11 PUT /api/rate/{sku}/{score} (php)',
      'loadgen locustfile.py:6 | GET /api/catalogue/product/{} | catalogue server.js:2 GET /product/:sku (express)',
      'ratings src/Service/CatalogueService.php:5 | GET /product/{} | catalogue server.js:2 GET /product/:sku (express)',
    ]);
  });
});

describe('Java: getters summarised across files, a URI builder keeps its literal path', () => {
  it('config.getPaymentUri() returning new ServiceUri(new Hostname("payment"), domain, "/paymentAuth").toUri() links by the unique path', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/app/config/OrdersConfig.java': lines(
          'public class OrdersConfig {',
          '    private String domain = "";',
          '    public URI getPaymentUri() {',
          '        return new ServiceUri(new Hostname("payment"), new Domain(domain), "/paymentAuth").toUri();',
          '    }',
          '}',
        ),
        'src/main/java/app/OrdersController.java': lines(
          '@RestController',
          'public class OrdersController {',
          '    @Autowired private OrdersConfig config;',
          '    @PostMapping("/orders")',
          '    public void create() {',
          '        restTemplate.postForObject(config.getPaymentUri(), body, Authorisation.class);',
          '    }',
          '}',
        ),
      },
      payment: {
        'transport.go': lines(
          'package payment',
          'func h(r *mux.Router) {',
          '\tr.Methods("POST").Path("/paymentAuth").Handler(x)',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/main/java/app/OrdersController.java:6 | POST /paymentauth | payment transport.go:3 POST /paymentAuth (gorilla/mux)',
    ]);
  });
});

describe('JS: values injected through a constructor in another file', () => {
  it('new Proxy({ baseUrl: process.env.X || "http://localhost:8080" }) in server.ts gives this.url = `${options.baseUrl}/restaurants` in the class its host', async () => {
    const r = await reportOf({
      gateway: {
        'src/server.ts': lines(
          'import RestaurantProxy from "./RestaurantProxy";',
          'const restaurants = new RestaurantProxy({ baseUrl: process.env.RESTAURANT_URL || "http://localhost:8080" });',
        ),
        'src/RestaurantProxy.js': lines(
          'const fetch = require("node-fetch");',
          'class RestaurantProxy {',
          '  constructor(options) {',
          '    this.url = `${options.baseUrl}/restaurants`;',
          '  }',
          '  find(id) {',
          '    return fetch(`${this.url}/${id}`);',
          '  }',
          '}',
          'module.exports = RestaurantProxy;',
        ),
        '.env': lines('RESTAURANT_URL=http://restaurants:8080'),
      },
      restaurants: { 'server.js': lines('const app = require("express")();', 'app.get("/restaurants/:id", h);') },
      kitchen: { 'server.js': lines('const app = require("express")();', 'app.get("/restaurants/:id", h);') },
    });
    // Two services serve /restaurants/:id: only the injected host tells them apart.
    expect(rows(r)).toEqual([
      'gateway src/RestaurantProxy.js:7 | GET restaurants/restaurants/{} | restaurants server.js:2 GET /restaurants/:id (express)',
    ]);
  });
});

describe('C#: YARP direct forwarding', () => {
  it('app.MapForwarder(pattern, destination prefix, target path) is a call of the destination', async () => {
    const r = await reportOf({
      web: {
        'Program.cs': lines(
          'app.MapForwarder("/product-images/{id}", "http://catalog-api", "/api/catalog/items/{id}/pic");',
        ),
      },
      'catalog-api': { 'Apis/CatalogApi.cs': lines('app.MapGet("/api/catalog/items/{id:int}/pic", GetPicture);') },
    });
    expect(rows(r)).toEqual([
      'web Program.cs:1 | ANY catalog-api/api/catalog/items/{}/pic | catalog-api Apis/CatalogApi.cs:1 GET /api/catalog/items/{id:int}/pic (aspnetcore-minimal)',
    ]);
  });
});

describe('Kotlin: Spring controllers', () => {
  it('a class @RequestMapping prefix with @GetMapping("/x") and @PostMapping(value = ["/y"]) methods', async () => {
    const r = await reportOf({
      items: {
        'src/main/kotlin/ItemsController.kt': lines(
          '@RestController',
          '@RequestMapping("/api")',
          'class ItemsController(private val repo: Repo) {',
          '    @GetMapping("/items/{id}")',
          '    fun get(@PathVariable id: String): Item = repo.find(id)',
          '    @PostMapping(value = ["/items"])',
          '    fun create() {}',
          '}',
        ),
      },
      web: {
        'app.js': lines(
          'fetch(`${process.env.ITEMS_URL}/api/items/${id}`);',
          'axios.post(process.env.ITEMS_URL + "/api/items", body);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app.js:1 | GET /api/items/{} | items src/main/kotlin/ItemsController.kt:4 GET /api/items/{id} (spring)',
      'web app.js:2 | POST /api/items | items src/main/kotlin/ItemsController.kt:6 POST /api/items (spring)',
    ]);
  });
});
