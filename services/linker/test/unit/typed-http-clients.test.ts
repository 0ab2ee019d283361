import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

// Two backends serving the same paths, told apart only by the port each listens on (`UseUrls`), as services
// run side by side on one machine are.
const backend = (name: string, port: number): Record<string, string> => ({
  'Program.cs': `public class Program {
  public static IWebHost BuildWebHost(string[] args) =>
    WebHost.CreateDefaultBuilder(args).UseStartup<Startup>().UseUrls("http://*:${port}").Build();
}`,
  'Controllers/ItemsController.cs': `namespace ${name} {
  [Route("api/[controller]")]
  public class ItemsController : Controller {
    [HttpGet] public IActionResult List() => Ok();
    [HttpGet("{id}")] public IActionResult One(int id) => Ok();
    [HttpPost] public IActionResult Create() => Ok();
  }
}`,
});

// A gateway whose typed client derives from HttpClient through a base class and sets its own BaseAddress in its
// constructor; DI injects it into a controller, which builds each URI from `_client.BaseAddress`.
const gateway = {
  'Program.cs': `public class Program {
  public static IWebHost BuildWebHost(string[] args) =>
    WebHost.CreateDefaultBuilder(args).UseStartup<Startup>().UseUrls("http://*:7000").Build();
}`,
  'Clients/ProtoClient.cs': `using System.Net.Http;
namespace Gw.Clients {
  public class ProtoClient : HttpClient {
    public ProtoClient() { DefaultRequestHeaders.Accept.Clear(); }
  }
}`,
  'Clients/ItemsClient.cs': `using System;
namespace Gw.Clients {
  public class ItemsClient : ProtoClient {
    public ItemsClient() { this.BaseAddress = new Uri("http://localhost:7002/api/items"); }
  }
}`,
  'Clients/NotAClient.cs': `using System;
namespace Gw.Clients {
  public class Holder : Settings {
    public Holder() { BaseAddress = new Uri("http://localhost:7001/api/items"); }
  }
}`,
  'Startup.cs': `public class Startup {
  public void ConfigureServices(IServiceCollection services) {
    services.AddSingleton(new ItemsClient());
  }
}`,
  'Controllers/GatewayController.cs': `using Gw.Clients;
namespace Gw {
  [Route("gw")]
  public class GatewayController : Controller {
    private readonly ItemsClient _client;
    private readonly Holder _holder;
    public GatewayController(ItemsClient client, Holder holder) { _client = client; _holder = holder; }
    [HttpGet("list")]
    public async Task<IActionResult> List(Paging p) {
      var uri = Microsoft.AspNetCore.WebUtilities.QueryHelpers.AddQueryString(_client.BaseAddress.ToString(), p.ToDictionary());
      var r = await _client.GetAsync(uri);
      return Ok();
    }
    [HttpGet("one/{id}")]
    public async Task<IActionResult> One(int id) {
      UriBuilder uriBuilder = new UriBuilder(_client.BaseAddress);
      uriBuilder.Path += "/" + id;
      var r = await _client.GetAsync(uriBuilder.Uri);
      return Ok();
    }
    [HttpPost("create")]
    public async Task<IActionResult> Create() {
      var r = await _client.PostAsync(_client.BaseAddress, null);
      return Ok();
    }
    [HttpGet("other")]
    public async Task<IActionResult> Other() {
      var r = await _client.GetAsync(_holder.BaseAddress);
      return Ok();
    }
  }
}`,
};

describe('C#: a typed client deriving from HttpClient sets its BaseAddress in its constructor', () => {
  it('`_client.BaseAddress` as is, with a query (`AddQueryString`) and with `UriBuilder.Path +=` reach the backend on that port', async () => {
    const r = await reportOf({ gateway, one: backend('One', 7001), two: backend('Two', 7002) });
    expect(rows(r)).toEqual([
      'gateway Controllers/GatewayController.cs:11 | GET localhost/api/items | two Controllers/ItemsController.cs:4 GET /api/Items (aspnetcore-mvc)',
      'gateway Controllers/GatewayController.cs:18 | GET localhost/api/items/{} | two Controllers/ItemsController.cs:5 GET /api/Items/{id} (aspnetcore-mvc)',
      'gateway Controllers/GatewayController.cs:23 | POST localhost/api/items | two Controllers/ItemsController.cs:6 POST /api/Items (aspnetcore-mvc)',
    ]);
    // A class that is no HttpClient (its base is not one) has no base address of a client: the URL stays unknown.
    expect(unresolved(r)).toEqual([
      'gateway Controllers/GatewayController.cs:28 GET ${Holder.BaseAddress} — dynamic URL: the URL is only known at run time (`Holder.BaseAddress` is no constant of the source)',
    ]);
  });

  it('without the listening ports, `localhost` names neither backend: ambiguous', async () => {
    const strip = (b: Record<string, string>): Record<string, string> => ({
      'Controllers/ItemsController.cs': b['Controllers/ItemsController.cs']!,
    });
    const r = await reportOf({ gateway, one: strip(backend('One', 7001)), two: strip(backend('Two', 7002)) });
    expect(rows(r)).toEqual([]);
    expect(unresolved(r).filter((u) => u.includes('ambiguous'))).toHaveLength(3);
  });
});

