import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Idioms found by trying the linker on public applications it was not written against (linker-trial):
 * each test is a small application written here the way such code is written, with the exact links
 * and findings expected. services/linker/README.md ("Idioms") maps every idiom to its test.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('JavaScript: request options held in a variable', () => {
  it('var options = { uri, method }; request(options, cb) in several handlers (scoped per function); request.post(options); a bare module.exports URL', async () => {
    const r = await reportOf({
      web: {
        'api/endpoints.js': lines(
          'module.exports = {',
          '  usersUrl: "http://users/users",',
          '  basketUrl: "http://basket:8080/basket",',
          '};',
        ),
        'api/users.js': lines(
          'var request = require("request"), endpoints = require("./endpoints"), app = require("express")();',
          'app.post("/users", function (req, res, next) {',
          '  var options = { uri: endpoints.usersUrl, method: "POST", json: true, body: req.body };',
          '  request(options, function (err, response, body) { res.end(); });',
          '});',
          'app.delete("/users/:id", function (req, res, next) {',
          '  var options = {',
          '    uri: endpoints.usersUrl + "/" + req.params.id,',
          '    method: "DELETE"',
          '  };',
          '  request(options, function (err) { res.end(); });',
          '});',
          'app.get("/basket", function (req, res, next) {',
          '  const opts = { uri: endpoints.basketUrl + "/" + req.query.id };',
          '  request.post(opts, function (err) { res.end(); });',
          '});',
          'module.exports = app;',
        ),
      },
      users: {
        'server.js': lines(
          'const app = require("express")();',
          'app.post("/users", create);',
          'app.delete("/users/:id", remove);',
        ),
      },
      basket: {
        'app.py': lines('@app.route("/basket/<id>", methods=["POST"])', 'def add(id):', '    return ""'),
      },
    });
    expect(rows(r)).toEqual([
      'web api/users.js:4 | POST users/users | users server.js:2 POST /users (express)',
      'web api/users.js:11 | DELETE users/users/{} | users server.js:3 DELETE /users/:id (express)',
      'web api/users.js:15 | POST basket/basket/{} | basket app.py:1 POST /basket/<id> (flask)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Go: gorilla/mux PathPrefix with a handler', () => {
  it('serves everything below the prefix; a route of its own wins; a call with no host is not linked by a prefix alone', async () => {
    const r = await reportOf({
      accounts: {
        'api/transport.go': lines(
          'package api',
          '',
          'func MakeHTTPHandler(e Endpoints) *mux.Router {',
          '\tr := mux.NewRouter()',
          '\tr.Methods("GET").PathPrefix("/accounts").Handler(httptransport.NewServer(e.Get, decodeGet, encode))',
          '\tr.Methods("GET").Path("/accounts/summary").Handler(httptransport.NewServer(e.Summary, decodeGet, encode))',
          '\tr.Methods("DELETE").PathPrefix("/").Handler(httptransport.NewServer(e.Delete, decodeDelete, encode))',
          '\treturn r',
          '}',
        ),
      },
      web: {
        'src/client.ts': lines(
          "const base = 'http://accounts';",
          'export const a = (id: string) => fetch(`${base}/accounts/${id}/cards`);',
          'export const b = () => fetch(`${base}/accounts/summary`);',
          "export const c = (id: string) => fetch(`${base}/cards/${id}`, { method: 'DELETE' });",
          "export const d = (host: string, id: string) => fetch(`http://${host}/cards/${id}`, { method: 'DELETE' });",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/client.ts:2 | GET accounts/accounts/{}/cards | accounts api/transport.go:5 GET /accounts/** (go-kit)',
      'web src/client.ts:3 | GET accounts/accounts/summary | accounts api/transport.go:6 GET /accounts/summary (go-kit)',
      'web src/client.ts:4 | DELETE accounts/cards/{} | accounts api/transport.go:7 DELETE /** (go-kit)',
    ]);
    expect(r.table.map((t) => t.match)).toEqual([
      'host `accounts` + route prefix',
      'host `accounts` + exact path',
      'host `accounts` + route prefix',
    ]);
    expect(unresolved(r)).toEqual([
      'web src/client.ts:5 DELETE /cards/{} — dynamic URL: the host is only known at run time and no other repository serves /cards/{} except through a catch-all prefix, which alone does not tell where the call goes: `accounts` /** (api/transport.go:7)',
    ]);
  });
});

describe('Java: Spring Data REST controllers', () => {
  it('@RepositoryRestController maps @RequestMapping(path, method) routes like @RestController', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/shop/orders/OrdersController.java': lines(
          'package shop.orders;',
          '',
          '@RepositoryRestController',
          'public class OrdersController {',
          '    @RequestMapping(path = "/orders", consumes = MediaType.APPLICATION_JSON_VALUE, method = RequestMethod.POST)',
          '    public @ResponseBody Order newOrder(@RequestBody NewOrder item) { return null; }',
          '}',
        ),
      },
      web: {
        'src/orders.js': lines(
          'const axios = require("axios");',
          'exports.place = (order) => axios.post("http://orders/orders", order);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/orders.js:2 | POST orders/orders | orders src/main/java/shop/orders/OrdersController.java:5 POST /orders (spring)',
    ]);
  });
});

describe('JavaScript: HTTP calls through a helper of the source', () => {
  it('a helper whose call takes its URL from a parameter is called by name from other files; its own dynamic call is dropped; a helper nobody calls stays listed', async () => {
    const r = await reportOf({
      web: {
        'lib/http.js': lines(
          'var request = require("request");',
          'var helpers = {};',
          'helpers.proxyGet = function (url, res, next) {',
          '  request.get(url, function (err, response, body) { res.end(body); });',
          '};',
          'function postJson(path, body) {',
          '  return fetch("http://billing:8080" + path, { method: "POST", body: JSON.stringify(body) });',
          '}',
          'const unused = (u) => fetch(u);',
          'module.exports = { helpers: helpers, postJson: postJson, unused: unused };',
        ),
        'routes/users.js': lines(
          'var helpers = require("../lib/http").helpers, endpoints = require("./endpoints");',
          'app.get("/profile/:id", function (req, res, next) {',
          '  helpers.proxyGet(endpoints.usersUrl + "/" + req.params.id, res, next);',
          '});',
          'app.post("/pay", function (req, res) {',
          '  postJson("/invoices", req.body);',
          '});',
        ),
        'routes/endpoints.js': lines('module.exports = { usersUrl: "http://users/users" };'),
      },
      users: {
        'server.js': lines('const app = require("express")();', 'app.get("/users/:id", show);'),
      },
      billing: {
        'main.go': lines('package main', '', 'func main() {', '\thttp.HandleFunc("POST /invoices", create)', '}'),
      },
    });
    expect(rows(r)).toEqual([
      'web routes/users.js:3 | GET users/users/{} | users server.js:2 GET /users/:id (express)',
      'web routes/users.js:6 | POST billing/invoices | billing main.go:4 POST /invoices (net/http)',
    ]);
    expect(unresolved(r)).toEqual([
      'web lib/http.js:9 GET ${u} — dynamic URL: the URL is only known at run time (`u` is no constant of the source)',
    ]);
  });
});

describe('typed route parameters', () => {
  it('a parameter constrained to digits ({id:int}, <int:id>, {id:\\d+}) fits a number or a run-time value, never a literal word; an optional {id:int?} is a parameter too', async () => {
    const r = await reportOf({
      catalog: {
        'Apis/CatalogApi.cs': lines(
          'public static class CatalogApi',
          '{',
          '    public static void MapCatalogApi(this IEndpointRouteBuilder app)',
          '    {',
          '        var api = app.MapGroup("api/catalog");',
          '        api.MapGet("/items/{id:int}", GetItemById);',
          '        api.MapGet("/items/brand/{brandId:int?}", GetByBrand);',
          '    }',
          '}',
        ),
      },
      reviews: {
        'app.py': lines('@app.route("/reviews/<int:review_id>")', 'def show(review_id):', '    return ""'),
      },
      web: {
        'src/client.ts': lines(
          "const catalog = 'http://catalog/api/catalog';",
          'export const a = (id: number) => fetch(`${catalog}/items/${id}`);',
          'export const b = () => fetch(`${catalog}/items/42`);',
          'export const c = () => fetch(`${catalog}/items/withsemanticrelevance`);',
          'export const d = () => fetch(`${catalog}/items/brand/7`);',
          "export const e = () => fetch('http://reviews/reviews/latest');",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/client.ts:2 | GET catalog/api/catalog/items/{} | catalog Apis/CatalogApi.cs:6 GET /api/catalog/items/{id:int} (aspnetcore-minimal)',
      'web src/client.ts:3 | GET catalog/api/catalog/items/42 | catalog Apis/CatalogApi.cs:6 GET /api/catalog/items/{id:int} (aspnetcore-minimal)',
      'web src/client.ts:5 | GET catalog/api/catalog/items/brand/7 | catalog Apis/CatalogApi.cs:7 GET /api/catalog/items/brand/{brandId:int?} (aspnetcore-minimal)',
    ]);
    expect(unresolved(r)).toEqual([
      'web src/client.ts:4 GET catalog/api/catalog/items/withsemanticrelevance — no matching route: `catalog` serves no GET /api/catalog/items/withsemanticrelevance',
      'web src/client.ts:6 GET reviews/reviews/latest — no matching route: `reviews` serves no GET /reviews/latest',
    ]);
  });
});

describe('C#: URLs built by a helper method and string methods on an interpolated string', () => {
  it('a helper returning an interpolated string is what it returns for the call; .TrimEnd(…) and .ToLowerInvariant() keep the URL', async () => {
    const r = await reportOf({
      shop: {
        'Services/StockClient.cs': lines(
          'public class StockClient(HttpClient http)',
          '{',
          '    private readonly string basePath = "api/stock/";',
          '    public Task<Page?> List(int page, string? kind)',
          '    {',
          '        var uri = ListUri(basePath, page, kind);',
          '        return http.GetFromJsonAsync<Page>(uri);',
          '    }',
          '    public Task<Level?> Level(int id) => http.GetFromJsonAsync<Level>(LevelUri(id));',
          '    public Task<Facets?> Facets(string? qs)',
          '    {',
          "        var uri = $\"{basePath}facets?{qs}\".TrimEnd('&', '?');",
          '        return http.GetFromJsonAsync<Facets>(uri);',
          '    }',
          '    public Task<string> Kinds() => http.GetStringAsync($"{basePath}KINDS/".TrimEnd(\'/\').ToLowerInvariant());',
          '    private static string ListUri(string root, int page, string? kind)',
          '    {',
          '        var filter = kind is null ? "" : $"kind={kind}&";',
          '        return $"{root}items?{filter}page={page}";',
          '    }',
          '    private string LevelUri(int id) => $"{basePath}levels/{id}";',
          '}',
        ),
        'Program.cs': lines(
          'builder.Services.AddHttpClient<StockClient>(c => c.BaseAddress = new("http://stock-api"));',
        ),
      },
      'stock-api': {
        'Apis/StockApi.cs': lines(
          'var api = app.MapGroup("api/stock");',
          'api.MapGet("/items", ListItems);',
          'api.MapGet("/levels/{id:int}", GetLevel);',
          'api.MapGet("/facets", GetFacets);',
          'api.MapGet("/kinds", GetKinds);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop Services/StockClient.cs:7 | GET stock-api/api/stock/items | stock-api Apis/StockApi.cs:2 GET /api/stock/items (aspnetcore-minimal)',
      'shop Services/StockClient.cs:9 | GET stock-api/api/stock/levels/{} | stock-api Apis/StockApi.cs:3 GET /api/stock/levels/{id:int} (aspnetcore-minimal)',
      'shop Services/StockClient.cs:13 | GET stock-api/api/stock/facets | stock-api Apis/StockApi.cs:4 GET /api/stock/facets (aspnetcore-minimal)',
      'shop Services/StockClient.cs:15 | GET stock-api/api/stock/kinds | stock-api Apis/StockApi.cs:5 GET /api/stock/kinds (aspnetcore-minimal)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('a dynamic URL whose host is known', () => {
  it('says the host (and the repository it names) is known and only the path is computed', async () => {
    const r = await reportOf({
      orders: { 'src/app.ts': "const app = express();\napp.get('/orders/:id', h);\n" },
      web: {
        'src/api.ts': lines(
          'export const a = (p: string) => fetch(`http://orders/${p}`);',
          'export const b = (p: string) => fetch(`https://api.example.com/${p}`);',
        ),
      },
    });
    expect(unresolved(r)).toEqual([
      'web src/api.ts:1 GET orders/{} — dynamic URL: the host `orders` is known (`orders`), but the path is only known at run time (every segment is a run-time value)',
      'web src/api.ts:2 GET api.example.com/{} — dynamic URL: the host `api.example.com` is known, but the path is only known at run time (every segment is a run-time value)',
    ]);
  });
});

describe('a literal host that names no attached repository', () => {
  it('is no run-time value: the call is listed as no matching route, naming the host (a service of the application not attached)', async () => {
    const r = await reportOf({
      booking: {
        'src/main/java/booking/BookingService.java': lines(
          'package booking;',
          '',
          '@Service',
          'public class BookingService {',
          '    @Autowired private RestTemplate restTemplate;',
          '    public void book(String id) {',
          '        restTemplate.exchange("http://ts-seat-service:18898/api/v1/seats", HttpMethod.POST, null, Seat.class);',
          '        restTemplate.getForObject("http://ts-user-service:12342/api/v1/users/" + id, User.class);',
          '    }',
          '}',
        ),
      },
      'ts-seat-service': {
        'src/main/java/seat/SeatController.java': lines(
          'package seat;',
          '',
          '@RestController',
          '@RequestMapping("/api/v1/seats")',
          'public class SeatController {',
          '    @PostMapping public Seat create(@RequestBody Seat s) { return null; }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'booking src/main/java/booking/BookingService.java:7 | POST ts-seat-service/api/v1/seats | ts-seat-service src/main/java/seat/SeatController.java:6 POST /api/v1/seats (spring)',
    ]);
    expect(unresolved(r)).toEqual([
      'booking src/main/java/booking/BookingService.java:8 GET ts-user-service/api/v1/users/{} — no matching route: the host `ts-user-service` names no attached repository, and no other repository serves /api/v1/users/{}',
    ]);
  });
});

describe('Java: requests built apart from the call (RequestEntity, Apache HttpClient, java.net.http)', () => {
  it('exchange(request, type) takes the method of RequestEntity.post(uri) / new RequestEntity<>(…, HttpMethod.X, uri); new HttpPost(url) and HttpRequest.newBuilder(…).DELETE() are calls; a getenv(key, default) helper is the variable with its default; a field set from a constructor parameter, used without this.', async () => {
    const r = await reportOf({
      shop: {
        'src/main/java/shop/StockClient.java': lines(
          'package shop;',
          '',
          'public class StockClient {',
          '    private final RestTemplate restTemplate = new RestTemplate();',
          '    private final String base = "http://stock";',
          '',
          '    public Level reserve(Order order) {',
          '        RequestEntity<Order> request = RequestEntity.post(URI.create(base + "/reservations"))',
          '            .contentType(MediaType.APPLICATION_JSON)',
          '            .body(order);',
          '        return restTemplate.exchange(request, Level.class).getBody();',
          '    }',
          '',
          '    public void release(String id) {',
          '        restTemplate.exchange(new RequestEntity<>(HttpMethod.DELETE, URI.create(base + "/reservations/" + id)), Void.class);',
          '    }',
          '}',
        ),
        'src/main/java/shop/LevelHelper.java': lines(
          'package shop;',
          '',
          'public class LevelHelper {',
          '    private final String baseUrl;',
          '    public LevelHelper(String baseUrl) { this.baseUrl = baseUrl; }',
          '    public void touch(String sku) throws Exception { httpClient.execute(new HttpPut(baseUrl + sku)); }',
          '}',
        ),
        'src/main/java/shop/LegacyClient.java': lines(
          'package shop;',
          '',
          'public class LegacyClient {',
          '    private final String url = String.format("http://%s/levels/", getenv("STOCK_HOST", "stock"));',
          '',
          '    private String getenv(String key, String def) {',
          '        String v = System.getenv(key);',
          '        return v == null ? def : v;',
          '    }',
          '',
          '    public void update(String sku, String body) throws Exception {',
          '        HttpPost post = new HttpPost(url + sku);',
          '        post.setEntity(new StringEntity(body));',
          '        httpClient.execute(post);',
          '        HttpRequest req = HttpRequest.newBuilder(URI.create("http://stock/levels/" + sku)).DELETE().build();',
          '        javaClient.send(req, HttpResponse.BodyHandlers.discarding());',
          '        HttpRequest get = HttpRequest.newBuilder().uri(URI.create("http://stock/levels")).GET().build();',
          '        new LevelHelper(url).touch(sku);',
          '    }',
          '}',
        ),
      },
      stock: {
        'src/main/java/stock/Api.java': lines(
          'package stock;',
          '',
          '@RestController',
          'public class Api {',
          '    @PostMapping("/reservations") public Level reserve(@RequestBody Order o) { return null; }',
          '    @DeleteMapping("/reservations/{id}") public void release(@PathVariable String id) {}',
          '    @PostMapping("/levels/{sku}") public void update(@PathVariable String sku) {}',
          '    @DeleteMapping("/levels/{sku}") public void drop(@PathVariable String sku) {}',
          '    @PutMapping("/levels/{sku}") public void touch(@PathVariable String sku) {}',
          '    @GetMapping("/levels") public List<Level> all() { return null; }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop src/main/java/shop/LegacyClient.java:12 | POST stock/levels/{} | stock src/main/java/stock/Api.java:7 POST /levels/{sku} (spring)',
      'shop src/main/java/shop/LegacyClient.java:15 | DELETE stock/levels/{} | stock src/main/java/stock/Api.java:8 DELETE /levels/{sku} (spring)',
      'shop src/main/java/shop/LegacyClient.java:17 | GET stock/levels | stock src/main/java/stock/Api.java:10 GET /levels (spring)',
      // LevelHelper.touch(sku) builds its URL from its parameter: the call is where another class calls it.
      'shop src/main/java/shop/LegacyClient.java:18 | PUT stock/levels/{} | stock src/main/java/stock/Api.java:9 PUT /levels/{sku} (spring)',
      'shop src/main/java/shop/StockClient.java:11 | POST stock/reservations | stock src/main/java/stock/Api.java:5 POST /reservations (spring)',
      'shop src/main/java/shop/StockClient.java:15 | DELETE stock/reservations/{} | stock src/main/java/stock/Api.java:6 DELETE /reservations/{id} (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Java: Spring Data REST repositories', () => {
  it('@RepositoryRestResource exports the collection, item and search resources (path, default plural path, @RestResource path, exported = false), below spring.data.rest.base-path', async () => {
    const r = await reportOf({
      catalog: {
        'src/main/resources/application.properties': 'spring.data.rest.base-path=/api\n',
        'src/main/java/catalog/ProductRepository.java': lines(
          'package catalog;',
          '',
          '@RepositoryRestResource(path = "products", collectionResourceRel = "products")',
          'public interface ProductRepository extends PagingAndSortingRepository<Product, Long> {',
          '    List<Product> findByCategory(@Param("category") String category);',
          '    @RestResource(path = "named")',
          '    Product findByName(@Param("name") String name);',
          '    @RestResource(exported = false)',
          '    void deleteByName(String name);',
          '}',
        ),
        'src/main/java/catalog/CategoryRepository.java': lines(
          'package catalog;',
          '',
          '@RepositoryRestResource',
          'public interface CategoryRepository extends CrudRepository<Category, Long> {}',
        ),
        'src/main/java/catalog/NoteRepository.java': lines(
          'package catalog;',
          '',
          '@RepositoryRestResource(exported = false)',
          'public interface NoteRepository extends CrudRepository<Note, Long> {}',
        ),
      },
      web: {
        'src/client.ts': lines(
          "const base = 'http://catalog/api';",
          'export const a = (c: string) => fetch(`${base}/products/search/findByCategory?category=${c}`);',
          'export const b = (n: string) => fetch(`${base}/products/search/named?name=${n}`);',
          'export const c = (id: string) => fetch(`${base}/products/${id}`, { method: "PATCH" });',
          'export const d = () => fetch(`${base}/categories`, { method: "POST" });',
          'export const e = () => fetch(`${base}/notes`);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/client.ts:2 | GET catalog/api/products/search/findbycategory | catalog src/main/java/catalog/ProductRepository.java:5 GET /api/products/search/findByCategory (spring-data-rest)',
      'web src/client.ts:3 | GET catalog/api/products/search/named | catalog src/main/java/catalog/ProductRepository.java:6 GET /api/products/search/named (spring-data-rest)',
      'web src/client.ts:4 | PATCH catalog/api/products/{} | catalog src/main/java/catalog/ProductRepository.java:3 PATCH /api/products/{id} (spring-data-rest)',
      'web src/client.ts:5 | POST catalog/api/categories | catalog src/main/java/catalog/CategoryRepository.java:3 POST /api/categories (spring-data-rest)',
    ]);
    expect(unresolved(r)).toEqual([
      'web src/client.ts:6 GET catalog/api/notes — no matching route: `catalog` serves no GET /api/notes',
    ]);
  });
});

describe('Python: class attributes read through self', () => {
  it('a publisher class whose exchange and routing key are class constants (self.EXCHANGE, cls.KEY, Publisher.KEY); a Go consumer binds the queue', async () => {
    const r = await reportOf({
      billing: {
        'queueing.py': lines(
          'import json',
          'import pika',
          '',
          'class Publisher:',
          '    EXCHANGE = "shop"',
          '    KIND = "direct"',
          '    ROUTING_KEY = "invoices"',
          '',
          '    def __init__(self, host):',
          '        self._channel = pika.BlockingConnection(pika.ConnectionParameters(host)).channel()',
          '        self._channel.exchange_declare(exchange=self.EXCHANGE, exchange_type=self.KIND, durable=True)',
          '',
          '    def publish(self, msg):',
          '        self._channel.basic_publish(exchange=self.EXCHANGE, routing_key=self.ROUTING_KEY, body=json.dumps(msg))',
          '',
          '    @classmethod',
          '    def refund(cls, channel, msg):',
          '        channel.basic_publish(exchange=Publisher.EXCHANGE, routing_key=cls.REFUNDS, body=msg)',
          '',
          '    REFUNDS = "refunds"',
        ),
      },
      archive: {
        'main.go': lines(
          'package main',
          '',
          'func listen(ch *amqp.Channel) {',
          '\tch.ExchangeDeclare("shop", "direct", true, false, false, false, nil)',
          '\tq, _ := ch.QueueDeclare("invoices", true, false, false, false, nil)',
          '\tch.QueueBind(q.Name, "invoices", "shop", false, nil)',
          '\tr, _ := ch.QueueDeclare("refunds", true, false, false, false, nil)',
          '\tch.QueueBind(r.Name, "refunds", "shop", false, nil)',
          '\tmsgs, _ := ch.Consume("invoices", "", true, false, false, false, nil)',
          '\trefunds, _ := ch.Consume("refunds", "", true, false, false, false, nil)',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'billing queueing.py:14 | publish `shop` / `invoices` | archive main.go:9 consume queue `invoices`',
      'billing queueing.py:18 | publish `shop` / `refunds` | archive main.go:10 consume queue `refunds`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('nginx in front of the services: a UI calls its own origin, nginx proxies by location', () => {
  it('location prefixes with proxy_pass (URI replaces the prefix, no URI keeps it, upstream blocks, ${VAR} hosts from the Dockerfile ENV); AngularJS $http({ url, method })', async () => {
    const r = await reportOf({
      web: {
        Dockerfile: lines(
          'FROM nginx:1.25',
          'ENV ORDERS_HOST=orders \\',
          '    USERS_HOST=users',
          'ENV GREETING hello',
          'COPY default.conf.template /etc/nginx/templates/default.conf.template',
        ),
        'default.conf.template': lines(
          'upstream billing_pool {',
          '    server billing:9000;',
          '}',
          'server {',
          '    listen 8080;',
          '    location / { root /usr/share/nginx/html; }',
          '    # location /api/old/ { proxy_pass http://legacy/; }',
          '    location /api/orders/ {',
          '        proxy_pass http://${ORDERS_HOST}:8080/;',
          '    }',
          '    location /api/users/ { proxy_pass http://${USERS_HOST}:8080/v2/; }',
          '    location /invoices/ { proxy_pass http://billing_pool; }',
          '    location ~ \\.php$ { proxy_pass http://php; }',
          '}',
        ),
        'html/js/app.js': lines(
          "angular.module('shop').controller('c', function ($http) {",
          "  $http({ url: '/api/orders/items/' + id, method: 'GET' }).then(show);",
          "  $http({ url: '/api/users/login', method: 'POST', data: creds });",
          "  $http({ url: '/invoices/' + id, method: 'GET' });",
          "  $http({ url: '/api/orders/nope', method: 'GET' });",
          '});',
        ),
      },
      orders: { 'server.js': lines("const app = require('express')();", "app.get('/items/:id', h);") },
      users: { 'app.py': lines('@app.route("/v2/login", methods=["POST"])', 'def login():', '    return ""') },
      billing: {
        'main.go': lines('package main', '', 'func main() {', '\thttp.HandleFunc("GET /invoices/{id}", h)', '}'),
      },
    });
    expect(rows(r)).toEqual([
      'web html/js/app.js:2 | GET /api/orders/items/{} | orders server.js:2 GET /items/:id (express)',
      'web html/js/app.js:3 | POST /api/users/login | users app.py:1 POST /v2/login (flask)',
      'web html/js/app.js:4 | GET /invoices/{} | billing main.go:4 GET /invoices/{id} (net/http)',
    ]);
    expect(unresolved(r)).toEqual([
      'web html/js/app.js:5 GET /api/orders/nope — no matching route: `web` route `/api/orders/**` (web default.conf.template:8) forwards it to `orders` as /nope, which `orders` does not serve',
    ]);
  });
});

describe('C#: an event bus that routes by the event type name', () => {
  it('PublishAsync(new T(…)), PublishAsync(evt) with evt created as one of two types, the outbox AddAndSaveEventAsync(evt) of a …Event, AddSubscription<TEvent, THandler>()', async () => {
    const r = await reportOf({
      payments: {
        'PaymentWorker.cs': lines(
          'public class PaymentWorker(IEventBus eventBus)',
          '{',
          '    public async Task Handle(OrderReady e)',
          '    {',
          '        IntegrationEvent evt = Approve(e)',
          '            ? new PaymentSucceededIntegrationEvent(e.OrderId)',
          '            : new PaymentFailedIntegrationEvent(e.OrderId);',
          '        await eventBus.PublishAsync(evt);',
          '        await eventBus.PublishAsync(new PaymentAuditedIntegrationEvent(e.OrderId));',
          '        var shipped = new OrderShippedIntegrationEvent(e.OrderId);',
          '        await integrationEventService.AddAndSaveEventAsync(shipped);',
          '        await integrationEventService.AddAndSaveEventAsync(new OrderNote(e.OrderId));',
          '    }',
          '}',
        ),
      },
      ordering: {
        'Extensions.cs': lines(
          'public static class Extensions',
          '{',
          '    public static void AddEventing(this IHostApplicationBuilder builder)',
          '    {',
          '        builder.AddRabbitMqEventBus("eventbus")',
          '            .AddSubscription<PaymentSucceededIntegrationEvent, PaymentSucceededHandler>()',
          '            .AddSubscription<PaymentFailedIntegrationEvent, PaymentFailedHandler>()',
          '            .AddSubscription<OrderShippedIntegrationEvent, OrderShippedHandler>();',
          '    }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'payments PaymentWorker.cs:8 | publish `PaymentSucceededIntegrationEvent` | ordering Extensions.cs:6 consume queue `PaymentSucceededHandler`',
      'payments PaymentWorker.cs:8 | publish `PaymentFailedIntegrationEvent` | ordering Extensions.cs:7 consume queue `PaymentFailedHandler`',
      'payments PaymentWorker.cs:11 | publish `OrderShippedIntegrationEvent` | ordering Extensions.cs:8 consume queue `OrderShippedHandler`',
    ]);
    expect(gaps(r)).toEqual([
      'publisher payments PaymentWorker.cs:9 no binding routes `PaymentAuditedIntegrationEvent` to a queue',
    ]);
  });
});

describe('Go: Kafka topics named by a variable of another package', () => {
  it('sarama.ProducerMessage{Topic: kafka.Topic} sent through Input() in a select; kafka-go ReaderConfig{Topic: events.Orders}; C# Subscribe(const)', async () => {
    const r = await reportOf({
      checkout: {
        'kafka/producer.go': lines('package kafka', '', 'var (', '\tTopic = "orders"', ')'),
        'main.go': lines(
          'package main',
          '',
          'func (cs *checkout) send(ctx context.Context, body []byte) {',
          '\tmsg := sarama.ProducerMessage{',
          '\t\tTopic: kafka.Topic,',
          '\t\tValue: sarama.ByteEncoder(body),',
          '\t}',
          '\tselect {',
          '\tcase cs.producer.Input() <- &msg:',
          '\t}',
          '}',
        ),
      },
      fraud: {
        'events/topics.go': lines('package events', '', 'const Orders = "orders"'),
        'worker.go': lines(
          'package main',
          '',
          'func run() {',
          '\tr := kafka.NewReader(kafka.ReaderConfig{Brokers: brokers, Topic: events.Orders, GroupID: "fraud"})',
          '\tdefer r.Close()',
          '}',
        ),
      },
      accounting: {
        'Consumer.cs': lines(
          'internal class Consumer',
          '{',
          '    private const string TopicName = "orders";',
          '    public Consumer(IConsumer<string, byte[]> consumer) { consumer.Subscribe(TopicName); }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'checkout main.go:5 | produce Kafka topic `orders` | accounting Consumer.cs:4 consume Kafka topic `orders`',
      'checkout main.go:5 | produce Kafka topic `orders` | fraud worker.go:4 consume Kafka topic `orders`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('Python: FastAPI with httpx and aiokafka', () => {
  it('AIOKafkaProducer.send_and_wait(topic, …) and AIOKafkaConsumer(topic, …); an httpx.AsyncClient call to another FastAPI service', async () => {
    const r = await reportOf({
      orders: {
        'app/main.py': lines(
          'import os',
          'import httpx',
          'from aiokafka import AIOKafkaProducer',
          'from fastapi import FastAPI',
          '',
          'app = FastAPI()',
          'INVENTORY_URL = os.getenv("INVENTORY_URL", "http://inventory:8000")',
          'producer = AIOKafkaProducer(bootstrap_servers="kafka:9092")',
          '',
          '@app.post("/orders")',
          'async def create(order: Order):',
          '    async with httpx.AsyncClient() as client:',
          '        await client.post(f"{INVENTORY_URL}/reservations/{order.sku}")',
          '    await producer.send_and_wait("order-created", order.json().encode())',
          '    return order',
        ),
      },
      inventory: {
        'app/api.py': lines(
          'from fastapi import APIRouter',
          '',
          'router = APIRouter(prefix="/reservations")',
          '',
          '@router.post("/{sku}")',
          'async def reserve(sku: str):',
          '    return {}',
        ),
      },
      mailer: {
        'worker.py': lines(
          'from aiokafka import AIOKafkaConsumer',
          '',
          'async def consume():',
          '    consumer = AIOKafkaConsumer("order-created", bootstrap_servers="kafka:9092", group_id="mailer")',
          '    await consumer.start()',
          '    async for msg in consumer:',
          '        print(msg.value)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders app/main.py:13 | POST inventory/reservations/{} | inventory app/api.py:5 POST /reservations/{sku} (fastapi)',
      'orders app/main.py:14 | produce Kafka topic `order-created` | mailer worker.py:4 consume Kafka topic `order-created`',
    ]);
    expect(unresolved(r)).toEqual([]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('Java: URLs built by a helper method of the class', () => {
  it('getServiceUrl("orders") returning "http://" + serviceName is that URL at each call, whatever other calls pass', async () => {
    const r = await reportOf({
      travel: {
        'src/main/java/travel/TravelService.java': lines(
          'package travel;',
          '',
          '@Service',
          'public class TravelService {',
          '    @Autowired private RestTemplate restTemplate;',
          '',
          '    private String getServiceUrl(String serviceName) {',
          '        return "http://" + serviceName;',
          '    }',
          '',
          '    public Order order(String id, HttpEntity<?> entity) {',
          '        String orderServiceUrl = getServiceUrl("orders");',
          '        return restTemplate.exchange(orderServiceUrl + "/api/v1/orders/" + id, HttpMethod.GET, entity, Order.class).getBody();',
          '    }',
          '',
          '    public Seat seat(String id) {',
          '        return restTemplate.getForObject(getServiceUrl("seats") + "/api/v1/seats/" + id, Seat.class);',
          '    }',
          '}',
        ),
      },
      orders: {
        'src/main/java/orders/OrderController.java': lines(
          'package orders;',
          '',
          '@RestController',
          '@RequestMapping("/api/v1/orders")',
          'public class OrderController {',
          '    @GetMapping("/{id}") public Order one(@PathVariable String id) { return null; }',
          '}',
        ),
      },
      seats: {
        'src/main/java/seats/SeatController.java': lines(
          'package seats;',
          '',
          '@RestController',
          'public class SeatController {',
          '    @GetMapping("/api/v1/seats/{id}") public Seat one(@PathVariable String id) { return null; }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'travel src/main/java/travel/TravelService.java:13 | GET orders/api/v1/orders/{} | orders src/main/java/orders/OrderController.java:6 GET /api/v1/orders/{id} (spring)',
      'travel src/main/java/travel/TravelService.java:17 | GET seats/api/v1/seats/{} | seats src/main/java/seats/SeatController.java:5 GET /api/v1/seats/{id} (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('helpers inlined per call (Java, C#)', () => {
  it('a local of the helper that depends on its parameters is bound anew at each call: two calls, two targets', async () => {
    const r = await reportOf({
      gateway: {
        'src/main/java/gw/Routes.java': lines(
          'package gw;',
          '',
          '@Service',
          'public class Routes {',
          '    @Autowired private RestTemplate restTemplate;',
          '',
          '    private String urlOf(String service, String path) {',
          '        String base = "http://" + service + ":8080";',
          '        String full = base + path;',
          '        return full;',
          '    }',
          '',
          '    public Order order() { return restTemplate.getForObject(urlOf("orders", "/api/orders"), Order.class); }',
          '    public Seat seat() { return restTemplate.getForObject(urlOf("seats", "/api/seats"), Seat.class); }',
          '}',
        ),
        'Clients/Catalog.cs': lines(
          'public class Catalog(HttpClient http)',
          '{',
          '    public Task<string> Orders() => http.GetStringAsync(UrlOf("orders", "api/orders"));',
          '    public Task<string> Seats() => http.GetStringAsync(UrlOf("seats", "api/seats"));',
          '    private static string UrlOf(string service, string path)',
          '    {',
          '        var root = $"http://{service}:8080/";',
          '        return root + path;',
          '    }',
          '}',
        ),
      },
      orders: {
        'src/main/java/orders/OrderController.java': lines(
          'package orders;',
          '',
          '@RestController',
          'public class OrderController {',
          '    @GetMapping("/api/orders") public Order all() { return null; }',
          '}',
        ),
      },
      seats: {
        'src/main/java/seats/SeatController.java': lines(
          'package seats;',
          '',
          '@RestController',
          'public class SeatController {',
          '    @GetMapping("/api/seats") public Seat all() { return null; }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'gateway Clients/Catalog.cs:3 | GET orders/api/orders | orders src/main/java/orders/OrderController.java:5 GET /api/orders (spring)',
      'gateway Clients/Catalog.cs:4 | GET seats/api/seats | seats src/main/java/seats/SeatController.java:5 GET /api/seats (spring)',
      'gateway src/main/java/gw/Routes.java:13 | GET orders/api/orders | orders src/main/java/orders/OrderController.java:5 GET /api/orders (spring)',
      'gateway src/main/java/gw/Routes.java:14 | GET seats/api/seats | seats src/main/java/seats/SeatController.java:5 GET /api/seats (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('values passed into a method of another class (one level)', () => {
  it('Java: postResource(uri, body) of another class builds the request from its parameter; convertAndSend(exchange, key) with the key a parameter: each call is the call or publish', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/shop/orders/services/AsyncClient.java': lines(
          'package shop.orders.services;',
          '',
          '@Service',
          'public class AsyncClient {',
          '    @Autowired private RestTemplate restTemplate;',
          '',
          '    public <T, B> T postResource(URI uri, B body, Class<T> type) {',
          '        RequestEntity<B> request = RequestEntity.post(uri).body(body);',
          '        return restTemplate.exchange(request, type).getBody();',
          '    }',
          '}',
        ),
        'src/main/java/shop/orders/events/Events.java': lines(
          'package shop.orders.events;',
          '',
          '@Component',
          'public class Events {',
          '    @Autowired private RabbitTemplate rabbitTemplate;',
          '    public void emit(String routingKey, Object event) {',
          '        rabbitTemplate.convertAndSend("shop", routingKey, event);',
          '    }',
          '}',
        ),
        'src/main/java/shop/orders/web/OrdersController.java': lines(
          'package shop.orders.web;',
          '',
          '@RestController',
          'public class OrdersController {',
          '    private static final String SHIPPING = "http://shipping/shipments";',
          '    @Autowired private AsyncClient client;',
          '    @Autowired private Events events;',
          '',
          '    @PostMapping("/orders")',
          '    public Order create(@RequestBody Order order) {',
          '        Receipt paid = client.postResource(URI.create("http://payment/charges"), order, Receipt.class);',
          '        Shipment s = client.postResource(URI.create(SHIPPING), order, Shipment.class);',
          '        events.emit("order.created", order);',
          '        return order;',
          '    }',
          '}',
        ),
      },
      payment: {
        'src/main/java/shop/payment/PaymentController.java': lines(
          'package shop.payment;',
          '',
          '@RestController',
          'public class PaymentController {',
          '    @PostMapping("/charges") public Receipt charge(@RequestBody Order o) { return null; }',
          '}',
        ),
      },
      shipping: {
        'src/main/java/shop/shipping/ShippingController.java': lines(
          'package shop.shipping;',
          '',
          '@RestController',
          'public class ShippingController {',
          '    @PostMapping("/shipments") public Shipment ship(@RequestBody Order o) { return null; }',
          '',
          '    @RabbitListener(bindings = @QueueBinding(value = @Queue("shipping.orders"), exchange = @Exchange(value = "shop", type = "topic"), key = "order.*"))',
          '    public void onOrder(Order o) { }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/main/java/shop/orders/web/OrdersController.java:11 | POST payment/charges | payment src/main/java/shop/payment/PaymentController.java:5 POST /charges (spring)',
      'orders src/main/java/shop/orders/web/OrdersController.java:12 | POST shipping/shipments | shipping src/main/java/shop/shipping/ShippingController.java:5 POST /shipments (spring)',
      'orders src/main/java/shop/orders/web/OrdersController.java:13 | publish `shop` / `order.created` | shipping src/main/java/shop/shipping/ShippingController.java:7 consume queue `shipping.orders`',
    ]);
    expect(unresolved(r)).toEqual([]);
    expect(gaps(r)).toEqual([]);
  });

  it('Python: client.publish(self.subject, msg) through a wrapper of basic_publish(routing_key=subject); fetch_json(path) of another module built on requests', async () => {
    const r = await reportOf({
      orders: {
        'orders/bus.py': lines(
          'import pika',
          '',
          'class Bus:',
          '    def __init__(self, host):',
          '        self.channel = pika.BlockingConnection(pika.ConnectionParameters(host)).channel()',
          '',
          '    def publish(self, subject, message):',
          '        self.channel.basic_publish(exchange="events", routing_key=subject, body=message)',
        ),
        'orders/catalog.py': lines(
          'import requests',
          '',
          'CATALOG = "http://catalog:5000"',
          '',
          'def fetch_json(path, timeout=3):',
          '    return requests.get(CATALOG + path, timeout=timeout).json()',
        ),
        'orders/service.py': lines(
          'from orders import catalog',
          'from orders.catalog import fetch_json',
          '',
          'class OrderService:',
          '    SUBJECT = "order.paid"',
          '',
          '    def __init__(self, bus):',
          '        self.bus = bus',
          '',
          '    def pay(self, order):',
          '        item = catalog.fetch_json("/items/" + order.item_id)',
          '        stock = fetch_json("/stock")',
          '        self.bus.publish(self.SUBJECT, order.to_json())',
          '        self.bus.publish("order.cancelled", order.to_json())',
        ),
      },
      catalog: {
        'app.py': lines(
          'from flask import Flask',
          'app = Flask(__name__)',
          '',
          '@app.route("/items/<item_id>")',
          'def item(item_id):',
          '    return {}',
          '',
          '@app.route("/stock")',
          'def stock():',
          '    return {}',
        ),
      },
      mailer: {
        'consumer.py': lines(
          'import pika',
          'channel = pika.BlockingConnection(pika.ConnectionParameters("rabbit")).channel()',
          'channel.exchange_declare(exchange="events", exchange_type="topic")',
          'channel.queue_declare(queue="mails")',
          'channel.queue_bind(queue="mails", exchange="events", routing_key="order.paid")',
          'channel.basic_consume(queue="mails", on_message_callback=print)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders orders/service.py:11 | GET catalog/items/{} | catalog app.py:4 GET /items/<item_id> (flask)',
      'orders orders/service.py:12 | GET catalog/stock | catalog app.py:8 GET /stock (flask)',
      'orders orders/service.py:13 | publish `events` / `order.paid` | mailer consumer.py:6 consume queue `mails`',
    ]);
    expect(unresolved(r)).toEqual([]);
    expect(gaps(r)).toEqual([
      'publisher orders orders/service.py:14 no binding routes `events` / `order.cancelled` to a queue',
    ]);
  });
});

describe('Python: aio-pika, directly and through a client class', () => {
  it('declare_exchange / declare_queue variables, exchange.publish(routing_key=…), queue.bind(exchange, key), queue.consume(cb); an unnamed queue is the broker-named queue of its declaration; emit(store, event, msg) and listen(cb, store, event, queue_name=None) wrappers called from another module', async () => {
    const r = await reportOf({
      orders: {
        'app/broker.py': lines(
          'import aio_pika',
          'from aio_pika import Message',
          '',
          'class Broker:',
          '    async def connect(self, url):',
          '        self.connection = await aio_pika.connect_robust(url)',
          '        self.channel = await self.connection.channel()',
          '',
          '    async def emit(self, store: str, event: str, payload: bytes) -> None:',
          '        exchange = await self.channel.declare_exchange(store, type="topic", durable=True)',
          '        await exchange.publish(Message(body=payload), routing_key=event)',
          '',
          '    async def listen(self, handler, store: str, event: str = "#", queue_name: str | None = None) -> None:',
          '        exchange = await self.channel.declare_exchange(store, type="topic", durable=True)',
          '        queue = await self.channel.declare_queue(queue_name, auto_delete=True)',
          '        await queue.bind(exchange, event)',
          '        await queue.consume(handler)',
        ),
        'app/main.py': lines(
          'from app.broker import Broker',
          '',
          'broker = Broker()',
          '',
          'async def startup():',
          '    await broker.listen(on_paid, "SHOP_EVENTS", "payment.done", "orders_payments")',
          '    await broker.listen(on_any, "SHOP_EVENTS")',
          '',
          'async def place(order):',
          '    await broker.emit("SHOP_EVENTS", "order.created", order.json().encode())',
        ),
      },
      payments: {
        'app/worker.py': lines(
          'import aio_pika',
          'from aio_pika import ExchangeType, Message',
          '',
          'async def run(url):',
          '    connection = await aio_pika.connect_robust(url)',
          '    channel = await connection.channel()',
          '    exchange = await channel.declare_exchange("SHOP_EVENTS", ExchangeType.TOPIC)',
          '    queue = await channel.declare_queue(exclusive=True)',
          '    await queue.bind(exchange, routing_key="order.*")',
          '    await queue.consume(on_order)',
          '    await exchange.publish(Message(b"{}"), routing_key="payment.done")',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders app/main.py:10 | publish `SHOP_EVENTS` / `order.created` | payments app/worker.py:10 consume queue `amq.gen@app/worker.py:8`',
      'payments app/worker.py:11 | publish `SHOP_EVENTS` / `payment.done` | orders app/main.py:6 consume queue `orders_payments`',
      'payments app/worker.py:11 | publish `SHOP_EVENTS` / `payment.done` | orders app/main.py:7 consume queue `amq.gen@app/main.py:7`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
