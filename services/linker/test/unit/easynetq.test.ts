import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

// EasyNetQ on RabbitMQ: the exchange of a message type is its type name as EasyNetQ's serializer writes it,
// `Namespace.Type, Assembly` (the assembly: the project declaring the type); a publish's routing key is its
// topic ('' by default); a subscription's queue is `<type name>_<subscriptionId>`, bound with its topics or `#`.
const contracts = {
  'Shop.Contracts.csproj': `<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>`,
  'Model/OrderPlaced.cs': `namespace Shop.Contracts.Model { public class OrderPlaced { public string Id { get; set; } } }`,
  'Model/StockLow.cs': `namespace Shop.Contracts.Model { public class StockLow { public string Sku { get; set; } } }`,
};
const orders = {
  'Orders.csproj': `<Project Sdk="Microsoft.NET.Sdk.Web"><ItemGroup><PackageReference Include="EasyNetQ" Version="7.8.0" /></ItemGroup></Project>`,
  'Controllers/OrdersController.cs': `using EasyNetQ;
using Shop.Contracts.Model;
[ApiController]
[Route("[controller]")]
public class OrdersController : ControllerBase
{
    private readonly IBus _bus;
    public OrdersController(IBus bus) { _bus = bus; }
    [HttpPost]
    public async Task<ActionResult> Post()
    {
        var placed = new OrderPlaced { Id = "1" };
        await _bus.PubSub.PublishAsync(placed);
        await _bus.PubSub.PublishAsync(new StockLow { Sku = "a" }, "stock.eu");
        await _bus.SendReceive.SendAsync("invoices", new OrderPlaced { Id = "1" });
        return Ok();
    }
}`,
};
const worker = {
  'Worker.csproj': `<Project Sdk="Microsoft.NET.Sdk.Worker"></Project>`,
  // EasyNetQ from a global using: the subscription is known by EasyNetQ's own `PubSub` property.
  'GlobalUsings.cs': `global using EasyNetQ;`,
  'Listener.cs': `using Shop.Contracts.Model;
public class Listener : BackgroundService
{
    private readonly IBus _bus;
    public Listener(IBus bus) { _bus = bus; }
    protected override async Task ExecuteAsync(CancellationToken ct)
    {
        await _bus.PubSub.SubscribeAsync<OrderPlaced>(nameof(Listener), OnPlaced, c => { }, ct);
        await _bus.PubSub.SubscribeAsync<StockLow>("restock", OnLow, c => c.WithTopic("stock.us"), ct);
        await _bus.SendReceive.ReceiveAsync<OrderPlaced>("invoices", OnInvoice, ct);
    }
    private Task OnPlaced(OrderPlaced m, CancellationToken ct) => Task.CompletedTask;
    private Task OnLow(StockLow m, CancellationToken ct) => Task.CompletedTask;
    private Task OnInvoice(OrderPlaced m, CancellationToken ct) => Task.CompletedTask;
}`,
};