describe('ASP.NET: the port a service listens on, from its settings', () => {
  const controller = (name: string): Record<string, string> => ({
    'Controllers/ItemsController.cs': backend(name, 0)['Controllers/ItemsController.cs']!,
  });
  const compose = (svc: string, port: number): Record<string, string> => ({
    'docker-compose.yml': `services:
  ${svc}:
    build: ${svc}
    environment:
      - ASPNETCORE_URLS=http://+:${port};https://+:7443
`,
  });
  const kestrel = (port: number): Record<string, string> => ({
    'appsettings.json': `{ "Kestrel": { "Endpoints": { "Http": { "Url": "http://0.0.0.0:${port}" } } } }`,
  });
  const expected = [
    'gateway Controllers/GatewayController.cs:11 -> two Controllers/ItemsController.cs:4 GET /api/Items (aspnetcore-mvc)',
    'gateway Controllers/GatewayController.cs:18 -> two Controllers/ItemsController.cs:5 GET /api/Items/{id} (aspnetcore-mvc)',
    'gateway Controllers/GatewayController.cs:23 -> two Controllers/ItemsController.cs:6 POST /api/Items (aspnetcore-mvc)',
  ];
  const shown = (r: Awaited<ReturnType<typeof reportOf>>): string[] =>
    rows(r).map((x) => x.replace(/ \|.*\| /, ' -> '));

  it('`ASPNETCORE_URLS` of the deployment (several addresses) names the service on a port', async () => {
    const r = await reportOf({
      gateway,
      one: { ...controller('One'), ...kestrel(7001) },
      two: controller('Two'),
      deploy: compose('two', 7002),
    });
    expect(shown(r)).toEqual(expected);
  });

  it('a compose service publishing the port (`"7002:80"`) names the service it runs', async () => {
    const deploy = {
      'docker-compose.yml': `services:
  one:
    build: one
    ports:
      - "7001:80"
  two:
    build: two
    ports:
      - "127.0.0.1:7002:80/tcp"
`,
    };
    const r = await reportOf({ gateway, one: controller('One'), two: controller('Two'), deploy });
    expect(shown(r)).toEqual(expected);
  });

  it("`launchSettings.json`: a `Project` profile's `applicationUrl` names the service; ports two share name neither", async () => {
    const launch = (urls: string): Record<string, string> => ({
      'Properties/launchSettings.json': `{
  "iisSettings": { "iisExpress": { "applicationUrl": "http://localhost:7002/" } },
  "profiles": {
    "IIS Express": { "commandName": "IISExpress" },
    "Api": { "commandName": "Project", "applicationUrl": "${urls}" }
  }
}`,
    });
    const apart = await reportOf({
      gateway,
      one: { ...controller('One'), ...launch('http://localhost:7001') },
      two: { ...controller('Two'), ...launch('https://localhost:7443;http://localhost:7002') },
    });
    expect(shown(apart)).toEqual(expected);
    const shared = await reportOf({
      gateway,
      one: { ...controller('One'), ...launch('https://localhost:7443;http://localhost:7002') },
      two: { ...controller('Two'), ...launch('https://localhost:7443;http://localhost:7002') },
    });
    expect(shown(shared)).toEqual([]);
  });

  it('`Kestrel:Endpoints:*:Url` of `appsettings.json` names the service on a port', async () => {
    const r = await reportOf({
      gateway,
      one: controller('One'),
      two: { ...controller('Two'), ...kestrel(7002) },
      deploy: compose('one', 7001),
    });
    expect(shown(r)).toEqual(expected);
  });
});

