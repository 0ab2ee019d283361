import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

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
