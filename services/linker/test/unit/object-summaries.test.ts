import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * ADR 0062: classes summarised as what their constructors and methods do, run at each call site of any
 * source with that site's arguments and the instance's fields; configuration paths built from parameters
 * (`config.GetSection(section)["Exchange"]`) resolved in the calling service's own configuration.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

/** A shared messaging library: registration helpers fill static fields from a section their caller names. */
const library = {
  'Messaging/Setup.cs': lines(
    'namespace Shop.Messaging;',
    '',
    'public static class BusSetup',
    '{',
    '    private static string _exchange;',
    '    private static string _queue;',
    '    private static string _key;',
    '',
    '    public static void AddEventPublisher(this IServiceCollection services, IConfiguration config)',
    '    {',
    '        Read(config, "Publisher");',
    '        services.AddSingleton<IEventPublisher>(_ => new EventPublisher("rabbit", _exchange));',
    '    }',
    '',
    '    public static void AddEventHandler(this IServiceCollection services, IConfiguration config)',
    '    {',
    '        Read(config, "Handler");',
    '        services.AddTransient<IEventHandler>(_ => new EventHandler("rabbit", _exchange, _queue, _key));',
    '    }',
    '',
    '    private static void Read(IConfiguration config, string sectionName)',
    '    {',
    '        var section = config.GetSection(sectionName);',
    '        ReadExchange(section);',
    '        _queue = section["Queue"];',
    '        _key = section.GetValue<string>("RoutingKey") ?? "";',
    '    }',
    '',
    '    private static void ReadExchange(IConfigurationSection section)',
    '    {',
    '        _exchange = section["Exchange"];',
    '    }',
    '}',
  ),
  'Messaging/EventPublisher.cs': lines(
    'namespace Shop.Messaging;',
    '',
    'public sealed class EventPublisher : IEventPublisher',
    '{',
    '    private readonly string _exchange;',
    '    private IChannel _channel;',
    '',
    '    public EventPublisher(string host, string exchange) : this(new List<string> { host }, exchange) { }',
    '',
    '    public EventPublisher(IEnumerable<string> hosts, string exchange)',
    '    {',
    '        _exchange = exchange;',
    '        Connect();',
    '    }',
    '',
    '    public Task PublishAsync(string type, object message, string routingKey)',
    '    {',
    '        return _channel.BasicPublishAsync(_exchange, routingKey, false, Props(type), Body(message));',
    '    }',
    '',
    '    private void Connect()',
    '    {',
    '        _channel.ExchangeDeclareAsync(_exchange, "direct", durable: true);',
    '    }',
    '}',
  ),
  'Messaging/EventHandler.cs': lines(
    'namespace Shop.Messaging;',
    '',
    'public class EventHandler : IEventHandler',
    '{',
    '    private readonly string _exchange;',
    '    private readonly string _queueName;',
    '    private readonly string _routingKey;',
    '',
    '    public EventHandler(string host, string exchange, string queueName, string routingKey)',
    '    {',
    '        _exchange = exchange;',
    '        _queueName = queueName;',
    '        _routingKey = routingKey;',
    '    }',
    '',
    '    public void Start(IEventCallback callback)',
    '    {',
    '        Retry(async () =>',
    '        {',
    '            await _channel.ExchangeDeclareAsync(_exchange, "direct", durable: true);',
    '            await _channel.QueueDeclareAsync(_queueName, durable: true);',
    '            await _channel.QueueBindAsync(_queueName, _exchange, _routingKey);',
    '            await _channel.BasicConsumeAsync(_queueName, false, _consumer);',
    '        });',
    '    }',
    '}',
  ),
};

