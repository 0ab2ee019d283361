import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

const ordersApi = {
  'src/app.ts': "const app = express();\napp.get('/orders/:id', h);\napp.get('/{slug}', h);\n",
};

describe('placeholders never match', () => {
  it('a wholly dynamic path is a dynamic call, not ambiguous between services', async () => {
    const r = await reportOf({
      orders: ordersApi,
      users: { 'src/app.ts': "const app = express();\napp.get('/:name', h);\n" },
      web: { 'src/api.ts': 'export const f = (base, p) => fetch(`${base}/${p}`);\n' },
    });
    expect(r.table).toEqual([]);
    expect(unresolved(r)).toEqual([
      'web src/api.ts:1 GET /{} — dynamic URL: the path is only known at run time (every segment is a run-time value)',
    ]);
  });

  it('a dynamic URL says which part is unknown', async () => {
    const r = await reportOf({
      orders: ordersApi,
      web: { 'src/a.ts': 'fetch(process.env.ORDERS_URL);\nfetch(settings.target);\n' },
    });
    expect(r.unresolvedCalls.map((u) => u.detail)).toEqual([
      'the URL is only known at run time (environment variable `ORDERS_URL` is set in no attached configuration)',
      'the URL is only known at run time (`settings.target` is no constant of the source)',
    ]);
  });

  it('a call whose host is dynamic is listed even when its path fits one of the caller own routes', async () => {
    const r = await reportOf({
      orders: {
        'src/app.ts':
          "const app = express();\napp.get('/orders/:id', h);\nexport const g = (host, id) => axios.get(`https://${host}/orders/${id}`);\n",
      },
      billing: { 'src/app.ts': "const app = express();\napp.get('/invoices', h);\n" },
    });
    expect(r.table).toEqual([]);
    expect(unresolved(r)).toHaveLength(1);
    expect(unresolved(r)[0]).toMatch(
      /^orders src\/app\.ts:3 GET .* — dynamic URL: the host is only known at run time .*caller's own route \/orders\/:id, src\/app\.ts:2/,
    );
  });

  it('a call is internal (not listed) only when its host resolves to the caller itself', async () => {
    const r = await reportOf({
      orders: {
        'src/app.ts':
          "const app = express();\napp.get('/orders/:id', h);\nconst a = axios.get('http://orders/orders/1');\nconst b = axios.get('http://orders/nowhere');\n",
      },
      billing: { 'src/app.ts': "const app = express();\napp.get('/invoices', h);\n" },
    });
    expect(r.table).toEqual([]);
    expect(unresolved(r)).toEqual([
      'orders src/app.ts:4 GET orders/nowhere — no matching route: `orders` (the caller itself, by its host) serves no GET /nowhere',
    ]);
  });

  it('a computed routing key reaches no binding, not even a computed binding key; both halves are gaps with the reason', async () => {
    const r = await reportOf({
      orders: {
        'src/pub.ts':
          "ch.assertExchange('events', 'direct');\nch.publish('events', `order.${kind}`, buf);\nch.publish('events', 'order.paid', buf);\n",
      },
      billing: {
        'src/sub.ts':
          "ch.assertQueue('billing');\nch.bindQueue('billing', 'events', `order.${k}`);\nch.bindQueue('billing', 'events', 'order.paid');\nch.consume('billing', h);\n",
      },
      audit: {
        'src/k.ts':
          'await producer.send({ topic: `audit-${env}`, messages });\nawait consumer.subscribe({ topic: `audit-${env}` });\n',
      },
    });
    expect(r.statistics.messageFlows).toBe(1);
    expect(rows(r)).toEqual([
      'orders src/pub.ts:3 | publish `events` / `order.paid` | billing src/sub.ts:4 consume queue `billing`',
    ]);
    const gaps = r.messagingGaps.map((g) => `${g.side} ${g.at.source} ${g.at.file}:${g.at.line} ${g.reason}`);
    expect(gaps).toContain(
      'publisher orders src/pub.ts:2 dynamic key: the routing key is only known at run time, and a placeholder matches no binding key of `events`',
    );
    expect(gaps.filter((g) => g.startsWith('publisher audit') || g.startsWith('consumer audit'))).toHaveLength(2);
    for (const g of gaps.filter((x) => x.includes(' audit ')))
      expect(g).toMatch(/dynamic key: the topic is only known at run time/);
  });
});

