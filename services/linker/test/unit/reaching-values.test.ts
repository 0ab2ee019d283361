import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

const flowRows = (r: Awaited<ReturnType<typeof reportOf>>): string[] =>
  r.table.filter((t) => t.calls.startsWith('publish')).map((t) => `${t.caller} | ${t.calls} | ${t.servedBy}`);

/**
 * Issue 20, prompted by applications tried blind (ADR 0048): a local variable set in the branches of an
 * `if` is each of those values where it is used (one row per target), a variable set again later is
 * its latest value, and unknown segments of a path keep their place.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const trips = (service: string, base: string) => ({
  [`${service}/TripController.java`]: lines(
    'package trips;',
    'import org.springframework.web.bind.annotation.*;',
    '@RestController',
    `@RequestMapping("${base}")`,
    'public class TripController {',
    '  @PostMapping("/trips") public String add() { return ""; }',
    '  @PutMapping("/trips") public String update() { return ""; }',
    '  @DeleteMapping("/trips/{id}") public String remove(@PathVariable String id) { return ""; }',
    '  @GetMapping("/fares/{route}/{kind}") public String fare(@PathVariable String route, @PathVariable String kind) { return ""; }',
    '}',
  ),
});

describe('values reaching a use: branches, reassignments, unknown segments', () => {
  it('Java: a URL set in both branches of an if links to both services, whatever it held before; a reassigned variable is its latest value', async () => {
    const r = await reportOf({
      admin: {
        'AdminService.java': lines(
          'package admin;',
          'import org.springframework.web.client.RestTemplate;',
          'import org.springframework.http.*;',
          'public class AdminService {',
          '  private RestTemplate restTemplate;',
          '  public void add(Trip t) {',
          '    String url;',
          '    if (t.fast()) {',
          '      url = "http://fast-trips:8080/api/fast/trips";',
          '    } else {',
          '      url = "http://slow-trips:8080/api/slow/trips";',
          '    }',
          '    restTemplate.exchange(url, HttpMethod.POST, null, String.class);',
          '  }',
          '  public void update(Trip t) {',
          '    String url = "";',
          '    if (t.fast()) url = "http://fast-trips:8080/api/fast/trips";',
          '    else url = "http://slow-trips:8080/api/slow/trips";',
          '    restTemplate.exchange(url, HttpMethod.PUT, null, String.class);',
          '  }',
          '  public void remove(String id) {',
          '    String base = "http://fast-trips:8080/api/unused";',
          '    if (id.startsWith("F")) {',
          '      base = "http://fast-trips:8080/api/fast";',
          '    } else {',
          '      base = "http://slow-trips:8080/api/slow";',
          '    }',
          '    restTemplate.exchange(base + "/trips/" + id, HttpMethod.DELETE, null, String.class);',
          '  }',
          '  public void twice(String route, String kind) {',
          '    String url = "http://fast-trips:8080/api/fast/trips";',
          '    restTemplate.exchange(url, HttpMethod.POST, null, String.class);',
          '    url = "http://slow-trips:8080/api/slow/fares/" + route + "/" + kind;',
          '    restTemplate.exchange(url, HttpMethod.GET, null, String.class);',
          '  }',
          '}',
        ),
      },
      'fast-trips': trips('fast', '/api/fast'),
      'slow-trips': trips('slow', '/api/slow'),
    });
    expect(rows(r)).toEqual([
      'admin AdminService.java:13 | POST fast-trips/api/fast/trips | fast-trips fast/TripController.java:6 POST /api/fast/trips (spring)',
      'admin AdminService.java:13 | POST slow-trips/api/slow/trips | slow-trips slow/TripController.java:6 POST /api/slow/trips (spring)',
      'admin AdminService.java:19 | PUT fast-trips/api/fast/trips | fast-trips fast/TripController.java:7 PUT /api/fast/trips (spring)',
      'admin AdminService.java:19 | PUT slow-trips/api/slow/trips | slow-trips slow/TripController.java:7 PUT /api/slow/trips (spring)',
      'admin AdminService.java:28 | DELETE fast-trips/api/fast/trips/{} | fast-trips fast/TripController.java:8 DELETE /api/fast/trips/{id} (spring)',
      'admin AdminService.java:28 | DELETE slow-trips/api/slow/trips/{} | slow-trips slow/TripController.java:8 DELETE /api/slow/trips/{id} (spring)',
      'admin AdminService.java:32 | POST fast-trips/api/fast/trips | fast-trips fast/TripController.java:6 POST /api/fast/trips (spring)',
      'admin AdminService.java:34 | GET slow-trips/api/slow/fares/{}/{} | slow-trips slow/TripController.java:9 GET /api/slow/fares/{route}/{kind} (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('JavaScript: a path set in the branches of an if inside a handler, then given to $.ajax, calls both front-door routes', async () => {
    const r = await reportOf({
      ui: {
        'static/js/book.js': lines(
          '$("#book").click(function () {',
          '  var kind = $("#trip").val().charAt(0);',
          '  var path = "";',
          '  if (kind == "F") {',
          '    path = "/api/fast/trips";',
          '  } else {',
          '    path = "/api/slow/trips";',
          '  }',
          '  $.ajax({ type: "post", url: path, contentType: "application/json" });',
          '});',
        ),
      },
      'fast-trips': trips('fast', '/api/fast'),
      'slow-trips': trips('slow', '/api/slow'),
    });
    expect(rows(r)).toEqual([
      'ui static/js/book.js:9 | POST /api/fast/trips | fast-trips fast/TripController.java:6 POST /api/fast/trips (spring)',
      'ui static/js/book.js:9 | POST /api/slow/trips | slow-trips slow/TripController.java:6 POST /api/slow/trips (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
  it('Python: an if/elif without else keeps the value set before it; an if/elif/else replaces it', async () => {
    const r = await reportOf({
      front: {
        'app.py': lines(
          'import requests',
          '',
          'def fare(kind, item):',
          '    url = "http://fast-trips:8080/api/fast/trips"',
          '    if kind == "slow":',
          '        url = "http://slow-trips:8080/api/slow/trips"',
          '    elif kind == "none":',
          '        url = "http://slow-trips:8080/api/slow/trips"',
          '    return requests.post(url, json=item)',
          '',
          'def drop(kind, trip):',
          '    base = "http://nowhere:8080/api/unused"',
          '    if kind == "fast":',
          '        base = "http://fast-trips:8080/api/fast"',
          '    elif kind == "slow":',
          '        base = "http://slow-trips:8080/api/slow"',
          '    else:',
          '        base = "http://fast-trips:8080/api/fast"',
          '    return requests.delete(base + "/trips/" + trip)',
        ),
      },
      'fast-trips': trips('fast', '/api/fast'),
      'slow-trips': trips('slow', '/api/slow'),
    });
    expect(rows(r)).toEqual([
      'front app.py:9 | POST fast-trips/api/fast/trips | fast-trips fast/TripController.java:6 POST /api/fast/trips (spring)',
      'front app.py:9 | POST slow-trips/api/slow/trips | slow-trips slow/TripController.java:6 POST /api/slow/trips (spring)',
      'front app.py:19 | DELETE fast-trips/api/fast/trips/{} | fast-trips fast/TripController.java:8 DELETE /api/fast/trips/{id} (spring)',
      'front app.py:19 | DELETE slow-trips/api/slow/trips/{} | slow-trips slow/TripController.java:8 DELETE /api/slow/trips/{id} (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('gRPC: a C# server whose base class is imported by `using static` (eShopOnContainers, tried blind)', () => {
  it('class CatalogService : CatalogBase with `using static CatalogApi.Catalog;` serves Catalog; the same base without the import serves nothing', async () => {
    const proto = lines(
      'syntax = "proto3";',
      'package CatalogApi;',
      'service Catalog {',
      '  rpc GetItemById(CatalogItemRequest) returns (CatalogItemResponse);',
      '}',
    );
    const client = {
      'Protos/catalog.proto': proto,
      'Startup.cs': lines(
        'public class Startup {',
        '  public void ConfigureServices(IServiceCollection services) {',
        '    services.AddGrpcClient<Catalog.CatalogClient>(o => o.Address = new Uri("http://catalog-api:81"));',
        '  }',
        '}',
      ),
      'Services/CatalogService.cs': lines(
        'public class CatalogService {',
        '  private readonly Catalog.CatalogClient _client;',
        '  public CatalogService(Catalog.CatalogClient client) { _client = client; }',
        '  public async Task<CatalogItem> Get(int id) => await _client.GetItemByIdAsync(new CatalogItemRequest { Id = id });',
        '}',
      ),
    };
    const server = (imported: boolean) => ({
      'Proto/catalog.proto': proto,
      'Startup.cs': lines('app.UseEndpoints(e => e.MapGrpcService<CatalogService>());'),
      'Grpc/CatalogService.cs': lines(
        'using CatalogApi;',
        ...(imported ? ['using static CatalogApi.Catalog;'] : []),
        'namespace Shop.Catalog.API.Grpc;',
        'public class CatalogService : CatalogBase',
        '{',
        '}',
      ),
    });
    const r = await reportOf({ 'catalog-api': server(true), aggregator: client });
    expect(rows(r)).toEqual([
      'aggregator Services/CatalogService.cs:4 | gRPC CatalogApi.Catalog/GetItemById at `catalog-api` | catalog-api Startup.cs:1 gRPC CatalogApi.Catalog/GetItemById (grpc-dotnet, rpc at catalog-api Proto/catalog.proto:4)',
    ]);
    const without = await reportOf({ 'catalog-api': server(false), aggregator: client });
    expect(rows(without)).toEqual([]);
  });
});

/** A service's Startup subscribing one handler to one message type through the shared bus. */
const subscriber = (message: string, handler: string): string =>
  lines(
    'public class Startup {',
    '  public void Configure(IApplicationBuilder app) {',
    '    var eventBus = app.ApplicationServices.GetRequiredService<IEventBus>();',
    `    eventBus.Subscribe<${message}, ${handler}>();`,
    '  }',
    '}',
  );