describe('EasyNetQ', () => {
  it('pub/sub by its naming conventions (type exchange with the assembly, `<type>_<subscriptionId>` queue, topics), and send/receive on a named queue', async () => {
    const r = await reportOf({ contracts, orders, worker });
    expect(rows(r)).toEqual([
      'orders Controllers/OrdersController.cs:13 | publish `Shop.Contracts.Model.OrderPlaced, Shop.Contracts` | worker Listener.cs:8 consume queue `Shop.Contracts.Model.OrderPlaced, Shop.Contracts_Listener`',
      'orders Controllers/OrdersController.cs:15 | publish to queue `invoices` (default exchange) | worker Listener.cs:10 consume queue `invoices`',
    ]);
    // The StockLow publish's topic `stock.eu` matches no binding (the subscription wants `stock.us`).
    expect(gaps(r).filter((g) => g.startsWith('publisher'))).toEqual([
      expect.stringMatching(/^publisher orders Controllers\/OrdersController.cs:14 /),
    ]);
  });

  // Review 26, finding 6: in a file that uses EasyNetQ, only a call on the EasyNetQ bus is an EasyNetQ publish;
  // MediatR's `Publish(new X())` beside it (in-process notifications) is not one.
  it('a file using EasyNetQ and MediatR side by side publishes only the bus messages', async () => {
    const handlers = {
      'Handlers.csproj': `<Project Sdk="Microsoft.NET.Sdk.Web"><ItemGroup><PackageReference Include="EasyNetQ" Version="7.8.0" /><PackageReference Include="MediatR" Version="12.2.0" /></ItemGroup></Project>`,
      'Handlers/PlaceOrderHandler.cs': `using EasyNetQ;
using MediatR;
using Shop.Contracts.Model;
namespace Shop.Handlers;
public class OrderAudited : INotification { }
public class StockChecked : INotification { }
public class PlaceOrderHandler : IRequestHandler<PlaceOrder>
{
    private readonly IMediator _mediator;
    private readonly IPubSub _pubSub;
    public PlaceOrderHandler(IMediator mediator, IPubSub pubSub) { _mediator = mediator; _pubSub = pubSub; }
    public async Task Handle(PlaceOrder cmd, CancellationToken ct)
    {
        await _mediator.Publish(new OrderAudited(), ct);
        await this._pubSub.PublishAsync(new OrderPlaced { Id = cmd.Id }, ct);
    }
}
public class StockWatcher
{
    private readonly IPublisher publisher;
    public StockWatcher(IPublisher publisher) { this.publisher = publisher; }
    public async Task Check(IBus bus)
    {
        await publisher.Publish(new StockChecked());
        await bus.Publish(new StockLow { Sku = "a" });
    }
}
public static class Replay
{
    public static void Main()
    {
        using var hutchBus = RabbitHutch.CreateBus("host=rabbit");
        hutchBus.Publish(new OrderPlaced { Id = "2" });
    }
}`,
    };
    const listener = {
      'Listener.csproj': `<Project Sdk="Microsoft.NET.Sdk.Worker"><ItemGroup><PackageReference Include="EasyNetQ" Version="7.8.0" /></ItemGroup></Project>`,
      'Listener.cs': `using EasyNetQ;
using Shop.Contracts.Model;
public class Listener : BackgroundService
{
    private readonly IBus _bus;
    public Listener(IBus bus) { _bus = bus; }
    protected override async Task ExecuteAsync(CancellationToken ct)
    {
        await _bus.PubSub.SubscribeAsync<OrderPlaced>("audit", OnPlaced, ct);
        await _bus.PubSub.SubscribeAsync<StockLow>("restock", OnLow, ct);
    }
    private Task OnPlaced(OrderPlaced m, CancellationToken ct) => Task.CompletedTask;
    private Task OnLow(StockLow m, CancellationToken ct) => Task.CompletedTask;
}`,
    };
    const r = await reportOf({ contracts, handlers, listener });
    expect(rows(r)).toEqual([
      'handlers Handlers/PlaceOrderHandler.cs:15 | publish `Shop.Contracts.Model.OrderPlaced, Shop.Contracts` | listener Listener.cs:9 consume queue `Shop.Contracts.Model.OrderPlaced, Shop.Contracts_audit`',
      'handlers Handlers/PlaceOrderHandler.cs:25 | publish `Shop.Contracts.Model.StockLow, Shop.Contracts` | listener Listener.cs:10 consume queue `Shop.Contracts.Model.StockLow, Shop.Contracts_restock`',
      'handlers Handlers/PlaceOrderHandler.cs:33 | publish `Shop.Contracts.Model.OrderPlaced, Shop.Contracts` | listener Listener.cs:9 consume queue `Shop.Contracts.Model.OrderPlaced, Shop.Contracts_audit`',
    ]);
    // No EasyNetQ exchange invented for the MediatR notifications (it would be a publish nobody consumes).
    expect(gaps(r)).toEqual([]);
  });
});