describe('Spring on real code', () => {
  const authService = {
    'src/main/resources/bootstrap.yml': 'spring:\n  application:\n    name: auth-service\n',
    'src/main/java/a/UserController.java':
      '@RestController\n@RequestMapping("/users")\npublic class UserController {\n  @GetMapping("/current") public Object current() { return null; }\n  @PostMapping public void create() {}\n}\n',
  };
  const configRepo = {
    'src/main/resources/application.yml':
      'spring:\n  cloud:\n    config:\n      server:\n        native:\n          search-locations: classpath:/shared\n',
    'src/main/resources/shared/application.yml':
      'security:\n  oauth2:\n    resource:\n      user-info-uri: http://auth-service:5000/uaa/users/current\n',
    'src/main/resources/shared/auth-service.yml': 'server:\n  servlet:\n    context-path: /uaa\n',
    'src/main/resources/shared/accounts.yml': 'rates:\n  url: ${RATES_URL:https://api.rates.example.com}\n',
  };

  it('Feign by service name (and its path prefix) + the target context path from a Spring Cloud Config repository (shared/<service>.yml)', async () => {
    const r = await reportOf({
      'auth-svc': authService,
      config: configRepo,
      accounts: {
        'src/main/java/a/AuthClient.java':
          '@FeignClient(name = "auth-service")\npublic interface AuthClient {\n  @RequestMapping(method = RequestMethod.POST, value = "/uaa/users")\n  void create(User u);\n}\n',
        'src/main/java/a/UsersClient.java':
          '@FeignClient(name = "auth-service", path = "/uaa/users")\npublic interface UsersClient {\n  @GetMapping("/current") Object current();\n}\n',
        'src/main/java/a/TokenClient.java':
          '@FeignClient(name = "${auth.client.name:auth-service}")\npublic interface TokenClient {\n  @PostMapping("/uaa/users") void create();\n}\n',
        'src/main/java/a/RatesClient.java':
          '@FeignClient(value = "rates", url = "${rates.url}")\npublic interface RatesClient {\n  @GetMapping("/latest") Object latest();\n}\n',
      },
    });
    expect(rows(r)).toEqual([
      'accounts src/main/java/a/AuthClient.java:3 | POST /uaa/users | auth-svc src/main/java/a/UserController.java:5 POST /uaa/users (spring)',
      'accounts src/main/java/a/TokenClient.java:3 | POST /uaa/users | auth-svc src/main/java/a/UserController.java:5 POST /uaa/users (spring)',
      'accounts src/main/java/a/UsersClient.java:3 | GET /uaa/users/current | auth-svc src/main/java/a/UserController.java:4 GET /uaa/users/current (spring)',
    ]);
    // rates.url from the config repository's accounts.yml, with its placeholder default: an external host.
    expect(unresolved(r)).toEqual([
      'accounts src/main/java/a/RatesClient.java:3 GET api.rates.example.com/latest — external host: `api.rates.example.com` is not a service of this application',
    ]);
  });

  it('a URL bound to a Spring Boot properties bean, passed through a constructor in another file and a private helper', async () => {
    const r = await reportOf({
      'auth-svc': authService,
      config: configRepo,
      accounts: {
        'src/main/java/a/ResourceServerConfig.java':
          'public class ResourceServerConfig {\n  private final ResourceServerProperties sso;\n  public ResourceServerConfig(ResourceServerProperties sso) { this.sso = sso; }\n  @Bean public TokenServices tokenServices() { return new UserInfoServices(sso.getUserInfoUri(), sso.getClientId()); }\n}\n',
        'src/main/java/a/UserInfoServices.java':
          'public class UserInfoServices {\n  private final String userInfoEndpointUrl;\n  public UserInfoServices(String userInfoEndpointUrl, String clientId) { this.userInfoEndpointUrl = userInfoEndpointUrl; }\n  public Object load(String token) { return getMap(this.userInfoEndpointUrl, token); }\n  private Object getMap(String path, String token) {\n    return restTemplate.getForEntity(path, Map.class).getBody();\n  }\n}\n',
      },
    });
    expect(rows(r)).toEqual([
      'accounts src/main/java/a/UserInfoServices.java:6 | GET auth-service/uaa/users/current | auth-svc src/main/java/a/UserController.java:4 GET /uaa/users/current (spring)',
    ]);
  });

  it('own @ConfigurationProperties getters, a field initializer kept when only an uncalled setter assigns it, Ant * route segments', async () => {
    const r = await reportOf({
      'visits-service': {
        'src/main/java/v/VisitResource.java':
          '@RestController\npublic class VisitResource {\n  @GetMapping("owners/*/pets/{petId}/visits") public Object visits() { return null; }\n  @GetMapping("pets/visits") public Object all() { return null; }\n}\n',
      },
      gateway: {
        'src/main/java/g/VisitsClient.java':
          'public class VisitsClient {\n  private String hostname = "http://visits-service/";\n  public Object all() { return webClientBuilder.build().get().uri(hostname + "pets/visits?petId={petId}", ids).retrieve(); }\n  void setHostname(String hostname) { this.hostname = hostname; }\n}\n',
        'src/main/java/g/Props.java':
          '@ConfigurationProperties(prefix = "clients")\npublic class Props {\n  private String visitsUrl;\n}\n',
        'src/main/java/g/PetVisits.java':
          'public class PetVisits {\n  private final Props props;\n  public Object of(int o, int p) { return restTemplate.getForObject(props.getVisitsUrl() + "/owners/" + o + "/pets/" + p + "/visits", Object.class); }\n}\n',
        'src/main/resources/application.yml': 'clients:\n  visits-url: http://visits-service\n',
      },
    });
    expect(rows(r)).toEqual([
      'gateway src/main/java/g/PetVisits.java:3 | GET visits-service/owners/{}/pets/{}/visits | visits-service src/main/java/v/VisitResource.java:3 GET /owners/*/pets/{petId}/visits (spring)',
      'gateway src/main/java/g/VisitsClient.java:3 | GET visits-service/pets/visits | visits-service src/main/java/v/VisitResource.java:4 GET /pets/visits (spring)',
    ]);
  });
});

