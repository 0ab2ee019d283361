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

  it('C#: `cond ? API.A(base) : API.B(base)` is both URLs, one call each (issue 20, Tailwind Traders)', async () => {
    const r = await reportOf({
      web: {
        'Infrastructure/API.cs': lines(
          'public static class API',
          '{',
          '    public static class Products',
          '    {',
          '        public static string All(string baseUri) => $"{baseUri}/api/v1/basket";',
          '        public static string Filter(string baseUri, int n) => $"{baseUri}/api/v1/basket/checkout";',
          '    }',
          '}',
        ),
        'Services/ProductsService.cs': lines(
          'public class ProductsService',
          '{',
          '    private readonly HttpClient _client;',
          '    public async Task Send(int n, HttpContent body)',
          '    {',
          '        var url = n > 0 ? API.Products.Filter("http://basket-api", n) : API.Products.All("http://basket-api");',
          '        await _client.PostAsync(url, body);',
          '    }',
          '}',
        ),
      },
      'basket-api': basketApi,
    });
    expect(rows(r)).toEqual([
      'web Services/ProductsService.cs:7 | POST basket-api/api/v1/basket | basket-api Controllers/BasketController.cs:7 POST /api/v1/Basket (aspnetcore-mvc)',
      'web Services/ProductsService.cs:7 | POST basket-api/api/v1/basket/checkout | basket-api Controllers/BasketController.cs:8 POST /api/v1/Basket/checkout (aspnetcore-mvc)',
    ]);
  });

  it('Java: a static URL helper of another class, and an instance helper reached through a field, each with arguments', async () => {
    const r = await reportOf({
      web: {
        'src/main/java/web/Urls.java': lines(
          'package web;',
          'public final class Urls {',
          '  public static String order(String base, String id) { return base + "/api/v1/orders/" + id; }',
          '  public static String orders(String base) { return String.format("%s/api/v1/orders", base); }',
          '}',
        ),
        'src/main/java/web/Paths.java': lines(
          'package web;',
          'public class Paths {',
          '  public String cancel(String id) { return "http://orders:8080/api/v1/orders/" + id + "/cancel"; }',
          '}',
        ),
        'src/main/java/web/OrderClient.java': lines(
          'package web;',
          'import org.springframework.web.client.RestTemplate;',
          'public class OrderClient {',
          '  private final RestTemplate rest = new RestTemplate();',
          '  private final Paths paths = new Paths();',
          '  private static final String BASE = "http://orders:8080";',
          '  public Order get(String id) { return rest.getForObject(Urls.order(BASE, id), Order.class); }',
          '  public Order[] all() { return rest.getForObject(Urls.orders(BASE), Order[].class); }',
          '  public void cancel(String id) { rest.postForObject(this.paths.cancel(id), null, Void.class); }',
          '}',
        ),
      },
      orders: {
        'src/main/java/orders/OrderController.java': lines(
          'package orders;',
          'import org.springframework.web.bind.annotation.*;',
          '@RestController',
          '@RequestMapping("/api/v1/orders")',
          'public class OrderController {',
          '  @GetMapping("/{id}") public String one(@PathVariable String id) { return ""; }',
          '  @GetMapping public String all() { return ""; }',
          '  @PostMapping("/{id}/cancel") public String cancel(@PathVariable String id) { return ""; }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/main/java/web/OrderClient.java:7 | GET orders/api/v1/orders/{} | orders src/main/java/orders/OrderController.java:6 GET /api/v1/orders/{id} (spring)',
      'web src/main/java/web/OrderClient.java:8 | GET orders/api/v1/orders | orders src/main/java/orders/OrderController.java:7 GET /api/v1/orders (spring)',
      'web src/main/java/web/OrderClient.java:9 | POST orders/api/v1/orders/{}/cancel | orders src/main/java/orders/OrderController.java:8 POST /api/v1/orders/{id}/cancel (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('Python: a URL function of another module, called through its module and imported by name, and a method of a class', async () => {
    const r = await reportOf({
      web: {
        'app/urls.py': lines(
          'import os',
          'BASE = os.environ.get("ORDERS_URL", "http://orders:5000")',
          'def order_url(base, order_id):',
          '    return f"{base}/api/orders/{order_id}"',
          'class Paths:',
          '    def cancel(self, order_id, reason=None):',
          '        return "{}/api/orders/{}/cancel".format(BASE, order_id)',
        ),
        'app/client.py': lines(
          'import requests',
          'from app import urls',
          'from app.urls import order_url, Paths',
          'paths = Paths()',
          'def get_order(order_id):',
          '    return requests.get(urls.order_url(urls.BASE, order_id)).json()',
          'def get_again(order_id):',
          '    return requests.get(order_url("http://orders:5000", order_id)).json()',
          'def cancel(order_id):',
          '    requests.post(paths.cancel(order_id))',
        ),
      },
      orders: {
        'app.py': lines(
          'from flask import Flask',
          'app = Flask(__name__)',
          '@app.route("/api/orders/<order_id>", methods=["GET"])',
          'def one(order_id):',
          '    return {}',
          '@app.route("/api/orders/<order_id>/cancel", methods=["POST"])',
          'def cancel(order_id):',
          '    return {}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app/client.py:6 | GET orders/api/orders/{} | orders app.py:3 GET /api/orders/<order_id> (flask)',
      'web app/client.py:8 | GET orders/api/orders/{} | orders app.py:3 GET /api/orders/<order_id> (flask)',
      'web app/client.py:10 | POST orders/api/orders/{}/cancel | orders app.py:6 POST /api/orders/<order_id>/cancel (flask)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('Go: a URL function of another package and a method of a client type in another file', async () => {
    const r = await reportOf({
      web: {
        'urls/urls.go': lines(
          'package urls',
          'import "fmt"',
          'func Order(base string, id string) string {',
          '\treturn fmt.Sprintf("%s/api/orders/%s", base, id)',
          '}',
        ),
        'client.go': lines(
          'package main',
          'type Orders struct{ base string }',
          'func (o *Orders) cancelURL(id string) string { return "http://orders:8080/api/orders/" + id + "/cancel" }',
        ),
        'main.go': lines(
          'package main',
          'import (',
          '\t"net/http"',
          '\t"example.com/web/urls"',
          ')',
          'func get(id string) {',
          '\thttp.Get(urls.Order("http://orders:8080", id))',
          '}',
          'func cancel(o *Orders, id string) {',
          '\thttp.Post(o.cancelURL(id), "application/json", nil)',
          '}',
        ),
      },
      orders: {
        'main.go': lines(
          'package main',
          'import "github.com/gin-gonic/gin"',
          'func main() {',
          '\tr := gin.Default()',
          '\tr.GET("/api/orders/:id", one)',
          '\tr.POST("/api/orders/:id/cancel", cancel)',
          '\tr.Run()',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web main.go:7 | GET orders/api/orders/{} | orders main.go:5 GET /api/orders/:id (gin)',
      'web main.go:10 | POST orders/api/orders/{}/cancel | orders main.go:6 POST /api/orders/:id/cancel (gin)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('TypeScript: an exported arrow function, an object of URL builders and a class method of other modules', async () => {
    const r = await reportOf({
      web: {
        'src/urls.ts': lines(
          'export const BASE = process.env.ORDERS_URL || "http://orders:3000";',
          'export const orderUrl = (base: string, id: string) => `${base}/api/orders/${id}`;',
          'export const api = {',
          '  items: (id: string) => `${BASE}/api/orders/${id}/items`,',
          '};',
          'export class Paths {',
          '  static cancel(id: string): string {',
          '    return BASE + "/api/orders/" + id + "/cancel";',
          '  }',
          '}',
        ),
        'src/client.ts': lines(
          'import axios from "axios";',
          'import { BASE, orderUrl, api, Paths } from "./urls";',
          'export async function get(id: string) {',
          '  return axios.get(orderUrl(BASE, id));',
          '}',
          'export async function items(id: string) {',
          '  return axios.get(api.items(id));',
          '}',
          'export async function cancel(id: string) {',
          '  return axios.post(Paths.cancel(id), {});',
          '}',
        ),
      },
      orders: {
        'server.js': lines(
          'const express = require("express");',
          'const app = express();',
          'app.get("/api/orders/:id", (req, res) => res.json({}));',
          'app.get("/api/orders/:id/items", (req, res) => res.json([]));',
          'app.post("/api/orders/:id/cancel", (req, res) => res.json({}));',
          'app.listen(3000);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/client.ts:4 | GET orders/api/orders/{} | orders server.js:3 GET /api/orders/:id (express)',
      'web src/client.ts:7 | GET orders/api/orders/{}/items | orders server.js:4 GET /api/orders/:id/items (express)',
      'web src/client.ts:10 | POST orders/api/orders/{}/cancel | orders server.js:5 POST /api/orders/:id/cancel (express)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
