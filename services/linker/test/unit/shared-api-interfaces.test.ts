import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20 items 3 and 4: Micronaut controllers, declarative `@Client`s and Kafka clients/listeners, and route
 * annotations held by an interface of a shared `*-api` folder that the server implements and the client
 * extends (so neither side's own file names the path).
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const invoiceApi = {
  'src/main/java/shop/invoice/api/InvoiceOperations.java': lines(
    'package shop.invoice.api;',
    'import io.micronaut.http.annotation.*;',
    'public interface InvoiceOperations {',
    '    @Get("/{number}")',
    '    Invoice get(String number);',
    '    @Post("/issue")',
    '    Invoice issue(@Body IssueCommand cmd);',
    '}',
  ),
};
const invoices = {
  'src/main/java/shop/invoice/InvoiceController.java': lines(
    'package shop.invoice;',
    'import io.micronaut.http.annotation.*;',
    '@Controller("/invoices")',
    'public class InvoiceController implements InvoiceOperations {',
    '    @Override',
    '    public Invoice get(String number) { return null; }',
    '    @Override',
    '    public Invoice issue(IssueCommand cmd) { return null; }',
    '    @Get("/health")',
    '    public String health() { return "ok"; }',
    '}',
  ),
  'src/main/java/shop/invoice/OrderPlacedListener.java': lines(
    'package shop.invoice;',
    'import io.micronaut.configuration.kafka.annotation.*;',
    '@KafkaListener(groupId = "invoices")',
    'public class OrderPlacedListener {',
    '    @Topic("order-placed")',
    '    void onPlaced(OrderPlaced e) {}',
    '}',
  ),
};
const orders = {
  'src/main/java/shop/orders/InvoiceClient.java': lines(
    'package shop.orders;',
    'import io.micronaut.http.client.annotation.Client;',
    'import io.micronaut.http.annotation.*;',
    '@Client(id = "invoices", path = "/invoices")',
    'public interface InvoiceClient extends InvoiceOperations {',
    '    @Override',
    '    @Post("/issue")',
    '    Invoice issue(IssueCommand cmd);',
    '}',
  ),
  'src/main/java/shop/orders/Events.java': lines(
    'package shop.orders;',
    'import io.micronaut.configuration.kafka.annotation.*;',
    '@KafkaClient',
    'public interface Events {',
    '    @Topic("order-placed")',
    '    void placed(@KafkaKey String id, OrderPlaced e);',
    '}',
  ),
  'src/main/resources/application.yml': lines('micronaut:', '  application:', '    name: orders'),
};

describe('Micronaut and route-annotated interfaces shared across folders', () => {
  it('a controller serves its interface’s routes under @Controller; a @Client(id, path) calls them; @KafkaClient @Topic → @KafkaListener @Topic', async () => {
    const r = await reportOf({ 'invoice-api': invoiceApi, invoices, orders });
    expect(rows(r)).toEqual([
      'orders src/main/java/shop/orders/InvoiceClient.java:4 | GET /invoices/{} | invoices src/main/java/shop/invoice/InvoiceController.java:5 GET /invoices/{number} (micronaut)',
      'orders src/main/java/shop/orders/InvoiceClient.java:7 | POST /invoices/issue | invoices src/main/java/shop/invoice/InvoiceController.java:7 POST /invoices/issue (micronaut)',
      'orders src/main/java/shop/orders/Events.java:5 | produce Kafka topic `order-placed` | invoices src/main/java/shop/invoice/OrderPlacedListener.java:5 consume Kafka topic `order-placed`',
    ]);
    expect(unresolved(r)).toEqual([]);
    expect(gaps(r)).toEqual([]);
  });

  it('Spring: a @FeignClient extending an interface whose methods carry @GetMapping, served by a @RestController implementing it', async () => {
    const r = await reportOf({
      'stock-api': {
        'src/main/java/shop/stock/StockApi.java': lines(
          'package shop.stock;',
          'public interface StockApi {',
          '    @GetMapping("/stock/{sku}")',
          '    int level(@PathVariable String sku);',
          '}',
        ),
      },
      stock: {
        'src/main/java/shop/stock/StockController.java': lines(
          'package shop.stock;',
          '@RestController',
          'public class StockController implements StockApi {',
          '    public int level(String sku) { return 1; }',
          '}',
        ),
      },
      cart: {
        'src/main/java/shop/cart/StockClient.java': lines(
          'package shop.cart;',
          '@FeignClient(name = "stock")',
          'public interface StockClient extends StockApi {}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'cart src/main/java/shop/cart/StockClient.java:2 | GET /stock/{} | stock src/main/java/shop/stock/StockController.java:4 GET /stock/{sku} (spring)',
    ]);
  });
});

describe('grpc-gateway', () => {
  const proto = lines(
    'syntax = "proto3";',
    'package shop;',
    'import "google/api/annotations.proto";',
    'service Catalog {',
    '  rpc ListItems(Empty) returns (Items) {',
    '    option (google.api.http) = { get: "/v1/items" };',
    '  }',
    '  rpc AddItem(Item) returns (Item) {',
    '    option (google.api.http) = {',
    '      post: "/v1/items"',
    '      body: "*"',
    '      additional_bindings { put: "/v1/items/{id}" body: "*" }',
    '    };',
    '  }',
    '  rpc Internal(Empty) returns (Empty);',
    '}',
  );
  it('RegisterXHandlerFromEndpoint forwards to X (gRPC) and serves the proto’s google.api.http routes, which browser code calls by path', async () => {
    const r = await reportOf({
      protos: { 'shop.proto': proto },
      catalog: {
        'main.go': lines(
          'package main',
          'import ("google.golang.org/grpc"; pb "example.com/shop/gen")',
          'func main() {',
          '\ts := grpc.NewServer()',
          '\tpb.RegisterCatalogServer(s, &server{})',
          '}',
        ),
      },
      gateway: {
        'main.go': lines(
          'package main',
          'import ("fmt"; "os"; "google.golang.org/grpc"; gw "github.com/grpc-ecosystem/grpc-gateway/v2/runtime"; pb "example.com/shop/gen")',
          'func main() {',
          '\tmux := gw.NewServeMux()',
          '\tendpoint := fmt.Sprintf("%s:%d", os.Getenv("CATALOG_HOST"), 5001)',
          '\terr := pb.RegisterCatalogHandlerFromEndpoint(ctx, mux, endpoint, []grpc.DialOption{})',
          '\tif err != nil { panic(err) }',
          '}',
        ),
      },
      web: {
        'static/app.js': lines(
          'const base = await (await fetch("/config")).text();',
          'export const list = () => fetch(`${base}/v1/items`);',
          'export const add = (item) => fetch(`${base}/v1/items`, { method: "POST", body: JSON.stringify(item) });',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'gateway main.go:6 | gRPC shop.Catalog | catalog main.go:5 gRPC shop.Catalog (grpc-go)',
      'web static/app.js:2 | GET /v1/items | gateway main.go:6 GET /v1/items (grpc-gateway)',
      'web static/app.js:3 | POST /v1/items | gateway main.go:6 POST /v1/items (grpc-gateway)',
    ]);
  });
});