describe('gateways: relative calls of a UI go to the repository that serves it, then through its proxy routes', () => {
  const customers = {
    'src/main/resources/application.yml': 'spring:\n  application:\n    name: customers-service\n',
    'src/main/java/c/OwnerResource.java':
      '@RestController\n@RequestMapping("/owners")\nclass OwnerResource {\n  @GetMapping("/{ownerId}") Object one() { return null; }\n  @PutMapping("/{ownerId}") void put() {}\n}\n',
  };

  it('Spring Cloud Gateway routes (Path predicate, StripPrefix) and AngularJS $http', async () => {
    const r = await reportOf({
      'customers-svc': customers,
      'api-gateway': {
        'src/main/resources/application.yml':
          'spring:\n  cloud:\n    gateway:\n      routes:\n        - id: customers\n          uri: lb://customers-service\n          predicates:\n            - Path=/api/customer/**\n          filters:\n            - StripPrefix=2\n        - id: search\n          uri: https://search.example.com\n          predicates:\n            - Path=/api/search/**\n',
        'src/main/java/g/ApiGatewayController.java':
          '@RestController\n@RequestMapping("/api/gateway")\nclass ApiGatewayController {\n  @GetMapping("/owners/{ownerId}") Object details() { return null; }\n}\n',
        'src/main/resources/static/scripts/owner.js':
          "angular.module('x').controller('C', function ($http) {\n  $http.get('api/customer/owners/' + id);\n  $http.put('api/customer/owners/' + id, owner);\n  $http.get('api/gateway/owners/' + id);\n  $http.get('api/customer/nope/' + id);\n  $http.get('api/search/q');\n});\n",
      },
    });
    expect(rows(r)).toEqual([
      'api-gateway src/main/resources/static/scripts/owner.js:2 | GET /api/customer/owners/{} | customers-svc src/main/java/c/OwnerResource.java:4 GET /owners/{ownerId} (spring)',
      'api-gateway src/main/resources/static/scripts/owner.js:3 | PUT /api/customer/owners/{} | customers-svc src/main/java/c/OwnerResource.java:5 PUT /owners/{ownerId} (spring)',
    ]);
    expect(r.table[0]!.match).toMatch(
      /^gateway route `\/api\/customer\/\*\*` of `api-gateway` \(api-gateway src\/main\/resources\/application\.yml:8\)/,
    );
    // api/gateway/… is served by the gateway itself: internal. The others are listed with the reason.
    expect(unresolved(r)).toEqual([
      'api-gateway src/main/resources/static/scripts/owner.js:5 GET /api/customer/nope/{} — no matching route: `api-gateway` route `/api/customer/**` (api-gateway src/main/resources/application.yml:8) forwards it to `customers-svc` as /nope/{}, which `customers-svc` does not serve',
      'api-gateway src/main/resources/static/scripts/owner.js:6 GET /api/search/q — external host: `api-gateway` route `/api/search/**` (api-gateway src/main/resources/application.yml:14) forwards to `https://search.example.com`, not a service of this application',
    ]);
  });

  it('Spring Cloud Gateway routes in the Java DSL (RouteLocatorBuilder)', async () => {
    const r = await reportOf({
      'customers-svc': customers,
      edge: {
        'src/main/java/e/Routes.java': [
          'class Routes {',
          '  @Bean RouteLocator routes(RouteLocatorBuilder b) {',
          '    return b.routes()',
          '      .route("customers", r -> r.path("/api/customer/**").filters(f -> f.stripPrefix(2)).uri("lb://customers-service"))',
          '      .build();',
          '  }',
          '}',
        ].join('\n'),
        'src/main/resources/static/app.js': "fetch('/api/customer/owners/' + id, { method: 'PUT' });\n",
      },
    });
    expect(rows(r)).toEqual([
      'edge src/main/resources/static/app.js:1 | PUT /api/customer/owners/{} | customers-svc src/main/java/c/OwnerResource.java:5 PUT /owners/{ownerId} (spring)',
    ]);
    expect(r.table[0]!.match).toMatch(
      /gateway route `\/api\/customer\/\*\*` of `edge` \(edge src\/main\/java\/e\/Routes\.java:4\)/,
    );
  });

  it('Zuul routes from a config repository (stripPrefix false, serviceId or url) and jQuery $.ajax / $.getJSON', async () => {
    const r = await reportOf({
      'customers-svc': {
        ...customers,
        'src/main/resources/application.yml':
          'spring:\n  application:\n    name: customers-service\nserver:\n  servlet:\n    context-path: /owners-api\n',
      },
      config: {
        'src/main/resources/shared/gateway.yml':
          'zuul:\n  routes:\n    customers:\n      path: /owners-api/**\n      serviceId: customers-service\n      stripPrefix: false\n    legacy:\n      path: /legacy/**\n      url: http://customers-service:8080\n',
      },
      gateway: {
        'src/main/resources/bootstrap.yml': 'spring:\n  application:\n    name: gateway\n',
        'src/main/resources/static/js/main.js':
          "$.ajax({\n  url: 'owners-api/owners/' + name,\n  type: 'put',\n});\n$.getJSON('https://rates.example.com/latest', cb);\n$.ajax({ url: 'legacy/owners-api/owners/1' });\n",
      },
    });
    expect(rows(r)).toEqual([
      'gateway src/main/resources/static/js/main.js:1 | PUT /owners-api/owners/{} | customers-svc src/main/java/c/OwnerResource.java:5 PUT /owners-api/owners/{ownerId} (spring)',
      'gateway src/main/resources/static/js/main.js:6 | GET /legacy/owners-api/owners/1 | customers-svc src/main/java/c/OwnerResource.java:4 GET /owners-api/owners/{ownerId} (spring)',
    ]);
    expect(unresolved(r)).toEqual([
      'gateway src/main/resources/static/js/main.js:5 GET rates.example.com/latest — external host: `rates.example.com` is not a service of this application',
    ]);
  });
});

