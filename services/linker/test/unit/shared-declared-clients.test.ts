import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20: declared client interfaces (Feign, Retrofit) kept in a shared library folder that services depend
 * on. The call is the service's, at the line invoking the interface's method; a method or interface nobody
 * calls makes no call; the library's URL settings are read under the calling service's profile.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const ledger = {
  'src/main/java/bank/ledger/LedgerController.java': lines(
    'package bank.ledger;',
    '@RestController',
    '@RequestMapping("/ledger")',
    'public class LedgerController {',
    '  @GetMapping("/accounts/{id}/balance")',
    '  public Balance balance(@PathVariable String id) { return null; }',
    '  @PostMapping("/entries")',
    '  public void post(@RequestBody Entry e) {}',
    '}',
  ),
};
const audit = {
  'src/main/java/bank/audit/AuditController.java': lines(
    'package bank.audit;',
    '@RestController',
    'public class AuditController {',
    '  @PostMapping("/audit/events")',
    '  public void record(@RequestBody Event e) {}',
    '}',
  ),
};
const library = {
  'clients/src/main/java/bank/clients/LedgerApi.java': lines(
    'package bank.clients;',
    '@FeignClient(name = "ledger", url = "${bank.ledger.url}")',
    'public interface LedgerApi {',
    '  @GetMapping("ledger/accounts/{id}/balance")',
    '  Balance balance(@PathVariable("id") String id);',
    '  @PostMapping("ledger/entries")',
    '  void post(@RequestBody Entry e);',
    '}',
  ),
  'clients/src/main/java/bank/clients/AuditApi.java': lines(
    'package bank.clients;',
    '@FeignClient(name = "audit", url = "${bank.audit.url}")',
    'public interface AuditApi {',
    '  @PostMapping("audit/events")',
    '  void record(@RequestBody Event e);',
    '}',
  ),
  'clients/src/main/resources/application.properties': lines(
    'bank.ledger.url=http://localhost:8081',
    'bank.audit.url=http://localhost:8082',
  ),
  'clients/src/main/resources/application-docker.properties': lines(
    'bank.ledger.url=http://ledger:8081',
    'bank.audit.url=http://audit:8082',
  ),
};
const payments = {
  'src/main/java/bank/payments/PaymentsApplication.java': lines(
    'package bank.payments;',
    '@SpringBootApplication',
    '@EnableFeignClients(basePackages = "bank.clients")',
    'public class PaymentsApplication {}',
  ),
  'src/main/java/bank/payments/TransferService.java': lines(
    'package bank.payments;',
    'import bank.clients.LedgerApi;',
    '@Service',
    '@RequiredArgsConstructor',
    'public class TransferService {',
    '  private final LedgerApi ledgerApi;',
    '  public void transfer(String from) {',
    '    Balance b = ledgerApi.balance(from);',
    '    if (b.isLow()) throw new IllegalStateException();',
    '  }',
    '}',
  ),
  'src/main/java/bank/payments/Refunds.java': lines(
    'package bank.payments;',
    'public class Refunds {',
    '  private final LedgerApi ledger;',
    '  public Refunds(LedgerApi ledger) { this.ledger = ledger; }',
    '  public void refund(String id) {',
    '    this.ledger.balance(id);',
    '  }',
    '}',
  ),
  Dockerfile: lines(
    'FROM eclipse-temurin:21',
    'ENTRYPOINT ["java", "-Dspring.profiles.active=docker", "-jar", "/app.jar"]',
  ),
};

