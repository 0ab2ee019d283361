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
  it('RegisterXHandlerFromEndpoint forwards X’s annotated methods (gRPC) and serves the proto’s google.api.http routes, which browser code calls by path', async () => {
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
      // The annotated methods the gateway forwards (no generated handlers attached), not the service as a whole.
      'gateway main.go:6 | gRPC shop.Catalog/AddItem | catalog main.go:5 gRPC shop.Catalog/AddItem (grpc-go, rpc at protos shop.proto:8)',
      'gateway main.go:6 | gRPC shop.Catalog/ListItems | catalog main.go:5 gRPC shop.Catalog/ListItems (grpc-go, rpc at protos shop.proto:5)',
      'web static/app.js:2 | GET /v1/items | gateway main.go:6 GET /v1/items (grpc-gateway)',
      'web static/app.js:3 | POST /v1/items | gateway main.go:6 POST /v1/items (grpc-gateway)',
    ]);
  });
});

describe('Go functional options of a shared messaging package', () => {
  it('Configure(pkg.ExchangeName("x"), …) instantiates the package’s amqp091 publish, bind and consume with the fields the options set, at the configuring call', async () => {
    const bus = {
      'go.mod': 'module example.com/shop\n',
      'pkg/bus/publisher/publisher.go': lines(
        'package publisher',
        'import amqp "github.com/rabbitmq/amqp091-go"',
        'type Option func(*publisher)',
        'func ExchangeName(name string) Option {',
        '\treturn func(p *publisher) {',
        '\t\tp.exchange = name',
        '\t}',
        '}',
        'func RoutingKey(key string) Option { return func(p *publisher) { p.key = key } }',
        'type publisher struct{ exchange, key string; ch *amqp.Channel }',
        'func (p *publisher) Configure(opts ...Option) { for _, o := range opts { o(p) } }',
        'func (p *publisher) Publish(ctx context.Context, body []byte) error {',
        '\treturn p.ch.PublishWithContext(ctx, p.exchange, p.key, false, false, amqp.Publishing{Body: body})',
        '}',
      ),
      'pkg/bus/consumer/consumer.go': lines(
        'package consumer',
        'import amqp "github.com/rabbitmq/amqp091-go"',
        'const kind = "direct"',
        'type Option func(*consumer)',
        'func ExchangeName(name string) Option { return func(c *consumer) { c.exchange = name } }',
        'func QueueName(name string) Option { return func(c *consumer) { c.queue = name } }',
        'func BindingKey(key string) Option { return func(c *consumer) { c.key = key } }',
        'type consumer struct{ exchange, queue, key string; ch *amqp.Channel }',
        'func (c *consumer) Configure(opts ...Option) { for _, o := range opts { o(c) } }',
        'func (c *consumer) Start() error {',
        '\tc.ch.ExchangeDeclare(c.exchange, kind, true, false, false, false, nil)',
        '\tq, _ := c.ch.QueueDeclare(c.queue, true, false, false, false, nil)',
        '\tc.ch.QueueBind(q.Name, c.key, c.exchange, false, nil)',
        '\t_, err := c.ch.Consume(c.queue, "", false, false, false, false, nil)',
        '\treturn err',
        '}',
      ),
    };
    const r = await reportOf({
      bus,
      orders: {
        'cmd/orders/main.go': lines(
          'package main',
          'import pub "example.com/shop/pkg/bus/publisher"',
          'func main() {',
          '\tp := pub.New()',
          '\tp.Configure(pub.ExchangeName("orders-exchange"), pub.RoutingKey("order-placed"))',
          '}',
        ),
      },
      billing: {
        'cmd/billing/main.go': lines(
          'package main',
          'import "example.com/shop/pkg/bus/consumer"',
          'func main() {',
          '\tc := consumer.New()',
          '\tc.Configure(consumer.ExchangeName("orders-exchange"), consumer.QueueName("billing"), consumer.BindingKey("order-placed"))',
          '\tc.Start()',
          '}',
        ),
      },
      audit: {
        'cmd/audit/main.go': lines(
          'package main',
          'import "example.com/shop/pkg/bus/consumer"',
          'func main() {',
          '\tc := consumer.New()',
          '\tc.Configure(consumer.ExchangeName("orders-exchange"), consumer.QueueName("audit"), consumer.BindingKey("order-shipped"))',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders cmd/orders/main.go:5 | publish `orders-exchange` / `order-placed` | billing cmd/billing/main.go:5 consume queue `billing`',
    ]);
    // Direct exchange: audit is bound with another key, so nothing reaches it.
    expect(gaps(r)).toEqual(['consumer audit cmd/audit/main.go:5 no publisher routes to queue `audit`']);
  });
});

describe('Vue single-file components and an axios instance of another module', () => {
  it('the <script> of a .vue file is read (lines kept); HTTP.get(…) of an imported axios.create({ baseURL }) takes that base', async () => {
    const r = await reportOf({
      gateway: {
        'server.js': lines(
          'const app = require("express")();',
          'app.get("/api/products", list);',
          'app.post("/api/offers", offer);',
        ),
      },
      products: { 'server.js': lines('const app = require("express")();', 'app.get("/products", list);') },
      web: {
        'src/http/client.js': lines(
          'import axios from "axios";',
          'export const HTTP = axios.create({ baseURL: "/api/" });',
        ),
        'src/components/Products.vue': lines(
          '<template>',
          '  <ul><li v-for="p in products">{{ p.name }}</li></ul>',
          '</template>',
          '<script>',
          'import { HTTP } from "../http/client";',
          'export default {',
          '  created() {',
          '    HTTP.get("products").then((r) => (this.products = r.data));',
          '  },',
          '  methods: { offer(o) { return HTTP.post("offers", o); } },',
          '};',
          '</script>',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/components/Products.vue:8 | GET /api/products | gateway server.js:2 GET /api/products (express)',
      'web src/components/Products.vue:10 | POST /api/offers | gateway server.js:3 POST /api/offers (express)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