describe('shared data is qualified by database', () => {
  const doc = (cls: string): string => `@Document(collection = "accounts")\npublic class ${cls} {}\n`;
  it('the same collection in two different Mongo databases is not shared; in the same database it is', async () => {
    const r = await reportOf({
      accounts: {
        'src/main/java/a/Account.java': doc('Account'),
        'src/main/resources/application.yml':
          'spring:\n  data:\n    mongodb:\n      host: account-mongodb\n      database: piggy\n',
      },
      statistics: {
        'src/main/java/s/Account.java': doc('Account'),
        'src/main/resources/application.yml':
          'spring:\n  data:\n    mongodb:\n      uri: mongodb://user@statistics-mongodb:27017/piggy\n',
      },
      reports: {
        'src/main/java/r/Account.java': doc('AccountView'),
        'src/main/resources/application.yml':
          'spring:\n  data:\n    mongodb:\n      uri: mongodb://account-mongodb/piggy\n',
      },
    });
    expect(r.sharedData.map((d) => `${d.store}: ${d.touchedBy.map((e) => e.source).join(', ')}`)).toEqual([
      'collection `accounts` in `account-mongodb/piggy`: accounts, reports',
    ]);
  });
});

describe('JavaScript and C# idioms', () => {
  const orders = {
    'src/app.ts':
      "const app = express();\napp.get('/api/orders', h);\napp.post('/api/orders', h);\napp.delete('/api/orders/:id', h);\napp.get('/api/orders/:id', h);\n",
  };

  it('request(url, cb) and request({ uri, method }), util.format, base URLs from module.exports, supertest request(app) ignored', async () => {
    const r = await reportOf({
      orders,
      web: {
        'lib/config.js': "module.exports = { ordersUrl: 'http://orders:3000' };\n",
        'lib/client.js': [
          "const request = require('request');",
          "const util = require('util');",
          "const config = require('./config');",
          'request(config.ordersUrl + "/api/orders", function (err, res) {});',
          "request({ uri: util.format('%s/api/orders/%d', config.ordersUrl, id), method: 'DELETE' }, cb);",
          'request(app).get("/x");',
        ].join('\n'),
      },
    });
    expect(rows(r)).toEqual([
      'web lib/client.js:4 | GET orders/api/orders | orders src/app.ts:2 GET /api/orders (express)',
      'web lib/client.js:5 | DELETE orders/api/orders/{} | orders src/app.ts:4 DELETE /api/orders/:id (express)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });

  it('Koa routers with a prefix', async () => {
    const r = await reportOf({
      catalog: {
        'src/routes.js':
          "const Router = require('koa-router');\nconst router = new Router({ prefix: '/api/items' });\nrouter.get('/:id', h);\nmodule.exports = router;\n",
      },
      web: { 'src/a.js': "axios.get('http://catalog/api/items/' + id);\n" },
    });
    expect(rows(r)).toEqual([
      'web src/a.js:1 | GET catalog/api/items/{} | catalog src/routes.js:3 GET /api/items/:id (express)',
    ]);
  });

  it('C#: chained MapGroup prefixes (with calls chained on the group), target-typed new(…) base addresses, HttpRequestMessage initializers', async () => {
    const r = await reportOf({
      catalog: {
        'Program.cs': [
          'var api = app.MapGroup("/api").MapGroup("/v1").WithApiVersionSet(versions).RequireAuthorization();',
          'api.MapGet("/items/{id:int}", Get);',
          'app.MapGroup("/admin").MapPost("/items", Create);',
        ].join('\n'),
      },
      web: {
        'Client.cs': [
          'class Client {',
          '  HttpClient http = new HttpClient { BaseAddress = new("http://catalog") };',
          '  async Task A() {',
          '    var req = new HttpRequestMessage { Method = HttpMethod.Post, RequestUri = new Uri("http://catalog/admin/items") };',
          '    await http.SendAsync(req);',
          '    await http.GetAsync("api/v1/items/7");',
          '  }',
          '}',
        ].join('\n'),
      },
    });
    expect(rows(r)).toEqual([
      'web Client.cs:4 | POST catalog/admin/items | catalog Program.cs:3 POST /admin/items (aspnetcore-minimal)',
      'web Client.cs:6 | GET catalog/api/v1/items/7 | catalog Program.cs:2 GET /api/v1/items/{id:int} (aspnetcore-minimal)',
    ]);
  });
});

describe('deployment names and messaging idioms', () => {
  it('Aspire AppHost: AddProject<Projects.X>("name") names the service behind https+http://name', async () => {
    const r = await reportOf({
      AppHost: {
        'Program.cs':
          'var builder = DistributedApplication.CreateBuilder(args);\nvar catalog = builder.AddProject<Projects.Catalog_Api>("catalog-api");\nbuilder.AddProject<Projects.WebApp>("webapp").WithReference(catalog);\n',
      },
      'Catalog.Api': { 'Program.cs': 'app.MapGroup("/api/catalog").MapGet("/items", List);\n' },
      WebApp: {
        'Program.cs':
          'builder.Services.AddHttpClient<CatalogClient>(c => c.BaseAddress = new("https+http://catalog-api"));\n',
        'CatalogClient.cs':
          'public class CatalogClient(HttpClient http) {\n  public Task<string> Items() => http.GetStringAsync("api/catalog/items");\n}\n',
      },
    });
    expect(rows(r)).toEqual([
      'WebApp CatalogClient.cs:2 | GET catalog-api/api/catalog/items | Catalog.Api Program.cs:1 GET /api/catalog/items (aspnetcore-minimal)',
    ]);
  });

  it('Spring: SimpleMessageListenerContainer.setQueueNames, KafkaTemplate.send, @KafkaListener topics with a placeholder default; sarama ConsumePartition', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/o/Pub.java':
          'class Pub {\n  @Bean Queue q() { return new Queue("orders.q"); }\n  void a() { rabbitTemplate.convertAndSend("", "orders.q", m); kafkaTemplate.send("payments", k, v); }\n}\n',
      },
      billing: {
        'src/main/java/b/Sub.java':
          'class Sub {\n  @Bean SimpleMessageListenerContainer c() { container.setQueueNames("orders.q"); return container; }\n  @KafkaListener(topics = "${billing.topic:payments}") void on(String m) {}\n}\n',
      },
      audit: {
        'main.go':
          'package main\nfunc main() {\n  pc, _ := consumer.ConsumePartition("payments", 0, sarama.OffsetNewest)\n}\n',
      },
    });
    expect(rows(r)).toEqual([
      'orders src/main/java/o/Pub.java:3 | produce Kafka topic `payments` | audit main.go:3 consume Kafka topic `payments`',
      'orders src/main/java/o/Pub.java:3 | publish to queue `orders.q` (default exchange) | billing src/main/java/b/Sub.java:2 consume queue `orders.q`',
      'orders src/main/java/o/Pub.java:3 | produce Kafka topic `payments` | billing src/main/java/b/Sub.java:3 consume Kafka topic `payments`',
    ]);
  });
});

