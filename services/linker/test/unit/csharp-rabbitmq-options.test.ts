import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

// RabbitMQ.Client 7 (async API) with the queue name in appsettings.json, read through the options pattern:
// `Configure<RabbitMqOptions>(GetSection(RabbitMqOptions.SectionName))` in Program.cs, the constant in the
// options class, and `options.Value.QueueName` in a class with a primary constructor in another project.
const options = (ns: string): string => `namespace ${ns}.Options;
public class RabbitMqOptions
{
    public const string SectionName = "RabbitMQ";
    public string HostName { get; set; } = string.Empty;
    public string QueueName { get; set; } = string.Empty;
}`;
const program = (ns: string, extra: string): string => `using ${ns}.Options;
var builder = WebApplication.CreateBuilder(args);
builder.Services.Configure<RabbitMqOptions>(builder.Configuration.GetSection(RabbitMqOptions.SectionName));
${extra}
var app = builder.Build();
app.Run();`;
const settings = `{
  "RabbitMQ": {
    "HostName": "localhost",
    "QueueName": "check_product_queue"
  }
}`;

const orders = {
  'Orders.Infrastructure/Options/RabbitMqOptions.cs': options('Orders'),
  'Orders.Infrastructure/RabbitMqPublisher.cs': `using Microsoft.Extensions.Options;
using RabbitMQ.Client;
namespace Orders.Infrastructure;
public class RabbitMqPublisher(IOptions<RabbitMqOptions> options) : IQueuePublisher
{
    private IChannel? _channel;
    public async Task PublishAsync(byte[] body, CancellationToken cancellationToken = default)
    {
        await _channel.BasicPublishAsync(
            exchange: string.Empty,
            routingKey: options.Value.QueueName,
            mandatory: true,
            body: body,
            cancellationToken: cancellationToken);
    }
}`,
  'Orders.Web/Program.cs': program('Orders', 'builder.Services.AddSingleton<IQueuePublisher, RabbitMqPublisher>();'),
  'Orders.Web/appsettings.json': settings,
};
const products = {
  'Products.Infrastructure/Options/RabbitMqOptions.cs': options('Products'),
  'Products.Infrastructure/RabbitMqConsumer.cs': `using Microsoft.Extensions.Options;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
namespace Products.Infrastructure;
public class RabbitMqConsumer(IOptions<RabbitMqOptions> options) : BackgroundService
{
    private IChannel? _channel;
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        await _channel.QueueDeclareAsync(queue: options.Value.QueueName, durable: false, exclusive: false, autoDelete: false);
        var consumer = new AsyncEventingBasicConsumer(_channel);
        await _channel.BasicConsumeAsync(options.Value.QueueName, autoAck: false, consumer: consumer);
    }
}`,
  'Products.Web/Program.cs': program('Products', 'builder.Services.AddHostedService<RabbitMqConsumer>();'),
  'Products.Web/appsettings.json': settings,
};

describe('C#: RabbitMQ names from the options pattern', () => {
  it('`routingKey: options.Value.QueueName` is the bound section`s key, `exchange: string.Empty` the default exchange', async () => {
    const r = await reportOf({ orders, products });
    expect(rows(r)).toEqual([
      'orders Orders.Infrastructure/RabbitMqPublisher.cs:9 | publish to queue `check_product_queue` (default exchange) | products Products.Infrastructure/RabbitMqConsumer.cs:12 consume queue `check_product_queue`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
