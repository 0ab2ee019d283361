import { describe, expect, it } from 'vitest';
import { addressExchange, endpointName } from '../../src/domain/bus';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** A shop whose bus configuration sets MassTransit topology from its settings (issue 20). */
const contracts = {
  'Contracts/Alerts.cs': lines(
    'namespace Shop.Contracts',
    '{',
    '  public interface IAlert { string Channel { get; set; } }',
    '  public class Invoice { public int Id { get; set; } }',
    '}',
  ),
};

describe('MassTransit bus topology from the bus configurator (issue 20)', () => {
  it('SetEntityName/ExchangeType/UseRoutingKeyFormatter on the publisher; ReceiveEndpoint + Bind from settings; configurator calls are no publish sites', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'Startup.cs': lines(
          'using MassTransit;',
          'using Shop.Contracts;',
          'public class Startup {',
          '  public void ConfigureServices(IServiceCollection services) {',
          '    services.AddMassTransit(x => {',
          '      x.UsingRabbitMq((context, cfg) => {',
          '        cfg.Message<IAlert>(e => e.SetEntityName(Configuration["AlertExchange"]));',
          '        cfg.Publish<IAlert>(e => e.ExchangeType = ExchangeType.Topic);',
          '        cfg.Send<IAlert>(e => { e.UseRoutingKeyFormatter(ctx => ctx.Message.Channel); });',
          '      });',
          '    });',
          '  }',
          '}',
        ),
        'AlertController.cs': lines(
          'using MassTransit;',
          'using Shop.Contracts;',
          'public class AlertController {',
          '  private readonly IBus _bus;',
          '  public async Task Post(string channel) {',
          '    await _bus.Publish<IAlert>(new { Channel = channel });',
          '  }',
          '}',
        ),
        'appsettings.json': '{ "AlertExchange": "alerts" }\n',
      },
      sms: {
        'Program.cs': lines(
          'using MassTransit;',
          'services.AddMassTransit(x => {',
          '  x.AddConsumer<SmsConsumer>();',
          '  x.UsingRabbitMq((context, cfg) => {',
          '    cfg.ReceiveEndpoint(configuration["Queue"], e => {',
          '      e.ConfigureConsumeTopology = false;',
          '      e.ConfigureConsumer<SmsConsumer>(context);',
          '      e.Bind(configuration["Exchange"], b => {',
          '        b.RoutingKey = configuration["Key"];',
          '        b.ExchangeType = ExchangeType.Topic;',
          '      });',
          '    });',
          '  });',
          '});',
        ),
        'SmsConsumer.cs': lines(
          'using MassTransit;',
          'using Shop.Contracts;',
          'public class SmsConsumer : IConsumer<IAlert> { }',
        ),
        'appsettings.json': '{ "Queue": "sms-alerts", "Exchange": "alerts", "Key": "sms" }\n',
      },
    });
    // The publish at Startup.cs:8 (`cfg.Publish<IAlert>(e => …)`) is topology, not a message; the key is set per
    // message, so every binding of the topic exchange may receive it.
    expect(rows(r)).toEqual([
      'web AlertController.cs:6 | publish `alerts` / `{}` | sms SmsConsumer.cs:3 consume queue `sms-alerts`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('without the routing-key formatter the empty key reaches no topic binding `sms` of the renamed exchange', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'Startup.cs': lines(
          'using MassTransit;',
          'services.AddMassTransit(x => x.UsingRabbitMq((context, cfg) => {',
          '  cfg.Message<IAlert>(e => e.SetEntityName("alerts"));',
          '  cfg.Publish<IAlert>(e => e.ExchangeType = ExchangeType.Topic);',
          '}));',
        ),
        'AlertController.cs': lines(
          'using MassTransit;',
          'public class AlertController {',
          '  private readonly IBus _bus;',
          '  public async Task Post() { await _bus.Publish<IAlert>(new { Channel = "sms" }); }',
          '}',
        ),
      },
      sms: {
        'Program.cs': lines(
          'using MassTransit;',
          'services.AddMassTransit(x => x.UsingRabbitMq((context, cfg) => {',
          '  cfg.ReceiveEndpoint("sms-alerts", e => {',
          '    e.ConfigureConsumer<SmsConsumer>(context);',
          '    e.Bind("alerts", b => { b.RoutingKey = "sms"; b.ExchangeType = ExchangeType.Topic; });',
          '  });',
          '}));',
        ),
        'SmsConsumer.cs': lines('using MassTransit;', 'public class SmsConsumer : IConsumer<IAlert> { }'),
      },
    });
    expect(rows(r)).toEqual([]);
  });
});

