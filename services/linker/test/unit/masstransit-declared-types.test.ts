import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** Message records of a shared project: MassTransit names each type's exchange `Namespace:Type`. */
const contracts = {
  'Messages.cs': lines(
    'namespace Shop.Messages;',
    'public sealed record PlaceOrder(int Id);',
    'public sealed record OrderPlaced(int Id, bool Ok);',
    'public sealed record StockReserved(bool Ok);',
    'public sealed record StockRequested(int Id);',
  ),
};

describe('MassTransit publish sites typed by declarations (issue 20)', () => {
  it('minimal-API lambda and primary-constructor IPublishEndpoint; declared locals with target-typed new; two consumers on one endpoint', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'Program.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'var builder = WebApplication.CreateBuilder(args);',
          'builder.Services.AddMassTransit(x => {',
          '  x.AddConsumer<OrderPlacedConsumer>();',
          '  x.AddConsumer<StockReservedConsumer>();',
          '  x.UsingRabbitMq((context, cfg) => {',
          '    cfg.ReceiveEndpoint("web-results", e => {',
          '      e.ConfigureConsumer<OrderPlacedConsumer>(context);',
          '      e.ConfigureConsumer<StockReservedConsumer>(context);',
          '    });',
          '  });',
          '});',
          'var app = builder.Build();',
          'app.MapPost("orders", async (IPublishEndpoint bus, CancellationToken ct) => {',
          '  PlaceOrder command = new(7);',
          '  await bus.Publish(command, ct);',
          '  return Results.Ok();',
          '});',
          'app.Run();',
        ),
        'Consumers.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'namespace Web.Consumers;',
          'public sealed class OrderPlacedConsumer(IPublishEndpoint publishEndpoint) : IConsumer<OrderPlaced>',
          '{',
          '  public async Task Consume(ConsumeContext<OrderPlaced> context)',
          '  {',
          '    StockRequested request = new(context.Message.Id);',
          '    await publishEndpoint.Publish(request);',
          '  }',
          '}',
          'public sealed class StockReservedConsumer(ILogger<StockReservedConsumer> log) : IConsumer<StockReserved>',
          '{',
          '  public Task Consume(ConsumeContext<StockReserved> context) => Task.CompletedTask;',
          '}',
        ),
      },
      orders: {
        'Program.cs': lines(
          'using MassTransit;',
          'builder.Services.AddMassTransit(x => {',
          '  x.AddConsumer<PlaceOrderConsumer>();',
          '  x.UsingRabbitMq((context, cfg) => cfg.ReceiveEndpoint("orders-place", e => e.ConfigureConsumer<PlaceOrderConsumer>(context)));',
          '});',
        ),
        'PlaceOrderConsumer.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'public sealed class PlaceOrderConsumer(',
          '    OrdersDb db,',
          '    IPublishEndpoint publishEndpoint) : IConsumer<PlaceOrder>',
          '{',
          '  public async Task Consume(ConsumeContext<PlaceOrder> context)',
          '  {',
          '    OrderPlaced result;',
          '    try',
          '    {',
          '      await db.SaveChangesAsync();',
          '      result = new(context.Message.Id, true);',
          '    }',
          '    catch (Exception)',
          '    {',
          '      result = new(context.Message.Id, false);',
          '    }',
          '    await publishEndpoint.Publish(result);',
          '  }',
          '}',
        ),
      },
      stock: {
        'Program.cs': lines(
          'using MassTransit;',
          'builder.Services.AddMassTransit(x => {',
          '  x.AddConsumer<StockConsumer>();',
          '  x.UsingRabbitMq((context, cfg) => cfg.ReceiveEndpoint("stock-requests", e => e.ConfigureConsumer<StockConsumer>(context)));',
          '});',
        ),
        'StockConsumer.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'public class StockConsumer : IConsumer<StockRequested>',
          '{',
          '  private readonly IBus _bus;',
          '  public StockConsumer(IBus bus) { _bus = bus; }',
          '  public async Task Consume(ConsumeContext<StockRequested> context)',
          '  {',
          '    var ok = context.Message.Id > 0;',
          '    StockReserved reply = ok ? new(true) : new(false);',
          '    await _bus.Publish(reply);',
          '  }',
          '}',
        ),
      },
    });
    expect(rows(r).sort()).toEqual([
      'orders PlaceOrderConsumer.cs:19 | publish `Shop.Messages:OrderPlaced` | web Consumers.cs:4 consume queue `web-results`',
      'stock StockConsumer.cs:11 | publish `Shop.Messages:StockReserved` | web Consumers.cs:12 consume queue `web-results`',
      'web Consumers.cs:9 | publish `Shop.Messages:StockRequested` | stock StockConsumer.cs:3 consume queue `stock-requests`',
      'web Program.cs:17 | publish `Shop.Messages:PlaceOrder` | orders PlaceOrderConsumer.cs:5 consume queue `orders-place`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('a parameter of the declared message type is published as that type; a type parameter is no message type', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'Program.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'var app = WebApplication.CreateBuilder(args).Build();',
          'app.MapPost("orders", async (PlaceOrder order, IPublishEndpoint publishEndpoint) => {',
          '  await publishEndpoint.Publish(order);',
          '  return Results.Accepted();',
          '});',
          'public class Relay(IBus bus) {',
          '  public Task Forward<T>(T message) where T : class => bus.Publish(message);',
          '}',
        ),
      },
      orders: {
        'PlaceOrderConsumer.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'public sealed class PlaceOrderConsumer : IConsumer<PlaceOrder> { }',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web Program.cs:5 | publish `Shop.Messages:PlaceOrder` | orders PlaceOrderConsumer.cs:3 consume queue `PlaceOrder`',
    ]);
  });

  it('Send on the endpoint ISendEndpointProvider gives for an address (a setting), from a primary constructor; a top-level typed local', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'Dispatcher.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'public sealed class Dispatcher(ISendEndpointProvider sendEndpointProvider, IConfiguration configuration) {',
          '  public async Task Place(int id) {',
          '    var endpoint = await sendEndpointProvider.GetSendEndpoint(new Uri(configuration["OrdersQueue"]));',
          '    PlaceOrder command = new(id);',
          '    await endpoint.Send(command);',
          '  }',
          '}',
        ),
        'Program.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'var app = WebApplication.CreateBuilder(args).Build();',
          'var bus = app.Services.GetRequiredService<IBus>();',
          'StockRequested request = new(1);',
          'await bus.Publish(request);',
        ),
        'appsettings.json': '{ "OrdersQueue": "queue:orders-place" }\n',
      },
      orders: {
        'Program.cs': lines(
          'using MassTransit;',
          'builder.Services.AddMassTransit(x => x.UsingRabbitMq((context, cfg) =>',
          '  cfg.ReceiveEndpoint("orders-place", e => e.ConfigureConsumer<PlaceOrderConsumer>(context))));',
        ),
        'PlaceOrderConsumer.cs': lines(
          'using MassTransit;',
          'using Shop.Messages;',
          'public sealed class PlaceOrderConsumer : IConsumer<PlaceOrder> { }',
          'public sealed class StockConsumer : IConsumer<StockRequested> { }',
        ),
      },
    });
    expect(rows(r).sort()).toEqual([
      'web Dispatcher.cs:7 | publish `orders-place` | orders PlaceOrderConsumer.cs:3 consume queue `orders-place`',
      'web Program.cs:6 | publish `Shop.Messages:StockRequested` | orders PlaceOrderConsumer.cs:4 consume queue `Stock`',
    ]);
  });
});