describe('declared clients in a shared library', () => {
  it('a Feign interface of a library calls from the service invoking it, with the URL of the profile it runs', async () => {
    const r = await reportOf({ ledger, audit, shared: library, payments });
    expect(rows(r)).toEqual([
      'payments src/main/java/bank/payments/Refunds.java:6 | GET ledger/ledger/accounts/{}/balance | ledger src/main/java/bank/ledger/LedgerController.java:5 GET /ledger/accounts/{id}/balance (spring)',
      'payments src/main/java/bank/payments/TransferService.java:8 | GET ledger/ledger/accounts/{}/balance | ledger src/main/java/bank/ledger/LedgerController.java:5 GET /ledger/accounts/{id}/balance (spring)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('a Retrofit interface of a library calls from the service invoking it, at the base its builder sets', async () => {
    const r = await reportOf({
      ledger,
      shared: {
        'src/main/java/bank/api/Ledger.java': lines(
          'package bank.api;',
          'public interface Ledger {',
          '  @GET("ledger/accounts/{id}/balance")',
          '  Call<Balance> balance(@Path("id") String id);',
          '  @POST("ledger/entries")',
          '  Call<Void> post(@Body Entry e);',
          '}',
        ),
      },
      teller: {
        'src/main/java/bank/teller/Teller.java': lines(
          'package bank.teller;',
          'public class Teller {',
          '  private final Ledger ledger;',
          '  public Teller() {',
          '    Retrofit r = new Retrofit.Builder().baseUrl("http://ledger:8081/").build();',
          '    this.ledger = r.create(Ledger.class);',
          '  }',
          '  public Balance check(String id) throws Exception {',
          '    return ledger.balance(id).execute().body();',
          '  }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'teller src/main/java/bank/teller/Teller.java:9 | GET ledger/ledger/accounts/{}/balance | ledger src/main/java/bank/ledger/LedgerController.java:5 GET /ledger/accounts/{id}/balance (spring)',
    ]);
  });

  it('a Retrofit interface a library builds itself keeps the library’s base address at the service’s call', async () => {
    const r = await reportOf({
      ledger,
      shared: {
        'src/main/java/bank/api/Ledger.java': lines(
          'package bank.api;',
          'public interface Ledger {',
          '  @GET("ledger/accounts/{id}/balance")',
          '  Call<Balance> balance(@Path("id") String id);',
          '}',
        ),
        'src/main/java/bank/api/LedgerConfig.java': lines(
          'package bank.api;',
          '@Configuration',
          'public class LedgerConfig {',
          '  @Bean',
          '  public Ledger ledger() {',
          '    return new Retrofit.Builder().baseUrl("http://ledger:8081/").build().create(Ledger.class);',
          '  }',
          '}',
        ),
      },
      teller: {
        'src/main/java/bank/teller/Teller.java': lines(
          'package bank.teller;',
          '@Service',
          'public class Teller {',
          '  @Autowired private Ledger ledger;',
          '  public Balance check(String id) throws Exception {',
          '    return ledger.balance(id).execute().body();',
          '  }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'teller src/main/java/bank/teller/Teller.java:6 | GET ledger/ledger/accounts/{}/balance | ledger src/main/java/bank/ledger/LedgerController.java:5 GET /ledger/accounts/{id}/balance (spring)',
    ]);
  });

  it('a MicroProfile REST client of a library calls from the bean injecting it, at its configuration key', async () => {
    const r = await reportOf({
      ledger,
      shared: {
        'src/main/java/bank/api/LedgerService.java': lines(
          'package bank.api;',
          '@RegisterRestClient(configKey = "ledger-api")',
          '@Path("/ledger")',
          'public interface LedgerService {',
          '  @GET',
          '  @Path("/accounts/{id}/balance")',
          '  Balance balance(@PathParam("id") String id);',
          '  @POST',
          '  @Path("/entries")',
          '  void post(Entry e);',
          '}',
        ),
      },
      teller: {
        'src/main/java/bank/teller/Teller.java': lines(
          'package bank.teller;',
          '@ApplicationScoped',
          'public class Teller {',
          '  @Inject @RestClient LedgerService ledgerService;',
          '  public Balance check(String id) {',
          '    return ledgerService.balance(id);',
          '  }',
          '}',
        ),
        'src/main/resources/application.properties': lines('quarkus.rest-client.ledger-api.url=http://ledger:8081'),
      },
    });
    expect(rows(r)).toEqual([
      'teller src/main/java/bank/teller/Teller.java:6 | GET ledger/ledger/accounts/{}/balance | ledger src/main/java/bank/ledger/LedgerController.java:5 GET /ledger/accounts/{id}/balance (spring)',
    ]);
  });

  it('an interface declared and called in one service still calls from its declaration', async () => {
    const r = await reportOf({
      ledger,
      payments: {
        'src/main/java/bank/payments/LedgerApi.java': library['clients/src/main/java/bank/clients/LedgerApi.java'],
        'src/main/java/bank/payments/TransferService.java':
          payments['src/main/java/bank/payments/TransferService.java'],
        'src/main/resources/application.properties': lines('bank.ledger.url=http://ledger:8081'),
      },
    });
    expect(rows(r)).toEqual([
      'payments src/main/java/bank/payments/LedgerApi.java:4 | GET ledger/ledger/accounts/{}/balance | ledger src/main/java/bank/ledger/LedgerController.java:5 GET /ledger/accounts/{id}/balance (spring)',
      'payments src/main/java/bank/payments/LedgerApi.java:6 | POST ledger/ledger/entries | ledger src/main/java/bank/ledger/LedgerController.java:7 POST /ledger/entries (spring)',
    ]);
  });
});

describe('C#: Refit interfaces of a shared library project', () => {
  const ordersApi = {
    'Controllers/OrdersController.cs': lines(
      '[ApiController]',
      '[Route("api/orders")]',
      'public class OrdersController : ControllerBase {',
      '  [HttpGet("{id}")]',
      '  public Order Get(int id) => null;',
      '  [HttpPost]',
      '  public void Create(Order o) {}',
      '}',
    ),
  };
  const contracts = {
    'Shop.Clients/IOrdersApi.cs': lines(
      'using Refit;',
      'namespace Shop.Clients;',
      'public interface IOrdersApi',
      '{',
      '    [Get("/api/orders/{id}")]',
      '    Task<Order> GetOrder(int id);',
      '    [Post("/api/orders")]',
      '    Task Create([Body] Order order);',
      '    [Delete("/api/orders/{id}")]',
      '    Task Cancel(int id);',
      '}',
    ),
  };

  it('the service injecting the interface (AddRefitClient with its own setting) and one using RestService.For make the calls', async () => {
    const r = await reportOf({
      orders: ordersApi,
      shared: contracts,
      web: {
        'Program.cs': lines(
          'using Refit;',
          'var builder = WebApplication.CreateBuilder(args);',
          'builder.Services.AddRefitClient<IOrdersApi>()',
          '    .ConfigureHttpClient(c => c.BaseAddress = new Uri(builder.Configuration["Services:Orders"]));',
        ),
        'Services/Checkout.cs': lines(
          'using Shop.Clients;',
          'public class Checkout {',
          '  private readonly IOrdersApi _orders;',
          '  private readonly ILogger<Checkout> _log;',
          '  public Checkout(IOrdersApi orders) { _orders = orders; }',
          '  public async Task Run(int id) {',
          '    var o = await _orders.GetOrder(id);',
          '    await this._orders.Create(o);',
          '  }',
          '}',
        ),
        'appsettings.json': JSON.stringify({ Services: { Orders: 'http://orders:8080' } }),
      },
      tool: {
        'Program.cs': lines(
          'using Refit;',
          'var api = RestService.For<IOrdersApi>("http://orders:8080");',
          'await api.Create(new Order());',
        ),
      },
    });
    // `Cancel` is called by nobody: no call; the library itself calls nothing.
    expect(rows(r)).toEqual([
      'tool Program.cs:3 | POST orders/api/orders | orders Controllers/OrdersController.cs:6 POST /api/orders (aspnetcore-mvc)',
      'web Services/Checkout.cs:7 | GET orders/api/orders/{} | orders Controllers/OrdersController.cs:4 GET /api/orders/{id} (aspnetcore-mvc)',
      'web Services/Checkout.cs:8 | POST orders/api/orders | orders Controllers/OrdersController.cs:6 POST /api/orders (aspnetcore-mvc)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
