import { describe, expect, it } from 'vitest';
import { extractSource } from '../../src/domain/extract/index';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20 item 2: deployment configuration as one model. What a Kubernetes manifest or a compose project
 * gives each service it runs (env, ConfigMaps and Secrets by reference or whole, `env_file`, `.env`
 * substitution, override files) feeds the same configuration lookups the code's evaluators use.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const deployment = (name: string, container: string[]): string[] => [
  'apiVersion: apps/v1',
  'kind: Deployment',
  'metadata:',
  `  name: ${name}`,
  'spec:',
  '  template:',
  '    metadata:',
  '      labels:',
  `        app: ${name}`,
  '    spec:',
  '      containers:',
  `        - name: ${name}`,
  `          image: registry.example.com/bank/${name}:1.0`,
  ...container.map((l) => `          ${l}`),
  '---',
  'apiVersion: v1',
  'kind: Service',
  'metadata:',
  `  name: ${name}`,
  'spec:',
  '  selector:',
  `    app: ${name}`,
];

const ledger = {
  'ledger/app.py': lines(
    'from flask import Flask',
    'app = Flask(__name__)',
    '',
    "@app.route('/transactions', methods=['POST'])",
    'def add():',
    "    return ''",
    '',
    "@app.route('/balances/<account>', methods=['GET'])",
    'def balance(account):',
    "    return ''",
  ),
};