describe('MassTransit configurator calls inside the bus factory (issue 20)', () => {
  it('cfg.Publish<T>(e => { … }) inside UsingRabbitMq is topology, whatever it sets; a publish with a lambda elsewhere is a message', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'Startup.cs': lines(
          'using MassTransit;',
          'services.AddMassTransit(x => x.UsingRabbitMq((context, cfg) => {',
          '  cfg.Publish<Invoice>(e => { e.Lazy = true; });',
          '}));',
        ),
        'Billing.cs': lines(
          'using MassTransit;',
          'public class Billing {',
          '  public Task Run(IPublishEndpoint bus) => bus.Publish<Invoice>(new { Id = 1 });',
          '}',
        ),
      },
      billing: {
        'InvoiceConsumer.cs': lines('using MassTransit;', 'public class InvoiceConsumer : IConsumer<Invoice> { }'),
      },
    });
    expect(rows(r)).toEqual([
      'web Billing.cs:3 | publish `Shop.Contracts:Invoice` | billing InvoiceConsumer.cs:2 consume queue `Invoice`',
    ]);
  });
});

describe('MassTransit Send by endpoint convention and endpoint name formatter objects (issue 20)', () => {
  it('EndpointConvention.Map<T>(new Uri(setting)) + bus.Send(new T) reaches the consumer named by KebabCaseEndpointNameFormatter(includeNamespace: true)', async () => {
    const r = await reportOf({
      contracts,
      api: {
        'Startup.cs': lines(
          'using MassTransit;',
          'public class Startup {',
          '  public void ConfigureServices(IServiceCollection services) {',
          '    services.AddMassTransit(x => x.UsingRabbitMq((context, cfg) => { }));',
          '    EndpointConvention.Map<Shop.Contracts.Invoice>(new Uri(configuration["InvoiceQueue"]));',
          '  }',
          '}',
        ),
        'InvoiceController.cs': lines(
          'using MassTransit;',
          'public class InvoiceController {',
          '  private readonly IBus _bus;',
          '  public async Task Post() {',
          '    await _bus.Send(new Invoice { Id = 1 });',
          '  }',
          '}',
        ),
        'appsettings.json': '{ "InvoiceQueue": "queue:billing-consumers-invoice" }\n',
      },
      billing: {
        'Startup.cs': lines(
          'using MassTransit;',
          'services.AddMassTransit(x => {',
          '  x.AddConsumer<InvoiceConsumer>();',
          '  x.UsingRabbitMq((context, cfg) => cfg.ConfigureEndpoints(context, new KebabCaseEndpointNameFormatter(true)));',
          '});',
        ),
        'Consumers/InvoiceConsumer.cs': lines(
          'using MassTransit;',
          'namespace Billing.Consumers',
          '{',
          '  public class InvoiceConsumer : IConsumer<Invoice> { }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'api InvoiceController.cs:5 | publish `billing-consumers-invoice` | billing Consumers/InvoiceConsumer.cs:4 consume queue `billing-consumers-invoice`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('endpoint names with namespace and prefix; endpoint addresses name their exchange', () => {
    expect(endpointName('InvoiceConsumer', 'KebabCase', { namespace: 'Billing.Consumers' })).toBe(
      'billing-consumers-invoice',
    );
    expect(endpointName('InvoiceConsumer', 'SnakeCase', { namespace: 'Billing.Consumers' })).toBe(
      'billing_consumers_invoice',
    );
    expect(endpointName('InvoiceConsumer', 'KebabCase', { prefix: 'Dev' })).toBe('dev-invoice');
    expect(endpointName('InvoiceConsumer', 'Default', { namespace: 'Billing' })).toBe('Billing.Invoice');
    expect(addressExchange('queue:orders')).toBe('orders');
    expect(addressExchange('exchange:orders')).toBe('orders');
    expect(addressExchange('rabbitmq://localhost/shop/orders?durable=true')).toBe('orders');
  });
});

describe('configuration-switched publish sites (issue 20)', () => {
  it('a publish under `if (bool.Parse(configuration["Key"]))` whose key is false in every appsettings file is not deployed; its else branch is', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'AlertController.cs': lines(
          'using MassTransit;',
          'public class AlertController {',
          '  private readonly IBus _bus;',
          '  private readonly IConfiguration _configuration;',
          '  public async Task Post() {',
          '    if (Boolean.Parse(_configuration["UseSns"]))',
          '    {',
          '      await _bus.Publish(new Invoice(), x => x.Headers.Set("k", "v"));',
          '    }',
          '    else',
          '    {',
          '      await _bus.Publish(new Invoice());',
          '    }',
          '    if (_configuration.GetValue<bool>("Audit")) await _bus.Publish(new Invoice());',
          '  }',
          '}',
        ),
        'appsettings.json': '{ "UseSns": "false", "Audit": true }\n',
        'appsettings.Development.json': '{ "UseSns": "false" }\n',
      },
      billing: {
        'InvoiceConsumer.cs': lines('using MassTransit;', 'public class InvoiceConsumer : IConsumer<Invoice> { }'),
      },
    });
    expect(rows(r)).toEqual([
      'web AlertController.cs:12 | publish `Shop.Contracts:Invoice` | billing InvoiceConsumer.cs:2 consume queue `Invoice`',
      'web AlertController.cs:14 | publish `Shop.Contracts:Invoice` | billing InvoiceConsumer.cs:2 consume queue `Invoice`',
    ]);
  });

  it('a switch the settings do not set, or set differently in two files, keeps both branches', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'AlertController.cs': lines(
          'using MassTransit;',
          'public class AlertController {',
          '  private readonly IBus _bus;',
          '  public async Task Post() {',
          '    if (bool.Parse(configuration["UseSns"])) await _bus.Publish(new Invoice());',
          '    if (!bool.Parse(configuration["Other"])) await _bus.Publish(new Invoice());',
          '  }',
          '}',
        ),
        'appsettings.json': '{ "UseSns": "false" }\n',
        'appsettings.Production.json': '{ "UseSns": "true" }\n',
      },
      billing: {
        'InvoiceConsumer.cs': lines('using MassTransit;', 'public class InvoiceConsumer : IConsumer<Invoice> { }'),
      },
    });
    expect(rows(r).length).toBe(2);
  });
});