describe('object summaries instantiated at call sites (C#)', () => {
  it('a library publisher and handler registered per service with the section their registration names: the exchange, key and queue each service configures, reported at its own call sites', async () => {
    const r = await reportOf({
      Messaging: library,
      Orders: {
        'Program.cs': lines(
          'var builder = WebApplication.CreateBuilder(args);',
          'builder.Services.AddEventPublisher(builder.Configuration);',
          'var app = builder.Build();',
        ),
        'OrdersController.cs': lines(
          'public class OrdersController : ControllerBase',
          '{',
          '    private readonly IEventPublisher _events;',
          '    public OrdersController(IEventPublisher events) { _events = events; }',
          '',
          '    [HttpPost]',
          '    public async Task Place(Order o)',
          '    {',
          '        await _events.PublishAsync("OrderPlaced", o, "order.placed");',
          '        await _events.PublishAsync("OrderDropped", o, "order.dropped");',
          '    }',
          '}',
        ),
        'appsettings.json': '{ "Publisher": { "Host": "rabbit", "Exchange": "shop" } }\n',
      },
      Billing: {
        'Program.cs': lines(
          'IHost host = Host.CreateDefaultBuilder(args)',
          '    .ConfigureServices((ctx, services) => { services.AddEventHandler(ctx.Configuration); })',
          '    .Build();',
        ),
        'Worker.cs': lines(
          'public class Worker : IEventCallback',
          '{',
          '    private readonly IEventHandler _handler;',
          '    public Worker(IEventHandler handler) { _handler = handler; }',
          '    public void Run() { _handler.Start(this); }',
          '}',
        ),
        'appsettings.json':
          '{ "Handler": { "Exchange": "shop", "Queue": "billing-q", "RoutingKey": "order.placed" } }\n',
      },
      // The queue and key come from the deployment (`Handler__Queue`), over the file's own values.
      Audit: {
        'Program.cs': lines(
          'IHost host = Host.CreateDefaultBuilder(args)',
          '    .ConfigureServices((hostContext, services) => services.AddEventHandler(hostContext.Configuration))',
          '    .Build();',
        ),
        'AuditWorker.cs': lines(
          'public class AuditWorker : IEventCallback',
          '{',
          '    IEventHandler _handler;',
          '    public AuditWorker(IEventHandler handler) { _handler = handler; }',
          '    public void Go() { _handler.Start(this); }',
          '}',
        ),
        'appsettings.json': '{ "Handler": { "Exchange": "shop", "Queue": "unused", "RoutingKey": "unused" } }\n',
      },
      deploy: {
        'docker-compose.yml': lines(
          'services:',
          '  audit:',
          '    build: ../Audit',
          '    environment:',
          '      - Handler__Queue=audit-q',
          '      - Handler__RoutingKey=order.dropped',
        ),
      },
    });
    // Direct exchange: each queue gets only the key it is bound with.
    expect(rows(r)).toEqual([
      'Orders OrdersController.cs:9 | publish `shop` / `order.placed` | Billing Worker.cs:5 consume queue `billing-q`',
      'Orders OrdersController.cs:10 | publish `shop` / `order.dropped` | Audit AuditWorker.cs:5 consume queue `audit-q`',
    ]);
    // The library's own run-time names are its users' now: no gap at the library.
    expect(gaps(r)).toEqual([]);
  });

  it('a summarised class created directly with configuration values; without a registration or creation nothing is instantiated', async () => {
    const r = await reportOf({
      Messaging: library,
      Shipping: {
        'Program.cs': lines(
          'var builder = WebApplication.CreateBuilder(args);',
          'var publisher = new EventPublisher(builder.Configuration["Bus:Host"], builder.Configuration["Bus:Exchange"]);',
          'app.MapPost("/ship", () => publisher.PublishAsync("Shipped", new { }, "shipped"));',
        ),
        'appsettings.json': '{ "Bus": { "Host": "rabbit", "Exchange": "shop" } }\n',
      },
      Billing: {
        'Program.cs': lines('services.AddEventHandler(configuration);', 'handler.Start(this);'),
        'appsettings.json': '{ "Handler": { "Exchange": "shop", "Queue": "billing-q", "RoutingKey": "shipped" } }\n',
      },
      // Calls a method of the same name without ever registering or creating the library's classes.
      Other: {
        'Program.cs': lines('var other = new Thing();', 'other.PublishAsync("X", x, "shipped");'),
      },
    });
    expect(rows(r)).toEqual([
      'Shipping Program.cs:3 | publish `shop` / `shipped` | Billing Program.cs:2 consume queue `billing-q`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('Python keyword arguments bind parameters by name', () => {
  it('wrappers, publish wrappers and return summaries called with keyword arguments, in any order; a keyword the function lacks is another function', async () => {
    const r = await reportOf({
      shop: {
        'shop/client.py': lines(
          'import os',
          'import requests',
          '',
          'BASE = os.environ.get("ORDERS_URL", "http://orders:8080")',
          '',
          'def get_order(path, params=None):',
          '    return requests.get(url=BASE + path, params=params)',
          '',
          'def order_url(base, order_id, suffix=""):',
          '    return base + "/orders/" + str(order_id) + suffix',
        ),
        'shop/bus.py': lines(
          'import pika',
          '',
          'class Bus:',
          '    def publish(self, exchange, routing_key, body):',
          '        self.channel.basic_publish(exchange=exchange, routing_key=routing_key, body=body)',
        ),
        'shop/main.py': lines(
          'import requests',
          'from shop.client import get_order, order_url',
          'from shop.bus import Bus',
          '',
          'def run(bus):',
          '    get_order(path="/orders/2")',
          '    requests.delete(order_url(order_id=3, base="http://orders:8080"))',
          '    bus.publish(routing_key="order.shipped", exchange="shop", body=b"x")',
          '    get_order(route="/orders/4")',
        ),
      },
      orders: {
        'server.py': lines(
          'import pika',
          'from flask import Flask',
          'app = Flask(__name__)',
          '',
          '@app.route("/orders/<int:id>", methods=["GET", "DELETE"])',
          'def one(id): pass',
          '',
          'ch = pika.BlockingConnection().channel()',
          'ch.exchange_declare(exchange="shop", exchange_type="direct")',
          'ch.queue_bind(queue="shipped", exchange="shop", routing_key="order.shipped")',
          'ch.basic_consume(queue="shipped", on_message_callback=None)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop shop/main.py:6 | GET orders/orders/2 | orders server.py:5 GET /orders/<int:id> (flask)',
      'shop shop/main.py:7 | DELETE orders/orders/{} | orders server.py:5 DELETE /orders/<int:id> (flask)',
      'shop shop/main.py:8 | publish `shop` / `order.shipped` | orders server.py:11 consume queue `shipped`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('browser code: an empty base URL is the page’s own origin', () => {
  const angular = {
    'package.json': '{ "dependencies": { "@angular/core": "^17.0.0" } }\n',
    'src/environments/environment.ts': 'export const environment = { backend_url: "http://gateway:8081/api" };\n',
    'src/app/orders.service.ts': lines(
      "import { environment } from '../environments/environment';",
      '',
      'export class OrdersService {',
      '  constructor(private http: HttpClient) {}',
      '  list() { return this.http.get(`${this.base()}/orders`); }',
      '  base() { return environment.backend_url ? environment.backend_url : ""; }',
      '}',
    ),
  };
  const services = {
    gateway: {
      'src/main/java/gw/OrdersGateway.java': lines(
        'package gw;',
        'import org.springframework.web.bind.annotation.*;',
        '@RestController',
        '@RequestMapping("/api")',
        'public class OrdersGateway {',
        '  @GetMapping("/orders") public String all() { return ""; }',
        '}',
      ),
    },
    orders: {
      'app.py': lines('from flask import Flask', 'app = Flask(__name__)', '', '@app.get("/orders")', 'def all(): pass'),
    },
  };

  it('both alternatives of `base ? base : ""`: the configured base reaches the gateway; the page-relative one is not given to a backend the browser cannot reach', async () => {
    const r = await reportOf({ web: angular, ...services });
    expect(rows(r)).toEqual([
      'web src/app/orders.service.ts:5 | GET gateway/api/orders | gateway src/main/java/gw/OrdersGateway.java:6 GET /api/orders (spring)',
    ]);
    expect(unresolved(r)).toEqual([
      "web src/app/orders.service.ts:5 GET /orders — dynamic URL: relative to the page's own origin, and no attached source serves the page (no route, proxy, image or deployment of `web`); served by `orders`, which a browser reaches only through the page's server",
    ]);
  });

  it('a page with a server of its own (its image) keeps the relative call, linked as before', async () => {
    const r = await reportOf({
      web: { ...angular, Dockerfile: 'FROM nginx\nCOPY dist /usr/share/nginx/html\n' },
      ...services,
    });
    expect(rows(r)).toEqual([
      'web src/app/orders.service.ts:5 | GET gateway/api/orders | gateway src/main/java/gw/OrdersGateway.java:6 GET /api/orders (spring)',
      'web src/app/orders.service.ts:5 | GET /orders | orders app.py:4 GET /orders (flask)',
    ]);
  });
});

describe('Kotlin Micronaut', () => {
  it('a Kotlin controller implementing a Kotlin api interface called by a Java @Client extending it; a Kotlin @KafkaListener', async () => {
    const r = await reportOf({
      'documents-api': {
        'src/main/kotlin/docs/api/DocumentsOperations.kt': lines(
          'package docs.api',
          '',
          'import io.micronaut.http.annotation.Get',
          '',
          'interface DocumentsOperations {',
          '    @Get("/{policyNumber}")',
          '    fun find(policyNumber: String): Result',
          '}',
        ),
      },
      documents: {
        'src/main/kotlin/docs/DocumentsController.kt': lines(
          'package docs',
          '',
          'import io.micronaut.http.annotation.Controller',
          'import docs.api.DocumentsOperations',
          '',
          '@Controller("/documents")',
          'class DocumentsController(private val repo: Repo) : DocumentsOperations {',
          '    override fun find(policyNumber: String): Result = repo.find(policyNumber)',
          '}',
        ),
        'src/main/kotlin/docs/Listener.kt': lines(
          'package docs',
          '',
          'import io.micronaut.configuration.kafka.annotation.KafkaListener',
          'import io.micronaut.configuration.kafka.annotation.Topic',
          '',
          '@KafkaListener(clientId = "docs", offsetReset = OffsetReset.EARLIEST)',
          'class Listener(private val repo: Repo) {',
          '    @Topic("policy-registered")',
          '    fun on(event: PolicyRegistered) { }',
          '}',
        ),
        'src/main/resources/application.yml': 'micronaut:\n  application:\n    name: documents\n',
      },
      gateway: {
        'src/main/java/gw/DocumentsClient.java': lines(
          'package gw;',
          'import io.micronaut.http.client.annotation.Client;',
          'import docs.api.DocumentsOperations;',
          '@Client(id = "documents", path = "/documents")',
          'public interface DocumentsClient extends DocumentsOperations {',
          '  @Override',
          '  Result find(String policyNumber);',
          '}',
        ),
        'src/main/java/gw/Events.java': lines(
          'package gw;',
          'import io.micronaut.configuration.kafka.annotation.KafkaClient;',
          'import io.micronaut.configuration.kafka.annotation.Topic;',
          '@KafkaClient',
          'public interface Events {',
          '  @Topic("policy-registered")',
          '  void registered(PolicyRegistered e);',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'gateway src/main/java/gw/DocumentsClient.java:6 | GET /documents/{} | documents src/main/kotlin/docs/DocumentsController.kt:8 GET /documents/{policyNumber} (micronaut)',
      'gateway src/main/java/gw/Events.java:6 | produce Kafka topic `policy-registered` | documents src/main/kotlin/docs/Listener.kt:8 consume Kafka topic `policy-registered`',
    ]);
  });
});
