import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * gRPC calls as API links: a generated client's method call links to the repository that registers a
 * server of the service (`package.Service/Method`, from the `.proto` files); a vendored `.proto` alone
 * serves nothing. Each snippet is written here, the way such code is written.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const SHOP_PROTO = lines(
  'syntax = "proto3";',
  'package shop;',
  '// service Commented { rpc Nope(A) returns (B); }',
  'service Cart {',
  '  rpc AddItem(AddItemRequest) returns (Empty) {}',
  '  rpc GetCart(GetCartRequest) returns (CartReply) {',
  '    option deprecated = false;',
  '  }',
  '}',
  'service Pricing {',
  '  rpc Quote(QuoteRequest) returns (QuoteReply);',
  '}',
);

const GO_CART_SERVER = lines(
  'package main',
  'import (',
  '  "google.golang.org/grpc"',
  '  pb "cart/gen"',
  ')',
  'func main() {',
  '  srv := grpc.NewServer()',
  '  pb.RegisterCartServer(srv, &cartServer{})',
  '  // pb.RegisterPricingServer(srv, &pricing{})',
  '}',
);

describe('gRPC: Go server and Go client', () => {
  it('pb.NewXClient(conn).M(…) chained or held in a variable links per method to the repository that registers the server', async () => {
    const r = await reportOf({
      web: {
        'proto/shop.proto': SHOP_PROTO,
        'rpc.go': lines(
          'package main',
          'import (',
          '  "context"',
          '  "google.golang.org/grpc"',
          '  pb "web/gen"',
          ')',
          'func (s *server) cart(ctx context.Context) {',
          '  resp, _ := pb.NewCartClient(s.cartConn).',
          '    GetCart(ctx, &pb.GetCartRequest{})',
          '  _ = resp',
          '}',
          'func (s *server) add(ctx context.Context, conn *grpc.ClientConn) {',
          '  client := pb.NewCartClient(conn)',
          '  client.AddItem(ctx, &pb.AddItemRequest{})',
          '}',
        ),
      },
      cart: { 'proto/shop.proto': SHOP_PROTO, 'main.go': GO_CART_SERVER },
    });
    expect(rows(r)).toEqual([
      'web rpc.go:8 | gRPC shop.Cart/GetCart | cart main.go:8 gRPC shop.Cart/GetCart (grpc-go, rpc at cart proto/shop.proto:6)',
      'web rpc.go:14 | gRPC shop.Cart/AddItem | cart main.go:8 gRPC shop.Cart/AddItem (grpc-go, rpc at cart proto/shop.proto:5)',
    ]);
    expect(r.table.map((t) => t.match)).toEqual(['service and method', 'service and method']);
    expect(unresolved(r)).toEqual([]);
  });

  it('a vendored .proto without a server registration makes no endpoint: the call is unresolved with the reason; commented-out registrations do not count', async () => {
    const r = await reportOf({
      web: {
        'proto/shop.proto': SHOP_PROTO,
        'rpc.go': lines(
          'package main',
          'import pb "web/gen"',
          'import "google.golang.org/grpc"',
          'func quote(conn *grpc.ClientConn) {',
          '  pb.NewPricingClient(conn).Quote(ctx, nil)',
          '}',
        ),
      },
      cart: { 'proto/shop.proto': SHOP_PROTO, 'main.go': GO_CART_SERVER },
    });
    expect(rows(r)).toEqual([]);
    expect(unresolved(r)).toEqual([
      'web rpc.go:5 gRPC shop.Pricing/Quote — no matching route: no attached repository registers a gRPC server of shop.Pricing (a .proto file or generated stub alone serves nothing)',
    ]);
  });

  it('a method the server does not declare is no match; a constructor without gRPC in its file that no server matches is not a call', async () => {
    const r = await reportOf({
      web: {
        'proto/shop.proto': SHOP_PROTO,
        'rpc.go': lines(
          'package main',
          'import pb "web/gen"',
          'import "google.golang.org/grpc"',
          'func f(conn *grpc.ClientConn) { pb.NewCartClient(conn).Checkout(ctx, nil) }',
        ),
        'store.go': lines('package main', 'import "github.com/acme/redis"', 'var rdb = redis.NewFailoverClient(opts)'),
      },
      cart: { 'main.go': GO_CART_SERVER, 'proto/shop.proto': SHOP_PROTO },
    });
    expect(rows(r)).toEqual([]);
    expect(unresolved(r)).toEqual([
      'web rpc.go:4 gRPC shop.Cart/Checkout — no matching route: `cart` serves shop.Cart (main.go:8) but no method Checkout',
    ]);
  });
});

