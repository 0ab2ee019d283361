import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20 item 3: interface-declared HTTP clients. Each annotated method of the interface is a call; its
 * base address is the one registered for the interface elsewhere in the source, from configuration.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const orders = {
  'main.go': lines(
    'package main',
    '',
    'func main() {',
    '\thttp.HandleFunc("GET /api/orders/{id}", get)',
    '\thttp.HandleFunc("POST /api/orders", create)',
    '\thttp.HandleFunc("GET /api/orders", list)',
    '}',
  ),
};
const billing = {
  'main.go': lines(
    'package main',
    '',
    'func main() {',
    '\thttp.HandleFunc("GET /api/orders/{id}", get)',
    '\thttp.HandleFunc("GET /api/orders", list)',
    '}',
  ),
};

describe('C#: Refit', () => {
  it('[Get]/[Post] methods of an interface, base from AddRefitClient<T>().ConfigureHttpClient(…) with configuration, or RestService.For<T>(url)', async () => {
    const r = await reportOf({
      orders,
      billing,
      web: {
        'Clients/IOrdersApi.cs': lines(
          'using Refit;',
          'public interface IOrdersApi',
          '{',
          '    [Get("/api/orders/{id}")]',
          '    Task<Order> GetOrder(int id);',
          '',
          '    [Post("/api/orders")]',
          '    Task Create([Body] Order order);',
          '}',
        ),
        'Clients/IListApi.cs': lines(
          'public interface IListApi',
          '{',
          '    [Get("/api/orders?status={status}")]',
          '    Task<List<Order>> List(string status);',
          '}',
        ),
        'Program.cs': lines(
          'var builder = WebApplication.CreateBuilder(args);',
          'builder.Services.AddRefitClient<IOrdersApi>()',
          '    .ConfigureHttpClient(c => c.BaseAddress = new Uri(builder.Configuration["Services:Orders"]!));',
          'var list = RestService.For<IListApi>("http://orders:8080");',
        ),
        'appsettings.json': JSON.stringify({ Services: { Orders: 'http://orders' } }),
      },
    });
    expect(rows(r)).toEqual([
      'web Clients/IListApi.cs:3 | GET orders/api/orders | orders main.go:6 GET /api/orders (net/http)',
      'web Clients/IOrdersApi.cs:4 | GET orders/api/orders/{} | orders main.go:4 GET /api/orders/{id} (net/http)',
      'web Clients/IOrdersApi.cs:7 | POST orders/api/orders | orders main.go:5 POST /api/orders (net/http)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Java: Retrofit and Spring @HttpExchange interfaces', () => {
  it('@GET("api/orders/{id}") under Retrofit.Builder().baseUrl(@Value …); @GetExchange under @HttpExchange("/api") with WebClient.builder().baseUrl(env)', async () => {
    const r = await reportOf({
      orders,
      billing,
      web: {
        'src/main/java/shop/OrdersApi.java': lines(
          'package shop;',
          'public interface OrdersApi {',
          '    @GET("api/orders/{id}")',
          '    Call<Order> get(@Path("id") long id);',
          '',
          '    @HTTP(method = "POST", path = "api/orders", hasBody = true)',
          '    Call<Void> create(@Body Order order);',
          '}',
        ),
        'src/main/java/shop/OrderList.java': lines(
          'package shop;',
          '@HttpExchange("/api")',
          'public interface OrderList {',
          '    @GetExchange("/orders")',
          '    List<Order> all();',
          '}',
        ),
        'src/main/java/shop/Clients.java': lines(
          'package shop;',
          '@Configuration',
          'public class Clients {',
          '    @Bean',
          '    OrdersApi ordersApi(@Value("${orders.url}") String url) {',
          '        Retrofit retrofit = new Retrofit.Builder().baseUrl(url).addConverterFactory(JacksonConverterFactory.create()).build();',
          '        return retrofit.create(OrdersApi.class);',
          '    }',
          '    @Bean',
          '    OrderList orderList() {',
          '        WebClient client = WebClient.builder().baseUrl(System.getenv("ORDERS_BASE")).build();',
          '        HttpServiceProxyFactory factory = HttpServiceProxyFactory.builderFor(WebClientAdapter.create(client)).build();',
          '        return factory.createClient(OrderList.class);',
          '    }',
          '}',
        ),
        'src/main/resources/application.yml': lines('orders:', '  url: http://orders/'),
        Dockerfile: lines('FROM eclipse-temurin:21', 'ENV ORDERS_BASE=http://orders:8080'),
      },
    });
    expect(rows(r)).toEqual([
      'web src/main/java/shop/OrderList.java:4 | GET orders/api/orders | orders main.go:6 GET /api/orders (net/http)',
      'web src/main/java/shop/OrdersApi.java:3 | GET orders/api/orders/{} | orders main.go:4 GET /api/orders/{id} (net/http)',
      'web src/main/java/shop/OrdersApi.java:6 | POST orders/api/orders | orders main.go:5 POST /api/orders (net/http)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('C#: RestEase', () => {
  it('[BasePath] with relative [Get]/[Post] paths, the base from RestClient.For<T>(url) or AddRestEaseClient<T>(url)', async () => {
    const r = await reportOf({
      orders,
      web: {
        'Clients/IOrdersApi.cs': lines(
          'using RestEase;',
          '[BasePath("api/orders")]',
          'public interface IOrdersApi',
          '{',
          '    [Get("{id}")]',
          '    Task<Order> GetAsync([Path] string id);',
          '    [Post("")]',
          '    Task CreateAsync([Body] Order order);',
          '}',
        ),
        'Program.cs': lines(
          'var api = RestClient.For<IOrdersApi>(Environment.GetEnvironmentVariable("ORDERS_URL") ?? "http://orders");',
          'await api.GetAsync("1");',
        ),
      },
      reports: {
        'IBillingApi.cs': lines(
          'using RestEase;',
          'public interface IBillingApi',
          '{',
          '    [Get("api/orders")]',
          '    Task<List<Order>> ListAsync();',
          '}',
        ),
        'Startup.cs': lines('services.AddRestEaseClient<IBillingApi>("http://billing");'),
      },
      billing,
    });
    expect(rows(r)).toEqual([
      'reports IBillingApi.cs:4 | GET billing/api/orders | billing main.go:5 GET /api/orders (net/http)',
      'web Clients/IOrdersApi.cs:5 | GET orders/api/orders/{} | orders main.go:4 GET /api/orders/{id} (net/http)',
      'web Clients/IOrdersApi.cs:7 | POST orders/api/orders | orders main.go:5 POST /api/orders (net/http)',
    ]);
  });
});