describe('what is not a store and not code', () => {
  it('MassTransit: Publish(new T()) reaches every IConsumer<T> through the exchange named after T', async () => {
    const r = await reportOf({
      ordering: {
        'Api.cs':
          'class OrdersApi {\n  async Task Place() {\n    await publishEndpoint.Publish(new OrderPlaced(id));\n    await bus.Publish<OrderPaid>(new { Id = id });\n  }\n}\n',
      },
      billing: { 'OrderPlacedConsumer.cs': 'public class OrderPlacedConsumer : IConsumer<OrderPlaced> { }\n' },
      shipping: { 'Consumers.cs': 'public class ShipIt : IConsumer<Contracts.OrderPlaced> { }\n' },
    });
    expect(rows(r)).toEqual([
      'ordering Api.cs:3 | publish `OrderPlaced` | billing OrderPlacedConsumer.cs:1 consume queue `OrderPlaced`',
      'ordering Api.cs:3 | publish `OrderPlaced` | shipping Consumers.cs:1 consume queue `ShipIt`',
    ]);
    expect(r.messagingGaps.map((g) => `${g.side} ${g.at.source} ${g.at.line} ${g.reason}`)).toEqual([
      'publisher ordering 4 no binding routes `OrderPaid` to a queue',
    ]);
  });

  it('@Document / [Table] on a client model (client/, dto/) is no store; API test harnesses (api-spec/) are not code', async () => {
    const r = await reportOf({
      accounts: {
        'src/main/java/a/domain/Account.java': '@Document(collection = "accounts")\npublic class Account {}\n',
        'src/main/java/a/Api.java':
          '@RestController\nclass Api {\n  @GetMapping("/accounts/{name}") Object get() { return null; }\n}\n',
      },
      statistics: {
        'src/main/java/s/client/dto/Account.java': '@Document(collection = "accounts")\npublic class Account {}\n',
        'Clients/Dto/Account.cs': '[Table("accounts")]\npublic class Account {}\n',
      },
      qa: { 'api-spec/hooks.js': "axios.get('http://accounts/accounts/demo');\n" },
    });
    expect(r.sharedData).toEqual([]);
    expect(r.table).toEqual([]);
    expect(r.unresolvedCalls).toEqual([]);
  });
});