describe('MassTransit Send through GetSendEndpoint (issue 20)', () => {
  it('queue:, exchange: and rabbitmq:// addresses (literal or a setting) reach the consumer of that ReceiveEndpoint', async () => {
    const r = await reportOf({
      contracts,
      web: {
        'OrdersController.cs': lines(
          'using MassTransit;',
          'public class OrdersController {',
          '  private readonly ISendEndpointProvider _provider;',
          '  private readonly IConfiguration _config;',
          '  public async Task Submit(int id) {',
          '    var endpoint = await _provider.GetSendEndpoint(new Uri("queue:submit-invoice"));',
          '    await endpoint.Send(new Invoice { Id = id });',
          '  }',
          '  public async Task Ship(int id) {',
          '    ISendEndpoint ep = await _provider.GetSendEndpoint(new Uri("rabbitmq://rabbit/shop/ship-invoice?durable=true"));',
          '    await ep.Send<Invoice>(new { Id = id });',
          '  }',
          '  public async Task Audit(int id) {',
          '    await (await _provider.GetSendEndpoint(new Uri(_config["AuditAddress"]))).Send(new Invoice { Id = id });',
          '  }',
          '}',
        ),
        'appsettings.json': '{ "AuditAddress": "exchange:invoice-audit" }\n',
      },
      billing: {
        'Program.cs': lines(
          'using MassTransit;',
          'services.AddMassTransit(x => {',
          '  x.UsingRabbitMq((context, cfg) => {',
          '    cfg.ReceiveEndpoint("submit-invoice", e => e.ConfigureConsumer<SubmitConsumer>(context));',
          '    cfg.ReceiveEndpoint("ship-invoice", e => e.ConfigureConsumer<ShipConsumer>(context));',
          '    cfg.ReceiveEndpoint("invoice-audit", e => e.ConfigureConsumer<AuditConsumer>(context));',
          '  });',
          '});',
        ),
        'Consumers.cs': lines(
          'using MassTransit;',
          'public class SubmitConsumer : IConsumer<Invoice> { }',
          'public class ShipConsumer : IConsumer<Invoice> { }',
          'public class AuditConsumer : IConsumer<Invoice> { }',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web OrdersController.cs:7 | publish `submit-invoice` | billing Consumers.cs:2 consume queue `submit-invoice`',
      'web OrdersController.cs:11 | publish `ship-invoice` | billing Consumers.cs:3 consume queue `ship-invoice`',
      'web OrdersController.cs:14 | publish `invoice-audit` | billing Consumers.cs:4 consume queue `invoice-audit`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
