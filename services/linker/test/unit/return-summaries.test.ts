import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20, prompted by eShopOnContainers tried blind: a URL returned by a method of another class in
 * another file (`API.Basket.GetBasket(baseUri, id)`) is that method's return summary instantiated with
 * the call's arguments, to any depth within the budget.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const basketApi = {
  'Controllers/BasketController.cs': lines(
    'using Microsoft.AspNetCore.Mvc;',
    '[Route("api/v1/[controller]")]',
    '[ApiController]',
    'public class BasketController : ControllerBase',
    '{',
    '    [HttpGet("{id}")] public IActionResult Get(string id) => Ok();',
    '    [HttpPost] public IActionResult Update() => Ok();',
    '    [HttpPost("checkout")] public IActionResult Checkout() => Ok();',
    '}',
  ),
};

describe('return-value summaries: URLs built by methods of other classes and files', () => {
  it('C#: static helpers of a nested class in another file, called with a base URL from IOptions<AppSettings> bound to the configuration root', async () => {
    const r = await reportOf({
      web: {
        'Infrastructure/API.cs': lines(
          'namespace Web.Infrastructure;',
          'public static class API',
          '{',
          '    public static class Basket',
          '    {',
          '        public static string GetBasket(string baseUri, string basketId) => $"{baseUri}/{basketId}";',
          '        public static string UpdateBasket(string baseUri) => baseUri;',
          '        public static string CheckoutBasket(string baseUri)',
          '        {',
          '            return Join(baseUri, "checkout");',
          '        }',
          '        private static string Join(string a, string b) => $"{a}/{b}";',
          '    }',
          '}',
        ),
        'Startup.cs': lines(
          'public class Startup',
          '{',
          '    public void ConfigureServices(IServiceCollection services, IConfiguration configuration)',
          '    {',
          '        services.Configure<AppSettings>(configuration);',
          '    }',
          '}',
        ),
        'appsettings.json': JSON.stringify({ PurchaseUrl: 'http://basket-api' }),
        'Services/BasketService.cs': lines(
          'using Web.Infrastructure;',
          'public class BasketService',
          '{',
          '    private readonly IOptions<AppSettings> _settings;',
          '    private readonly HttpClient _apiClient;',
          '    private readonly string _basketUrl;',
          '    public BasketService(HttpClient httpClient, IOptions<AppSettings> settings)',
          '    {',
          '        _apiClient = httpClient;',
          '        _settings = settings;',
          '        _basketUrl = $"{_settings.Value.PurchaseUrl}/api/v1/basket";',
          '    }',
          '    public async Task<string> GetBasket(string id)',
          '    {',
          '        var uri = API.Basket.GetBasket(_basketUrl, id);',
          '        return await _apiClient.GetStringAsync(uri);',
          '    }',
          '    public async Task Update(HttpContent body)',
          '    {',
          '        await _apiClient.PostAsync(API.Basket.UpdateBasket(_basketUrl), body);',
          '    }',
          '    public async Task Checkout(HttpContent body)',
          '    {',
          '        var uri = API.Basket.CheckoutBasket(_basketUrl);',
          '        await _apiClient.PostAsync(uri, body);',
          '    }',
          '}',
        ),
      },
      'basket-api': basketApi,
    });
    expect(rows(r)).toEqual([
      'web Services/BasketService.cs:16 | GET basket-api/api/v1/basket/{} | basket-api Controllers/BasketController.cs:6 GET /api/v1/Basket/{id} (aspnetcore-mvc)',
      'web Services/BasketService.cs:20 | POST basket-api/api/v1/basket | basket-api Controllers/BasketController.cs:7 POST /api/v1/Basket (aspnetcore-mvc)',
      'web Services/BasketService.cs:25 | POST basket-api/api/v1/basket/checkout | basket-api Controllers/BasketController.cs:8 POST /api/v1/Basket/checkout (aspnetcore-mvc)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