describe('configuration across repositories names topics too', () => {
  it('a @KafkaListener topic placeholder resolved by the config repository, else by its default, else a dynamic key', async () => {
    const r = await reportOf({
      config: { 'src/main/resources/shared/billing.yml': 'app:\n  topic: invoices\n' },
      billing: {
        'src/main/java/b/Sub.java':
          'class Sub {\n  @KafkaListener(topics = "${app.topic}") void a(String m) {}\n  @KafkaListener(topics = "${other.topic:refunds}") void b(String m) {}\n  @KafkaListener(topics = "${unset.topic}") void c(String m) {}\n}\n',
      },
      orders: {
        'src/pub.ts':
          "await producer.send({ topic: 'invoices', messages });\nawait producer.send({ topic: 'refunds', messages });\n",
      },
    });
    expect(rows(r)).toEqual([
      'orders src/pub.ts:1 | produce Kafka topic `invoices` | billing src/main/java/b/Sub.java:2 consume Kafka topic `invoices`',
      'orders src/pub.ts:2 | produce Kafka topic `refunds` | billing src/main/java/b/Sub.java:3 consume Kafka topic `refunds`',
    ]);
    expect(r.messagingGaps.map((g) => `${g.side} ${g.at.source} ${g.at.line} ${g.reason}`)).toEqual([
      'consumer billing 4 dynamic key: the topic is only known at run time, and a placeholder matches nothing',
    ]);
  });
});