describe('gRPC: Go clients held in fields of the generated interface type', () => {
  it('a client built and returned by a package function elsewhere, kept in a struct field or parameter of type pb.XClient, links per method; the constructor that only returns it is no row; a non-gRPC XClient field is no call', async () => {
    const r = await reportOf({
      common: {
        'client/grpc.go': lines(
          'package client',
          'import (',
          '  "os"',
          '  "google.golang.org/grpc"',
          '  "shop/gen/cart"',
          ')',
          'func NewCartClient() (cart.CartClient, error) {',
          '  conn, err := grpc.Dial(os.Getenv("CART_ADDR"), grpc.WithInsecure())',
          '  if err != nil { return nil, err }',
          '  return cart.NewCartClient(conn), nil',
          '}',
        ),
      },
      orders: {
        'adapters/cart.go': lines(
          'package adapters',
          'import (',
          '  "context"',
          '  "shop/gen/cart"',
          '  "github.com/acme/redis"',
          ')',
          'type CartAdapter struct {',
          '  client cart.CartClient',
          '  cache  *redis.UniversalClient',
          '}',
          'func NewCartAdapter(client cart.CartClient) CartAdapter { return CartAdapter{client: client} }',
          'func (a CartAdapter) Add(ctx context.Context) error {',
          '  _, err := a.client.AddItem(ctx, &cart.AddItemRequest{})',
          '  a.cache.Get(ctx, "k")',
          '  return err',
          '}',
          'func show(ctx context.Context, c cart.CartClient) { c.GetCart(ctx, nil) }',
        ),
      },
      cart: { 'proto/shop.proto': SHOP_PROTO, 'main.go': GO_CART_SERVER },
    });
    expect(rows(r)).toEqual([
      'orders adapters/cart.go:13 | gRPC shop.Cart/AddItem | cart main.go:8 gRPC shop.Cart/AddItem (grpc-go, rpc at cart proto/shop.proto:5)',
      'orders adapters/cart.go:17 | gRPC shop.Cart/GetCart | cart main.go:8 gRPC shop.Cart/GetCart (grpc-go, rpc at cart proto/shop.proto:6)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('gRPC: clients and servers in every language', () => {
  it('C# (new X.XClient(channel), AddGrpcClient with an address), Node (new pkg.X(addr, creds)), Python (XStub(channel)), Java (XGrpc.newBlockingStub) call servers of each other language', async () => {
    const r = await reportOf({
      // C# server: MapGrpcService<T>() with T : Cart.CartBase in another file.
      cart: {
        'Protos/shop.proto': SHOP_PROTO,
        'Program.cs': lines('var app = builder.Build();', 'app.MapGrpcService<CartImpl>();', 'app.Run();'),
        'Services/CartImpl.cs': lines(
          'namespace CartApi;',
          'public class CartImpl : Shop.Cart.CartBase',
          '{',
          '    public override Task<CartReply> GetCart(GetCartRequest r, ServerCallContext c) => null;',
          '}',
        ),
      },
      // Node server of Pricing.
      pricing: {
        'proto/shop.proto': SHOP_PROTO,
        'server.js': lines(
          'const grpc = require("@grpc/grpc-js");',
          'const shop = grpc.loadPackageDefinition(def).shop;',
          'const server = new grpc.Server();',
          'server.addService(shop.Pricing.service, { quote: (call, cb) => cb(null, {}) });',
        ),
      },
      // C# client of Pricing (channel), Python server of Cart? no: Python client of Cart.
      orders: {
        'Clients.cs': lines(
          'using Grpc.Net.Client;',
          'public class PricingGateway {',
          '  public async Task Run() {',
          '    using var channel = GrpcChannel.ForAddress("http://pricing:5001");',
          '    var client = new Shop.Pricing.PricingClient(channel);',
          '    var q = await client.QuoteAsync(new QuoteRequest());',
          '  }',
          '}',
        ),
        'Startup.cs': lines(
          'services.AddGrpcClient<Shop.Cart.CartClient>(o => { o.Address = new Uri("http://cart:7070"); });',
          'public class CartUser {',
          '  private readonly Shop.Cart.CartClient _cart;',
          '  public CartUser(Shop.Cart.CartClient cart) { _cart = cart; }',
          '  public Task Get() => _cart.GetCartAsync(new GetCartRequest()).ResponseAsync;',
          '}',
        ),
      },
      recommend: {
        'shop_pb2_grpc.py': lines(
          'class CartStub(object):',
          '    def __init__(self, channel):',
          "        self.GetCart = channel.unary_unary('/shop.Cart/GetCart')",
          'def add_CartServicer_to_server(servicer, server):',
          '    pass',
        ),
        'client.py': lines(
          'import os, grpc',
          'import shop_pb2_grpc',
          "channel = grpc.insecure_channel(os.environ.get('CART_ADDR', 'cart:7070'))",
          'stub = shop_pb2_grpc.CartStub(channel)',
          'def items(user):',
          '    return stub.GetCart(GetCartRequest(user_id=user))',
        ),
      },
      ads: {
        'src/main/java/ads/AdClient.java': lines(
          'package ads;',
          'import io.grpc.ManagedChannel;',
          'public class AdClient {',
          '  private final PricingGrpc.PricingBlockingStub stub;',
          '  AdClient(ManagedChannel channel) {',
          '    stub = PricingGrpc.newBlockingStub(channel);',
          '  }',
          '  void price() { stub.withDeadlineAfter(1, TimeUnit.SECONDS).quote(req); }',
          '}',
        ),
        'web.js': lines(
          'const grpc = require("@grpc/grpc-js");',
          'const shop = grpc.loadPackageDefinition(def).shop;',
          'const cart = new shop.Cart(process.env.CART_ADDR || "cart:7070", grpc.credentials.createInsecure());',
          'function add(user, item) { cart.addItem({ user, item }, () => {}); }',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'ads src/main/java/ads/AdClient.java:8 | gRPC shop.Pricing/quote | pricing server.js:4 gRPC shop.Pricing/Quote (grpc-node, rpc at pricing proto/shop.proto:11)',
      'ads web.js:4 | gRPC shop.Cart/addItem at `cart` | cart Program.cs:2 gRPC shop.Cart/AddItem (grpc-dotnet, rpc at cart Protos/shop.proto:5)',
      'orders Clients.cs:6 | gRPC shop.Pricing/Quote at `pricing` | pricing server.js:4 gRPC shop.Pricing/Quote (grpc-node, rpc at pricing proto/shop.proto:11)',
      'orders Startup.cs:5 | gRPC shop.Cart/GetCart at `cart` | cart Program.cs:2 gRPC shop.Cart/GetCart (grpc-dotnet, rpc at cart Protos/shop.proto:6)',
      'recommend client.py:6 | gRPC shop.Cart/GetCart at `cart` | cart Program.cs:2 gRPC shop.Cart/GetCart (grpc-dotnet, rpc at cart Protos/shop.proto:6)',
    ]);
    expect(r.table.map((t) => t.match)).toEqual([
      'service and method',
      'host `cart` + service and method',
      'host `pricing` + service and method',
      'host `cart` + service and method',
      'host `cart` + service and method',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('Python add_XServicer_to_server and Java extends XGrpc.XImplBase are servers; a generated _pb2_grpc.py is not', async () => {
    const r = await reportOf({
      py: {
        'shop_pb2_grpc.py': lines('def add_PricingServicer_to_server(servicer, server):', '    pass'),
        'server.py': lines(
          'import grpc',
          'import shop_pb2_grpc',
          'server = grpc.server(pool)',
          'shop_pb2_grpc.add_CartServicer_to_server(CartServicer(), server)',
        ),
      },
      java: {
        'src/main/proto/shop.proto': SHOP_PROTO,
        'src/main/java/p/PricingService.java': lines(
          'package p;',
          'public class PricingService extends PricingGrpc.PricingImplBase {',
          '  @Override public void quote(QuoteRequest r, StreamObserver<QuoteReply> o) {}',
          '}',
        ),
      },
      go: {
        'client.go': lines(
          'package main',
          'import "google.golang.org/grpc"',
          'import pb "go/gen"',
          'func f(conn *grpc.ClientConn) {',
          '  pb.NewCartClient(conn).GetCart(ctx, nil)',
          '  pb.NewPricingClient(conn).Quote(ctx, nil)',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'go client.go:5 | gRPC shop.Cart/GetCart | py server.py:4 gRPC shop.Cart/GetCart (grpc-python, rpc at java src/main/proto/shop.proto:6)',
      'go client.go:6 | gRPC shop.Pricing/Quote | java src/main/java/p/PricingService.java:2 gRPC shop.Pricing/Quote (grpc-java, rpc at java src/main/proto/shop.proto:11)',
    ]);
  });
});

describe('gRPC: typed clients injected in another file (C#)', () => {
  it('AddGrpcClient<BasketClient> (using static) with a target-typed address, the client injected through a primary constructor elsewhere; a server class with a primary constructor', async () => {
    const proto = lines(
      'syntax = "proto3";',
      'package BasketApi;',
      'service Basket {',
      '  rpc GetBasket(GetBasketRequest) returns (BasketResponse);',
      '  rpc DeleteBasket(DeleteBasketRequest) returns (Empty);',
      '}',
    );
    const r = await reportOf({
      'basket-api': {
        'Proto/basket.proto': proto,
        'Program.cs': lines('var app = builder.Build();', 'app.MapGrpcService<BasketGrpc>();', 'app.Run();'),
        'Grpc/BasketGrpc.cs': lines(
          'namespace Shop.Basket.Grpc;',
          'public class BasketGrpc(IBasketStore store, ILogger<BasketGrpc> logger) : Basket.BasketBase',
          '{',
          '}',
        ),
      },
      webapp: {
        'Protos/basket.proto': proto,
        'Extensions.cs': lines(
          'using static Shop.Basket.Grpc.Basket;',
          'public static class Extensions {',
          '  public static void AddServices(this IHostApplicationBuilder builder) {',
          '    builder.Services.AddGrpcClient<BasketClient>(o => o.Address = new("http://basket-api"));',
          '  }',
          '}',
        ),
        'Services/BasketState.cs': lines(
          'using Shop.Basket.Grpc;',
          'using static Shop.Basket.Grpc.Basket;',
          'public class BasketState(BasketClient basketClient, HttpClient http)',
          '{',
          '  public async Task<Basket> Get() => await basketClient.GetBasketAsync(new());',
          '  public async Task Clear() { await basketClient.DeleteBasketAsync(new()); await http.GetAsync("/x"); }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'webapp Services/BasketState.cs:5 | gRPC BasketApi.Basket/GetBasket at `basket-api` | basket-api Program.cs:2 gRPC BasketApi.Basket/GetBasket (grpc-dotnet, rpc at basket-api Proto/basket.proto:4)',
      'webapp Services/BasketState.cs:6 | gRPC BasketApi.Basket/DeleteBasket at `basket-api` | basket-api Program.cs:2 gRPC BasketApi.Basket/DeleteBasket (grpc-dotnet, rpc at basket-api Proto/basket.proto:5)',
    ]);
    expect(r.unresolvedCalls.filter((u) => u.calls.startsWith('gRPC'))).toEqual([]);
  });
});

describe('gRPC: C# typed client registrations', () => {
  it('AddGrpcClient with a multi-statement lambda, new System.Uri(url) from configuration sections, and new(endpoint!) from Configuration["…"]', async () => {
    const proto = lines(
      'syntax = "proto3";',
      'package shop;',
      'service Basket { rpc GetBasket(Req) returns (Res); }',
      'service Catalog { rpc GetItem(Req) returns (Res); }',
    );
    const server = (svc: string): Record<string, string> => ({
      'Protos/shop.proto': proto,
      'Program.cs': lines(`app.MapGrpcService<${svc}Impl>();`),
      'Impl.cs': lines(`public class ${svc}Impl : ${svc}.${svc}Base { }`),
    });
    const r = await reportOf({
      basket: server('Basket'),
      catalog: server('Catalog'),
      web: {
        'Protos/shop.proto': proto,
        'appsettings.json': JSON.stringify({
          ServiceUrls: { GrpcBasket: 'http://basket:81' },
          CatalogGrpc: 'http://catalog:81',
        }),
        'Setup.cs': lines(
          'public static class Setup {',
          '  public static void Add(IServiceCollection services, IConfiguration configuration, IHostApplicationBuilder builder) {',
          '    services.AddGrpcClient<BasketClient>(options =>',
          '    {',
          '        string url = configuration.GetSection("ServiceUrls").GetSection("GrpcBasket").Value;',
          '        options.Address = new System.Uri(url);',
          '    }).AddInterceptor<GrpcExceptionInterceptor>();',
          '    string? endpoint = builder.Configuration["CatalogGrpc"];',
          '    services.AddGrpcClient<CatalogClient>(o => o.Address = new(endpoint!));',
          '  }',
          '}',
        ),
        'Pages.cs': lines(
          'using Grpc.Core;',
          'public class Pages(BasketClient basket, CatalogClient catalog) {',
          '  public async Task Show() { await basket.GetBasketAsync(new()); await catalog.GetItemAsync(new()); }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web Pages.cs:3 | gRPC shop.Basket/GetBasket at `basket` | basket Program.cs:1 gRPC shop.Basket/GetBasket (grpc-dotnet, rpc at basket Protos/shop.proto:3)',
      'web Pages.cs:3 | gRPC shop.Catalog/GetItem at `catalog` | catalog Program.cs:1 gRPC shop.Catalog/GetItem (grpc-dotnet, rpc at catalog Protos/shop.proto:4)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('gRPC: NestJS microservices', () => {
  it('@GrpcMethod(service, method) registers that method (one decorator per method): the other methods of the proto are not served there', async () => {
    const r = await reportOf({
      cart: {
        'src/cart.controller.ts': lines(
          "import { Controller } from '@nestjs/common';",
          "import { GrpcMethod } from '@nestjs/microservices';",
          '@Controller()',
          'export class CartController {',
          "  @GrpcMethod('Cart', 'GetCart')",
          '  getCart(data: GetCartRequest) { return { items: [] }; }',
          "  @GrpcMethod('Cart', 'AddItem')",
          '  addItem(data: AddItemRequest) { return {}; }',
          '}',
        ),
      },
      web: {
        'proto/shop.proto': SHOP_PROTO,
        'rpc.go': lines(
          'package main',
          'import "google.golang.org/grpc"',
          'import pb "web/gen"',
          'func f(conn *grpc.ClientConn) {',
          '  c := pb.NewCartClient(conn)',
          '  c.GetCart(ctx, nil)',
          '  c.AddItem(ctx, nil)',
          '  c.Checkout(ctx, nil)',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web rpc.go:6 | gRPC shop.Cart/GetCart | cart src/cart.controller.ts:5 gRPC shop.Cart/GetCart (grpc-node)',
      'web rpc.go:7 | gRPC shop.Cart/AddItem | cart src/cart.controller.ts:7 gRPC shop.Cart/AddItem (grpc-node)',
    ]);
    expect(unresolved(r)).toEqual([
      'web rpc.go:8 gRPC shop.Cart/Checkout — no matching route: `cart` serves shop.Cart (src/cart.controller.ts:5) but no method Checkout',
    ]);
  });
});

describe('gRPC: NestJS clients by registration url (issue 20)', () => {
  const proto = lines(
    'syntax = "proto3";',
    'package hero;',
    'service HeroesService {',
    '  rpc FindOne (HeroById) returns (Hero);',
    '}',
  );
  const server = (port: string): Record<string, string> => ({
    'src/hero/hero.proto': proto,
    'src/main.ts': lines(
      "import { NestFactory } from '@nestjs/core';",
      "import { Transport } from '@nestjs/microservices';",
      'async function bootstrap() {',
      '  const app = await NestFactory.createMicroservice(AppModule, {',
      '    transport: Transport.GRPC,',
      `    options: { package: 'hero', protoPath: join(__dirname, 'hero/hero.proto'), url: '0.0.0.0:${port}' },`,
      '  });',
      '  await app.listen();',
      '}',
    ),
    'src/hero/hero.controller.ts': lines(
      "import { Controller } from '@nestjs/common';",
      "import { GrpcMethod } from '@nestjs/microservices';",
      '@Controller()',
      'export class HeroController {',
      "  @GrpcMethod('HeroesService', 'FindOne')",
      '  findOne(data: HeroById) { return { id: 1 }; }',
      '}',
    ),
  });

  it('ClientsModule.register([{ name, transport: Transport.GRPC, options: { url } }]) gives its url to the ClientGrpc injected by that token: getService calls reach the server at that address, not another serving the same service', async () => {
    const r = await reportOf({
      heroes: server('5000'),
      legacy: server('5001'),
      gateway: {
        'src/hero/hero.proto': proto,
        'src/app.module.ts': lines(
          "import { ClientsModule, Transport } from '@nestjs/microservices';",
          '@Module({',
          '  imports: [',
          '    ClientsModule.register([',
          "      { name: 'HERO_PACKAGE', transport: Transport.GRPC, options: { package: 'hero', protoPath: join(__dirname, 'hero/hero.proto'), url: process.env.HERO_URL || 'heroes:5000' } },",
          '    ]),',
          '  ],',
          '})',
          'export class AppModule {}',
        ),
        'src/hero/hero.service.ts': lines(
          "import { Inject, OnModuleInit } from '@nestjs/common';",
          "import { ClientGrpc } from '@nestjs/microservices';",
          'export class HeroService implements OnModuleInit {',
          '  private heroesService: HeroesService;',
          "  constructor(@Inject('HERO_PACKAGE') private client: ClientGrpc) {}",
          '  onModuleInit() {',
          "    this.heroesService = this.client.getService<HeroesService>('HeroesService');",
          '  }',
          '  getHero() {',
          '    return this.heroesService.findOne({ id: 1 });',
          '  }',
          '}',
        ),
      },
      deploy: {
        'docker-compose.yml': lines(
          'services:',
          '  heroes:',
          '    build: ../heroes',
          '  legacy:',
          '    build: ../legacy',
          '  gateway:',
          '    build: ../gateway',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'gateway src/hero/hero.service.ts:10 | gRPC hero.HeroesService/findOne at `heroes` | heroes src/hero/hero.controller.ts:5 gRPC hero.HeroesService/FindOne (grpc-node)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('gRPC: ambiguity and addresses', () => {
  const server = (name: string): Record<string, string> => ({
    'proto/shop.proto': SHOP_PROTO,
    'main.go': GO_CART_SERVER.replace('cart/gen', `${name}/gen`),
  });
  const client = lines(
    'package main',
    'import (',
    '  "os"',
    '  "google.golang.org/grpc"',
    '  pb "web/gen"',
    ')',
    'func main() {',
    '  conn, err := grpc.Dial(os.Getenv("CART_ADDR"), grpc.WithInsecure())',
    '  c := pb.NewCartClient(conn)',
    '  c.GetCart(ctx, nil)',
    '}',
  );

  it('two repositories serving the same service with no address that decides: ambiguous, naming both', async () => {
    const r = await reportOf({
      web: { 'proto/shop.proto': SHOP_PROTO, 'main.go': client },
      carta: server('carta'),
      cartb: server('cartb'),
    });
    expect(rows(r)).toEqual([]);
    expect(unresolved(r)).toEqual([
      'web main.go:10 gRPC shop.Cart/GetCart — ambiguous: served by `carta` and `cartb`, nothing tells them apart',
    ]);
    expect(r.unresolvedCalls[0]!.candidates.map((c) => `${c.source} ${c.file}:${c.line}`)).toEqual([
      'carta main.go:8',
      'cartb main.go:8',
    ]);
  });

  it('the address from docker-compose environment picks the repository', async () => {
    const r = await reportOf({
      web: {
        'proto/shop.proto': SHOP_PROTO,
        'main.go': client,
        'docker-compose.yml': lines(
          'services:',
          '  web:',
          '    build: ./web',
          '    environment:',
          '      CART_ADDR: cart-b:7070',
          '  cart-b:',
          '    build: ./cartb',
        ),
      },
      carta: server('carta'),
      cartb: server('cartb'),
    });
    expect(rows(r)).toEqual([
      'web main.go:10 | gRPC shop.Cart/GetCart at `cart-b` | cartb main.go:8 gRPC shop.Cart/GetCart (grpc-go, rpc at cartb proto/shop.proto:6)',
    ]);
    expect(r.table[0]!.match).toBe('host `cart-b` + service and method');
    expect(unresolved(r)).toEqual([]);
  });
  it('a channel dialled by a helper in another file (&s.cartConn, with an address from mustMapEnv-style out-parameters) gives the client its address', async () => {
    const r = await reportOf({
      web: {
        'proto/shop.proto': SHOP_PROTO,
        'main.go': lines(
          'package main',
          'import ("os"; "google.golang.org/grpc")',
          'type server struct { cartAddr string; cartConn *grpc.ClientConn }',
          'func main() {',
          '  s := new(server)',
          '  fromEnv(&s.cartAddr, "CART_ADDR")',
          '  dialGRPC(&s.cartConn, s.cartAddr)',
          '}',
          'func fromEnv(target *string, key string) { *target = os.Getenv(key) }',
          'func dialGRPC(conn **grpc.ClientConn, addr string) { *conn, _ = grpc.Dial(addr) }',
        ),
        'cart.go': lines(
          'package main',
          'import pb "web/gen"',
          'func (s *server) items(ctx context.Context) {',
          '  pb.NewCartClient(s.cartConn).GetCart(ctx, nil)',
          '}',
        ),
        '.env': lines('CART_ADDR=dns:///carta:7070'),
      },
      carta: server('carta'),
      cartb: server('cartb'),
    });
    expect(rows(r)).toEqual([
      'web cart.go:4 | gRPC shop.Cart/GetCart at `carta` | carta main.go:8 gRPC shop.Cart/GetCart (grpc-go, rpc at carta proto/shop.proto:6)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('gRPC: Go clients of two services held in one variable name in two functions (issue 20)', () => {
  it('each function dials its host and calls its own client: the uses pair with the nearest `client :=`, no host × method crossing', async () => {
    const r = await reportOf({
      web: {
        'clients.go': lines(
          'package clients',
          'import (',
          '  "context"',
          '  "google.golang.org/grpc"',
          '  pb "shop/gen"',
          ')',
          'func Cart(ctx context.Context) {',
          '  conn, _ := grpc.Dial("cart:50051", grpc.WithInsecure())',
          '  client := pb.NewCartClient(conn)',
          '  client.GetCart(ctx, nil)',
          '}',
          'func Quote(ctx context.Context) {',
          '  conn, _ := grpc.Dial("pricing:50052", grpc.WithInsecure())',
          '  client := pb.NewPricingClient(conn)',
          '  client.Quote(ctx, nil)',
          '}',
        ),
      },
      cart: { 'proto/shop.proto': SHOP_PROTO, 'main.go': GO_CART_SERVER },
      pricing: {
        'proto/shop.proto': SHOP_PROTO,
        'main.go': lines(
          'package main',
          'import (',
          '  "google.golang.org/grpc"',
          '  pb "pricing/gen"',
          ')',
          'func main() {',
          '  srv := grpc.NewServer()',
          '  pb.RegisterPricingServer(srv, &pricing{})',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web clients.go:10 | gRPC shop.Cart/GetCart at `cart` | cart main.go:8 gRPC shop.Cart/GetCart (grpc-go, rpc at cart proto/shop.proto:6)',
      'web clients.go:15 | gRPC shop.Pricing/Quote at `pricing` | pricing main.go:8 gRPC shop.Pricing/Quote (grpc-go, rpc at pricing proto/shop.proto:11)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
