import { describe, expect, it } from 'vitest';
import { reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** A catalog service that registers itself in Consul by name (Steeltoe reads `Consul:Discovery:ServiceName`). */
const catalog = {
  'Program.cs': lines(
    'using Steeltoe.Discovery.Consul;',
    'var builder = WebApplication.CreateBuilder(args);',
    'builder.Services.AddConsulDiscoveryClient();',
    'var app = builder.Build();',
    'app.MapGet("items", () => Results.Ok());',
    'app.MapGet("items/{id}", (int id) => Results.Ok());',
    'app.Run();',
  ),
  'appsettings.json': lines(
    '{',
    '  "Consul": {',
    '    "Host": "localhost",',
    '    // registered under this name',
    '    "Discovery": { "Register": true, "ServiceName": "Catalog-Api" }',
    '  }',
    '}',
  ),
};

describe('service discovery by name in C# (Steeltoe IDiscoveryClient, issue 20)', () => {
  it('an instance Uri from GetInstancesAsync("name"), through a Polly ExecuteAsync lambda, is the base of an HttpClient call', async () => {
    const r = await reportOf({
      catalog,
      cart: {
        'Program.cs': lines(
          'using Polly;',
          'using Steeltoe.Common.Discovery;',
          'var app = WebApplication.CreateBuilder(args).Build();',
          'app.MapGet("cart", async (IHttpClientFactory factory, IDiscoveryClient discoveryClient, ResiliencePipelineProvider<string> provider, CancellationToken ct) => {',
          '  var pipeline = provider.GetPipeline("retry");',
          '  var services = await pipeline',
          '      .ExecuteAsync(async token',
          '          => await discoveryClient.GetInstancesAsync("Catalog-Api", ct));',
          '  var instance = services.FirstOrDefault();',
          '  if (instance is null) return Results.NotFound();',
          '  var endpoint = instance.Uri;',
          '  using var httpClient = factory.CreateClient();',
          '  var items = await pipeline',
          '      .ExecuteAsync(async token',
          '          => await httpClient.GetFromJsonAsync<List<Item>>($"{endpoint}items", ct));',
          '  return Results.Ok(items);',
          '});',
        ),
      },
      orders: {
        'OrdersClient.cs': lines(
          'using Steeltoe.Common.Discovery;',
          'public class OrdersClient {',
          '  private readonly IDiscoveryClient _discovery;',
          '  private readonly HttpClient _http;',
          '  public OrdersClient(IDiscoveryClient discovery, HttpClient http) { _discovery = discovery; _http = http; }',
          '  public async Task<Item?> Get(int id) {',
          '    var instances = _discovery.GetInstances("catalog-api");',
          '    var uri = instances[0].Uri;',
          '    return await _http.GetFromJsonAsync<Item>(new Uri(uri, $"items/{id}"));',
          '  }',
          '}',
        ),
      },
    });
    expect(rows(r).sort()).toEqual([
      'cart Program.cs:15 | GET catalog-api/items | catalog Program.cs:5 GET /items (aspnetcore-minimal)',
      'orders OrdersClient.cs:9 | GET catalog-api/items/{} | catalog Program.cs:6 GET /items/{id} (aspnetcore-minimal)',
    ]);
  });

  it('the registered name picks the service among others serving the same path (Spring Cloud Consul service-name too)', async () => {
    const r = await reportOf({
      catalog,
      stock: {
        'Program.cs': lines('var app = WebApplication.CreateBuilder(args).Build();', 'app.MapGet("items", () => 1);'),
        'application.yml': lines(
          'spring:',
          '  cloud:',
          '    consul:',
          '      discovery:',
          '        service-name: stock-api',
        ),
      },
      cart: {
        'Program.cs': lines(
          'using Steeltoe.Common.Discovery;',
          'app.MapGet("cart", async (HttpClient http, IDiscoveryClient discoveryClient) => {',
          '  var instance = (await discoveryClient.GetInstancesAsync("Stock-Api")).First();',
          '  return await http.GetStringAsync($"{instance.Uri}items");',
          '});',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'cart Program.cs:4 | GET stock-api/items | stock Program.cs:2 GET /items (aspnetcore-minimal)',
    ]);
  });
});