describe('per-function scopes of local variables', () => {
  const orders = {
    'src/app.ts': "const app = express();\napp.get('/api/orders', h);\napp.get('/api/invoices', h);\n",
  };
  it('the same local name in two functions is two values, in every language', async () => {
    const r = await reportOf({
      orders,
      cs: {
        'C.cs':
          'class C {\n  async Task A() { var url = "http://orders/api/orders"; await http.GetAsync(url); }\n  async Task B() { var url = "http://orders/api/invoices"; await http.GetAsync(url); }\n}\n',
      },
      js: {
        'a.js':
          "function a() { const url = 'http://orders/api/orders'; return fetch(url); }\nfunction b() { const url = 'http://orders/api/invoices'; return fetch(url); }\n",
      },
      py: {
        'a.py':
          'def a():\n    url = "http://orders/api/orders"\n    return requests.get(url)\n\ndef b():\n    url = "http://orders/api/invoices"\n    return requests.get(url)\n',
      },
      go: {
        'a.go':
          'package a\nfunc A() { url := "http://orders/api/orders"; http.Get(url) }\nfunc B() { url := "http://orders/api/invoices"; http.Get(url) }\n',
      },
      java: {
        'A.java':
          'class A {\n  Object a() { String url = "http://orders/api/orders"; return restTemplate.getForObject(url, Object.class); }\n  Object b() { String url = "http://orders/api/invoices"; return restTemplate.getForObject(url, Object.class); }\n}\n',
      },
    });
    expect(r.unresolvedCalls).toEqual([]);
    expect(rows(r).map((x) => x.replace(/ \| orders src\/app\.ts:(\d) .*$/, ' -> $1'))).toEqual([
      'cs C.cs:2 | GET orders/api/orders -> 2',
      'cs C.cs:3 | GET orders/api/invoices -> 3',
      'go a.go:2 | GET orders/api/orders -> 2',
      'go a.go:3 | GET orders/api/invoices -> 3',
      'java A.java:2 | GET orders/api/orders -> 2',
      'java A.java:3 | GET orders/api/invoices -> 3',
      'js a.js:1 | GET orders/api/orders -> 2',
      'js a.js:2 | GET orders/api/invoices -> 3',
      'py a.py:3 | GET orders/api/orders -> 2',
      'py a.py:7 | GET orders/api/invoices -> 3',
    ]);
  });
});