describe('Kubernetes: ConfigMaps and Secrets referenced by workloads', () => {
  it('envFrom configMapRef (with a prefix), valueFrom configMapKeyRef and secretKeyRef; env wins over envFrom; a Flask app.config dict filled in another function', async () => {
    const r = await reportOf({
      deploy: {
        'manifests/config.yaml': lines(
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: service-api-config',
          'data:',
          '  TRANSACTIONS_API_ADDR: "ledger:8080"',
          '  HISTORY_API_ADDR: "wrong-host:8080"',
          '---',
          'apiVersion: v1',
          'kind: ConfigMap',
          'metadata:',
          '  name: ledger-config',
          'data:',
          '  addr: "ledger:8080"',
          '---',
          'apiVersion: v1',
          'kind: Secret',
          'metadata:',
          '  name: ledger-secret',
          'stringData:',
          '  url: "http://admin:s3cret@ledger:8080/s3cret-path"',
          '  password: "s3cret"',
        ),
        'manifests/frontend.yaml': lines(
          ...deployment('frontend', [
            'env:',
            '  - name: HISTORY_API_ADDR',
            '    value: ledger:8080',
            '  - name: BALANCES_URL',
            '    valueFrom:',
            '      secretKeyRef:',
            '        name: ledger-secret',
            '        key: url',
            '  - name: LEDGER_ADDR',
            '    valueFrom:',
            '      configMapKeyRef:',
            '        name: ledger-config',
            '        key: addr',
            '  - name: DB_PASSWORD',
            '    valueFrom:',
            '      secretKeyRef:',
            '        name: ledger-secret',
            '        key: password',
            'envFrom:',
            '  - configMapRef:',
            '      name: service-api-config',
            '  - configMapRef:',
            '      name: ledger-config',
            '    prefix: LEDGER_',
          ]),
        ),
        'manifests/ledger.yaml': lines(...deployment('ledger', [])),
      },
      ledger,
      frontend: {
        'frontend.py': lines(
          'import os',
          'import requests',
          'from flask import Flask',
          '',
          'def create_app():',
          '    app = Flask(__name__)',
          '',
          "    @app.route('/pay', methods=['POST'])",
          '    def pay():',
          '        requests.get("http://" + os.environ["LEDGER_ADDR"] + "/balances/1")',
          '        return requests.post(url=app.config["TRANSACTIONS_URI"], json={})',
          '',
          "    @app.route('/history', methods=['GET'])",
          '    def history():',
          '        requests.post(f"http://{os.environ.get(\'HISTORY_API_ADDR\')}/transactions")',
          '        requests.post("http://" + os.environ["LEDGER_addr"] + "/transactions")',
          '        return requests.get(os.environ["BALANCES_URL"] + "/balances/42")',
          '',
          '    app.config["TRANSACTIONS_URI"] = "http://{}/transactions".format(os.environ.get("TRANSACTIONS_API_ADDR"))',
          '    return app',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'frontend frontend.py:10 | GET ledger/balances/1 | ledger ledger/app.py:8 GET /balances/<account> (flask)',
      'frontend frontend.py:11 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend frontend.py:15 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend frontend.py:16 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend frontend.py:17 | GET ledger/balances/42 | ledger ledger/app.py:8 GET /balances/<account> (flask)',
    ]);
    // The Secret's password is neither stored nor shown; its address is, without the credentials or path.
    expect(JSON.stringify(r)).not.toContain('s3cret');
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Kubernetes Secrets keep only scheme, host and port (review finding 3)', () => {
  it('tokens in a webhook path or a query, and passwords holding "/" or "@", are neither stored nor shown', async () => {
    const b64 = (v: string) => Buffer.from(v).toString('base64');
    const facts = await extractSource('deploy', [
      {
        path: 'manifests/secret.yaml',
        read: async () =>
          lines(
            'apiVersion: v1',
            'kind: Secret',
            'metadata:',
            '  name: hooks',
            'stringData:',
            '  SLACK: "https://hooks.slack.com/services/T01/B02/TOKENslack"',
            '  SAS: "https://acct.blob.core.windows.net/c?sv=2024&sig=TOKENsas"',
            '  API: "https://api.example.com/v1?api_key=TOKENkey#x"',
            '  PG: "postgres://app:pa/TOKENpg@db:5432/app"',
            '  MONGO: "mongodb://app:pa@TOKENmongo@mongo:27017/app"',
            '  PASSWORD: "TOKENplain"',
            '  ADDR: "ledger:8080"',
            'data:',
            `  REDIS: "${b64('redis://:TOKENredis@cache:6379/0')}"`,
          ),
      },
    ]);
    expect(JSON.stringify(facts)).not.toMatch(/TOKEN|pa\/|app:/);
    expect(Object.fromEntries(facts.config.map((e) => [e.key, e.value]))).toEqual({
      SLACK: 'https://hooks.slack.com',
      SAS: 'https://acct.blob.core.windows.net',
      API: 'https://api.example.com',
      MONGO: 'mongodb://mongo:27017',
      ADDR: 'ledger:8080',
      REDIS: 'redis://cache:6379',
    }); // PG does not parse as a URL (a "/" in its password): dropped whole
  });
});

describe('docker-compose: env_file, .env substitution and override files', () => {
  it('a service reads env_file entries; ${X} comes from the .env beside the compose file; compose.override.yml wins over the base and names the service by its base build', async () => {
    const r = await reportOf({
      deploy: {
        '.env': lines('LEDGER_HOST=ledger', 'LEDGER_PORT=8080'),
        'env/frontend.env': lines('HISTORY_URL=http://ledger:8080/transactions'),
        'docker-compose.yml': lines(
          'services:',
          '  web:',
          '    build: ../frontend',
          '    env_file:',
          '      - ./env/frontend.env',
          '    environment:',
          '      TRANSACTIONS_URL: http://${LEDGER_HOST}:${LEDGER_PORT:-80}/transactions',
          '      BALANCES_URL: http://old-ledger/balances',
          '  ledger:',
          '    build: ../ledger',
        ),
        'compose.override.yml': lines(
          'services:',
          '  web:',
          '    environment:',
          '      - BALANCES_URL=http://ledger:8080/balances',
        ),
      },
      ledger,
      frontend: {
        'web.js': lines(
          "const base = process.env.TRANSACTIONS_URL || 'http://localhost:8080/transactions';",
          'export const pay = () => fetch(base, { method: "POST" });',
          'export const history = () => fetch(process.env.HISTORY_URL, { method: "POST" });',
          'export const balance = (id) => fetch(`${process.env.BALANCES_URL}/${id}`);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'frontend web.js:2 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend web.js:3 | POST ledger/transactions | ledger ledger/app.py:4 POST /transactions (flask)',
      'frontend web.js:4 | GET ledger/balances/{} | ledger ledger/app.py:8 GET /balances/<account> (flask)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('ASP.NET: the deployment environment over appsettings, its overlay, a YARP gateway from configuration', () => {
  it('compose override env (ApiSettings__GatewayAddress) beats appsettings.json; ASPNETCORE_ENVIRONMENT picks appsettings.Development.json over appsettings.Local.json; ReverseProxy routes with PathPattern forward to the cluster destination; compose dockerfile folders name the repositories; a Mapster Adapt<T>() message published', async () => {
    const gateway = (host: string): string =>
      JSON.stringify({
        ReverseProxy: {
          Routes: {
            'catalog-route': {
              ClusterId: 'catalog-cluster',
              Match: { Path: '/catalog-service/{**catch-all}' },
              Transforms: [{ PathPattern: '{**catch-all}' }],
            },
            'basket-route': {
              ClusterId: 'basket-cluster',
              Match: { Path: '/basket-service/{**rest}' },
              Transforms: [{ PathPattern: '/api/v1/{**rest}' }],
            },
          },
          Clusters: {
            'catalog-cluster': {
              Destinations: {
                d1: { Address: `http://${host === 'localhost' ? 'localhost:6000' : 'catalog.api:8080'}` },
              },
            },
            'basket-cluster': {
              Destinations: {
                d1: { Address: `http://${host === 'localhost' ? 'localhost:6001' : 'basket.api:8080'}` },
              },
            },
          },
        },
      });
    const r = await reportOf({
      deploy: {
        'docker-compose.yml': lines(
          'services:',
          '  catalog.api:',
          '    image: ${DOCKER_REGISTRY-}catalogapi',
          '    build:',
          '      context: .',
          '      dockerfile: Services/Catalog/Catalog.API/Dockerfile',
          '  basket.api:',
          '    build:',
          '      context: .',
          '      dockerfile: Services/Basket/Basket.API/Dockerfile',
          '  gateway:',
          '    build:',
          '      context: .',
          '      dockerfile: ApiGateways/Gateway/Dockerfile',
          '  web:',
          '    build:',
          '      context: .',
          '      dockerfile: WebApps/Web/Dockerfile',
        ),
        'docker-compose.override.yml': lines(
          'services:',
          '  gateway:',
          '    environment:',
          '      - ASPNETCORE_ENVIRONMENT=Development',
          '  web:',
          '    environment:',
          '      - ApiSettings__GatewayAddress=http://gateway:8080',
        ),
      },
      gateway: {
        'appsettings.json': JSON.stringify({ Logging: { LogLevel: { Default: 'Information' } } }),
        'appsettings.Development.json': gateway('compose'),
        'appsettings.Local.json': gateway('localhost'),
      },
      catalog: {
        'Catalog.API/Program.cs': lines(
          'var app = WebApplication.CreateBuilder(args).Build();',
          'app.MapGet("/products/{id}", (Guid id) => Results.Ok());',
        ),
      },
      basket: {
        'Basket.API/Program.cs': lines(
          'var app = WebApplication.CreateBuilder(args).Build();',
          'app.MapPost("/api/v1/basket/checkout", () => Results.Ok());',
        ),
        'Basket.API/Checkout.cs': lines(
          'public class CheckoutHandler(IPublishEndpoint publishEndpoint)',
          '{',
          '    public async Task Handle(CheckoutDto dto)',
          '    {',
          '        var message = dto.Adapt<BasketCheckedOut>();',
          '        await publishEndpoint.Publish(message);',
          '    }',
          '}',
        ),
      },
      ordering: {
        'Ordering/Handlers.cs': lines(
          'public class BasketCheckedOutConsumer : IConsumer<BasketCheckedOut>',
          '{',
          '    public Task Consume(ConsumeContext<BasketCheckedOut> context) => Task.CompletedTask;',
          '}',
        ),
      },
      web: {
        'appsettings.json': JSON.stringify({ ApiSettings: { GatewayAddress: 'http://localhost:6004' } }),
        'Services/IShop.cs': lines(
          'public interface IShop',
          '{',
          '    [Get("/catalog-service/products/{id}")]',
          '    Task<Product> Product(Guid id);',
          '    [Post("/basket-service/basket/checkout")]',
          '    Task Checkout(CheckoutDto dto);',
          '}',
        ),
        'Program.cs': lines(
          'var builder = WebApplication.CreateBuilder(args);',
          'builder.Services.AddRefitClient<IShop>()',
          '    .ConfigureHttpClient(c => c.BaseAddress = new Uri(builder.Configuration["ApiSettings:GatewayAddress"]!));',
        ),
      },
    });
    expect(r.table.map((t) => `${t.caller} | ${t.calls} | ${t.servedBy} | ${t.match}`)).toEqual([
      'web Services/IShop.cs:3 | GET gateway/catalog-service/products/{} | catalog Catalog.API/Program.cs:2 GET /products/{id} (aspnetcore-minimal) | gateway route `/catalog-service/{**catch-all}` of `gateway` (gateway appsettings.Development.json:1) + route template',
      'web Services/IShop.cs:5 | POST gateway/basket-service/basket/checkout | basket Basket.API/Program.cs:2 POST /api/v1/basket/checkout (aspnetcore-minimal) | gateway route `/basket-service/{**rest}` of `gateway` (gateway appsettings.Development.json:1) + exact path',
      'basket Basket.API/Checkout.cs:6 | publish `BasketCheckedOut` | ordering Ordering/Handlers.cs:1 consume queue `BasketCheckedOut` | binding: fanout exchange `BasketCheckedOut` → queue `BasketCheckedOut`',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Ocelot gateway from ocelot.json', () => {
  it('UpstreamPathTemplate forwarded to DownstreamPathTemplate on DownstreamHostAndPorts (templates by position, {everything} as a catch-all, the most specific route first); a browser calling the gateway; an extension method wrapper called without its this argument', async () => {
    const r = await reportOf({
      apigw: {
        'ocelot.json': JSON.stringify(
          {
            Routes: [
              {
                DownstreamPathTemplate: '/api/v1/catalog/items/{id}',
                DownstreamScheme: 'http',
                DownstreamHostAndPorts: [{ Host: 'catalog-api', Port: 80 }],
                UpstreamPathTemplate: '/c/items/{id}',
                UpstreamHttpMethod: ['GET'],
              },
              {
                DownstreamPathTemplate: '/api/v1/catalog/special',
                DownstreamHostAndPorts: [{ Host: 'catalog-api', Port: 80 }],
                UpstreamPathTemplate: '/c/items/special',
              },
              {
                DownstreamPathTemplate: '/api/{everything}',
                DownstreamScheme: 'http',
                DownstreamHostAndPorts: [{ Host: 'basket-api', Port: 80 }],
                UpstreamPathTemplate: '/b/{everything}',
              },
            ],
          },
          null,
          2,
        ).replace('"Routes": [', '"Routes": [\n    // .NET configuration allows comments /* of both kinds */'),
      },
      'catalog-api': {
        'Program.cs': lines(
          'var app = WebApplication.CreateBuilder(args).Build();',
          'app.MapGet("/api/v1/catalog/items/{id:int}", (int id) => Results.Ok());',
          'app.MapPost("/api/v1/catalog/special", () => Results.Ok());',
        ),
      },
      admin: {
        'Extensions/HttpClientExtensions.cs': lines(
          'public static class HttpClientExtensions',
          '{',
          '    public static Task<HttpResponseMessage> PostAsJson<T>(this HttpClient httpClient, string url, T data)',
          '    {',
          '        var content = new StringContent(JsonSerializer.Serialize(data));',
          '        return httpClient.PostAsync(url, content);',
          '    }',
          '}',
        ),
        'Services/Special.cs': lines(
          'public class Special(HttpClient client)',
          '{',
          '    public Task Add(Item item) => client.PostAsJson("/c/items/special", item);',
          '}',
        ),
      },
      'basket-api': {
        'Program.cs': lines(
          'var app = WebApplication.CreateBuilder(args).Build();',
          'app.MapPost("/api/basket/{buyerId}/items", (string buyerId) => Results.Ok());',
        ),
      },
      web: {
        'src/api.js': lines(
          "const GW = process.env.GATEWAY_URL || 'http://apigw';",
          'export const item = (id) => fetch(`${GW}/c/items/${id}`);',
          "export const add = (buyer) => fetch(`${GW}/b/basket/${buyer}/items`, { method: 'POST' });",
        ),
      },
    });
    expect(r.table.map((t) => `${t.caller} | ${t.calls} | ${t.servedBy} | ${t.match}`)).toEqual([
      'admin Services/Special.cs:3 | POST /c/items/special | catalog-api Program.cs:3 POST /api/v1/catalog/special (aspnetcore-minimal) | gateway route `/c/items/special` of `apigw` (apigw ocelot.json:26) + exact path',
      'web src/api.js:2 | GET apigw/c/items/{} | catalog-api Program.cs:2 GET /api/v1/catalog/items/{id:int} (aspnetcore-minimal) | gateway route `/c/items/{id}` of `apigw` (apigw ocelot.json:13) + route template',
      'web src/api.js:3 | POST apigw/b/basket/{}/items | basket-api Program.cs:2 POST /api/basket/{buyerId}/items (aspnetcore-minimal) | gateway route `/b/{everything}` of `apigw` (apigw ocelot.json:37) + route template',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Kubernetes Ingress as the front door', () => {
  it('rule paths forward to their backend Services (v1 and v1beta1, Prefix and Exact, rewrite-target /); a load generator calling relative paths goes through them, even to a path two repositories serve', async () => {
    const workload = (name: string): string[] => [
      'apiVersion: apps/v1',
      'kind: Deployment',
      `metadata: { name: ${name} }`,
      'spec:',
      '  template:',
      `    metadata: { labels: { app: ${name} } }`,
      '    spec:',
      '      containers:',
      `        - name: ${name}`,
      `          image: shop/${name}:1.0`,
      '---',
      'apiVersion: v1',
      'kind: Service',
      `metadata: { name: ${name}-svc }`,
      'spec:',
      `  selector: { app: ${name} }`,
      '  ports: [{ port: 80 }]',
    ];
    const r = await reportOf({
      deploy: {
        'k8s/orders.yaml': lines(...workload('orders')),
        'k8s/users.yaml': lines(...workload('users')),
        'k8s/ingress.yaml': lines(
          'apiVersion: networking.k8s.io/v1',
          'kind: Ingress',
          'metadata:',
          '  name: shop',
          'spec:',
          '  rules:',
          '    - host: shop.example.com',
          '      http:',
          '        paths:',
          '          - path: /api/orders',
          '            pathType: Prefix',
          '            backend:',
          '              service: { name: orders-svc, port: { number: 80 } }',
          '          - path: /login',
          '            pathType: Exact',
          '            backend:',
          '              service: { name: users-svc, port: { number: 80 } }',
          '---',
          'apiVersion: networking.k8s.io/v1beta1',
          'kind: Ingress',
          'metadata:',
          '  name: legacy',
          '  annotations:',
          '    nginx.ingress.kubernetes.io/rewrite-target: /',
          'spec:',
          '  rules:',
          '    - http:',
          '        paths:',
          '          - path: /u',
          '            backend: { serviceName: users-svc, servicePort: 80 }',
        ),
      },
      orders: { 'server.js': lines("const app = require('express')();", "app.get('/api/orders/:id', h);") },
      // Serves the same paths, behind no Ingress: the one front door decides between the two.
      archive: {
        'server.js': lines(
          "const app = require('express')();",
          "app.get('/api/orders/:id', h);",
          "app.post('/login', h);",
        ),
      },
      users: {
        'app.py': lines(
          '@app.route("/login", methods=["POST"])',
          'def login():',
          '    return ""',
          '@app.route("/profile/<uid>")',
          'def profile(uid):',
          '    return ""',
        ),
      },
      loadgen: {
        'locustfile.py': lines(
          'from locust import HttpUser, task',
          'class Shopper(HttpUser):',
          '    @task',
          '    def browse(self):',
          '        self.client.get("/api/orders/42")',
          '        self.client.post("/login")',
          '        self.client.get("/u/profile/7")',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'loadgen locustfile.py:5 | GET /api/orders/42 | orders server.js:2 GET /api/orders/:id (express)',
      'loadgen locustfile.py:6 | POST /login | users app.py:1 POST /login (flask)',
      'loadgen locustfile.py:7 | GET /u/profile/7 | users app.py:4 GET /profile/<uid> (flask)',
    ]);
  });
});