describe('message bus: a subscription through a helper keyed by a parameter (eShopOnContainers, tried blind)', () => {
  it('Subscribe<T, TH>() passes GetKey<T>() to a helper that binds the queue with it: each subscribing service receives what is published with that type name', async () => {
    const r = await reportOf({
      bus: {
        'EventBus/RabbitBus.cs': lines(
          'namespace Shop.EventBus;',
          'public class RabbitBus : IEventBus {',
          '  const string EXCHANGE = "shop_bus";',
          '  private readonly ISubscriptions _subs;',
          '  private readonly IModel _channel;',
          '  private string _queue;',
          '  public RabbitBus(ISubscriptions subs, IModel channel, string queue) { _subs = subs; _channel = channel; _queue = queue; }',
          '  public void Publish(IntegrationEvent @event) {',
          '    var key = @event.GetType().Name;',
          '    _channel.ExchangeDeclare(exchange: EXCHANGE, type: "direct");',
          '    _channel.BasicPublish(exchange: EXCHANGE, routingKey: @event.GetType().Name, body: null);',
          '  }',
          '  public void Subscribe<T, TH>() where T : IntegrationEvent {',
          '    var name = _subs.GetKey<T>();',
          '    Bind(name);',
          '    _subs.AddSubscription<T, TH>();',
          '    _channel.BasicConsume(queue: _queue, autoAck: false, consumer: null);',
          '  }',
          '  private void Bind(string name) {',
          '    _channel.QueueBind(queue: _queue, exchange: EXCHANGE, routingKey: name);',
          '  }',
          '}',
        ),
        'EventBus/Subscriptions.cs': lines(
          'public class Subscriptions : ISubscriptions {',
          '  public string GetKey<T>() => typeof(T).Name;',
          '  public void AddSubscription<T, TH>() { }',
          '}',
        ),
      },
      orders: {
        'Startup.cs': subscriber('StockReserved', 'StockReservedHandler'),
        'Handlers/OrderPlacedPublisher.cs': lines(
          'public class Checkout {',
          '  private readonly IEventBus _eventBus;',
          '  public void Place(Order o) { _eventBus.Publish(new OrderPlaced(o.Id)); }',
          '}',
        ),
      },
      stock: {
        'Startup.cs': subscriber('OrderPlaced', 'OrderPlacedHandler'),
        'Handlers/OrderPlacedHandler.cs': lines(
          'public class OrderPlacedHandler {',
          '  private readonly IEventBus _eventBus;',
          '  public Task Handle(OrderPlaced e) { _eventBus.Publish(new StockReserved(e.OrderId)); return Task.CompletedTask; }',
          '}',
        ),
      },
      mail: {
        'Startup.cs': subscriber('OrderPlaced', 'MailHandler'),
      },
    });
    expect(flowRows(r)).toEqual([
      'orders Handlers/OrderPlacedPublisher.cs:3 | publish `shop_bus` / `OrderPlaced` | mail Startup.cs:4 consume queue `<mail>`',
      'orders Handlers/OrderPlacedPublisher.cs:3 | publish `shop_bus` / `OrderPlaced` | stock Startup.cs:4 consume queue `<stock>`',
      'stock Handlers/OrderPlacedHandler.cs:3 | publish `shop_bus` / `StockReserved` | orders Startup.cs:4 consume queue `<orders>`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