describe('deployment configuration', () => {
  it('a context path set by docker-compose environment (SERVER_SERVLET_CONTEXT_PATH) prefixes the service routes', async () => {
    const r = await reportOf({
      deploy: {
        'docker-compose.yml':
          'services:\n  accounts:\n    build: ../accounts\n    environment:\n      SERVER_SERVLET_CONTEXT_PATH: /accounts\n  web:\n    build: ../web\n',
      },
      accounts: {
        'src/main/java/a/Api.java':
          '@RestController\nclass Api {\n  @GetMapping("/{name}") Object get() { return null; }\n}\n',
      },
      web: { 'src/a.ts': "fetch('http://accounts/accounts/demo');\n" },
    });
    expect(rows(r)).toEqual([
      'web src/a.ts:1 | GET accounts/accounts/demo | accounts src/main/java/a/Api.java:3 GET /accounts/{name} (spring)',
    ]);
  });
});

describe('Python blueprints registered from another module', () => {
  it("register_blueprint(bp, url_prefix=…) in another module replaces the blueprint's own prefix", async () => {
    const r = await reportOf({
      shop: {
        'shop/orders.py':
          'from flask import Blueprint\nbp = Blueprint("orders", __name__, url_prefix="/old")\n\n@bp.route("/orders/<int:oid>")\ndef get(oid):\n    pass\n',
        'shop/app.py':
          'from flask import Flask\nfrom shop import orders\napp = Flask(__name__)\napp.register_blueprint(orders.bp, url_prefix="/api/v2")\n',
      },
      web: { 'a.py': 'import requests\nrequests.get("http://shop/api/v2/orders/7")\n' },
    });
    expect(rows(r)).toEqual([
      'web a.py:2 | GET shop/api/v2/orders/7 | shop shop/orders.py:4 GET /api/v2/orders/<int:oid> (flask)',
    ]);
  });
});

describe('Go consumer groups', () => {
  it('sarama group.Consume(ctx, []string{topic}, handler) consumes Kafka topics, not a queue named after ctx', async () => {
    const r = await reportOf({
      producer: {
        'main.go':
          'package main\nfunc main() {\n  producer.SendMessage(&sarama.ProducerMessage{Topic: "orders", Value: v})\n}\n',
      },
      consumer: { 'main.go': 'package main\nfunc run() {\n  group.Consume(ctx, []string{"orders"}, handler)\n}\n' },
    });
    expect(rows(r)).toEqual([
      'producer main.go:3 | produce Kafka topic `orders` | consumer main.go:3 consume Kafka topic `orders`',
    ]);
    expect(r.messagingGaps).toEqual([]);
  });
});
