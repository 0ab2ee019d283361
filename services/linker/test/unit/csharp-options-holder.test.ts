import { describe, expect, it } from 'vitest';
import { reportOf, rows } from '../support/in-memory-report';

// A BFF binds AppSettings to the configuration's root, keeps `options.Value` in a field and builds URLs from
// `_settings.PopularProductsApiUrl` through a static URL builder; compose sets that setting to a service's
// host. Two services serve the same path: only the host tells which one is called.
const bff = {
  'AppSettings.cs': `namespace Bff { public class AppSettings { public string PopularProductsApiUrl { get; set; } } }`,
  'Startup.cs': `namespace Bff {
  public class Startup {
    public void ConfigureServices(IServiceCollection services) { services.Configure<AppSettings>(Configuration); }
  }
}`,
  'Infrastructure/API.cs': `namespace Bff {
  public static class API {
    public static class PopularProducts {
      public static string GetProducts(string baseUri, string version) => $"{baseUri}/{version}/products";
    }
  }
}`,
  'Controllers/ProductsController.cs': `using Microsoft.Extensions.Options;
namespace Bff.Controllers {
  public class ProductsController : ControllerBase {
    private const string VERSION_API = "v1";
    private readonly AppSettings _settings;
    private readonly IHttpClientFactory _httpClientFactory;
    public ProductsController(IOptions<AppSettings> options, IHttpClientFactory httpClientFactory) {
      _settings = options.Value;
      _httpClientFactory = httpClientFactory;
    }
    public async Task<string> Landing() {
      var client = _httpClientFactory.CreateClient("gw");
      return await client.GetStringAsync(API.PopularProducts.GetProducts(_settings.PopularProductsApiUrl, VERSION_API));
    }
  }
}`,
};
const server = `package main

import "net/http"

func main() {
	http.HandleFunc("/v1/products", nil)
}
`;

const deploy = {
  'docker-compose.yml': `services:
  bff:
    build:
      context: .
      dockerfile: bff/Dockerfile
    environment:
      - PopularProductsApiUrl=http://popular-product.api
  popular-product.api:
    build:
      context: .
      dockerfile: popular/Dockerfile
  catalog:
    build: catalog
`,
};

describe('C#: a field holding IOptions<T>.Value', () => {
  it('`_settings.X` after `_settings = options.Value` is the bound setting, so its deployed host picks the service', async () => {
    const r = await reportOf({ bff, popular: { 'main.go': server }, catalog: { 'main.go': server }, deploy });
    expect(rows(r)).toEqual([
      'bff Controllers/ProductsController.cs:13 | GET popular-product.api/v1/products | popular main.go:6 ANY /v1/products (net/http)',
    ]);
  });
});