// An Angular front end: the gateway's base URL is a DI token's value, injected into the services.
const app = {
  'package.json': `{ "dependencies": { "@angular/core": "4.0.0", "@angular/http": "4.0.0" } }`,
  'src/app/app.module.ts': `import { NgModule } from '@angular/core';
@NgModule({
  providers: [{ provide: 'API_URL', useValue: 'http://localhost:7000/' }, { provide: ITEMS_PATH, useFactory: () => 'gw' }],
})
export class AppModule {}`,
  'src/app/items.service.ts': `import { Injectable, Inject } from '@angular/core';
import { Http } from '@angular/http';
@Injectable()
export class ItemsService extends BaseHttpService {
  private itemsUrl = \`\${this.apiUrl}gw\`;
  constructor(private http: Http, @Inject('API_URL') private apiUrl: string) { super(); }
  list(params: any) { return this.http.get(this.itemsUrl + '/list' + super.getQueryFromObject(params)); }
  one(id: number) { return this.http.get(\`\${this.itemsUrl}/one/\${id}\`); }
}`,
  'src/app/other.service.ts': `import { Injectable, Inject } from '@angular/core';
import { HttpClient } from '@angular/common/http';
@Injectable()
export class OtherService {
  private base: string;
  constructor(private http: HttpClient, @Inject(ITEMS_PATH) path: string) { this.base = 'http://localhost:7000/' + path; }
  create() { return this.http.post(this.base + '/create', {}); }
}`,
};

describe('Angular: a base URL provided under a DI token', () => {
  it("`@Inject(TOKEN)` parameters take the provider's `useValue` (or `useFactory` result), and the port names the gateway", async () => {
    const r = await reportOf({ app, gateway, one: backend('One', 7001), two: backend('Two', 7002) });
    expect(rows(r).filter((x) => x.startsWith('app '))).toEqual([
      'app src/app/items.service.ts:7 | GET localhost/gw/list | gateway Controllers/GatewayController.cs:8 GET /gw/list (aspnetcore-mvc)',
      'app src/app/items.service.ts:8 | GET localhost/gw/one/{} | gateway Controllers/GatewayController.cs:14 GET /gw/one/{id} (aspnetcore-mvc)',
      'app src/app/other.service.ts:7 | POST localhost/gw/create | gateway Controllers/GatewayController.cs:21 POST /gw/create (aspnetcore-mvc)',
    ]);
  });

  it('two providers giving one token different values: no value', async () => {
    const twice = {
      ...app,
      'src/app/admin.module.ts': `@NgModule({ providers: [{ provide: 'API_URL', useValue: 'http://localhost:7001/' }] })
export class AdminModule {}`,
    };
    const r = await reportOf({ app: twice, gateway });
    expect(rows(r).filter((x) => x.startsWith('app src/app/items'))).toEqual([]);
  });
});

// An eShop-style event bus of the project's own (RabbitMQ.Client, no MassTransit): the routing key is the
// event's type name, read over two lines.
const bus = {
  'EventBus/RabbitMQEventBus.cs': `using RabbitMQ.Client;
namespace Shop.EventBus {
  public class RabbitMQEventBus : IEventBus {
    const string BROKER_NAME = "shop_event_bus";
    public void Publish(IntegrationEvent @event) {
      using (var channel = _connection.CreateModel()) {
        var eventName = @event.GetType()
            .Name;
        channel.ExchangeDeclare(exchange: BROKER_NAME, type: "fanout");
        policy.Execute(() => {
          channel.BasicPublish(exchange: BROKER_NAME, routingKey: eventName, basicProperties: null, body: body);
        });
      }
    }
  }
}`,
};
const orders = {
  'Events/OrderPlaced.cs': `namespace Orders.Events { public class OrderPlaced : IntegrationEvent { } }`,
  'Controllers/OrdersController.cs': `namespace Orders {
  public class OrdersController : Controller {
    private readonly IEventBus _eventBus;
    public void Place() {
      var evt = new OrderPlaced();
      _eventBus.Publish(evt);
    }
  }
}`,
};

describe('C#: a project event bus publishing by the event type name', () => {
  it('one publisher gap at the call site, keyed by the event type, and no MassTransit-style exchange', async () => {
    const r = await reportOf({ bus, orders });
    expect(r.messagingGaps.map((g) => `${g.at.source} ${g.at.file}:${g.at.line} ${g.what}`)).toEqual([
      'orders Controllers/OrdersController.cs:6 publish `shop_event_bus` / `OrderPlaced`',
    ]);
    expect(gaps(r)).toHaveLength(1);
  });
});
