import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20: Quarkus / MicroProfile stacks. Contract-first servers (the JAX-RS interface is generated from the
 * source's OpenAPI document at build time), MicroProfile REST client interfaces with their base URL from
 * configuration (profiles, Stork service discovery, environment overrides in Quarkus's naming).
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

/** A contract-first server: openapi.yml + classes implementing the generated interfaces by operationId. */
const orders = {
  'src/main/resources/openapi/openapi.yml': lines(
    'openapi: 3.0.3',
    'info:',
    '  title: Orders',
    'paths:',
    '  /api/orders/{id}:',
    '    get:',
    '      operationId: getOrder',
    '  /api/orders:',
    '    post:',
    '      operationId: createOrder',
    '  /api/orders/hello:',
    '    get:',
    '      operationId: hello',
  ),
  'src/main/java/shop/orders/OrderResource.java': lines(
    'package shop.orders;',
    'public class OrderResource implements OrdersResource {',
    '  @Override',
    '  public Uni<Order> getOrder(Long id) { return service.find(id); }',
    '  @Override',
    '  public Uni<Response> createOrder(Order o) { return service.create(o); }',
    '  public void helper() {}',
    '}',
  ),
  'src/main/java/shop/orders/HelloOrderResource.java': lines(
    'package shop.orders;',
    'public class HelloOrderResource implements HelloResource {',
    '  @Override',
    '  public Uni<String> hello() { return Uni.createFrom().item("hi"); }',
    '}',
  ),
  'src/main/resources/application.properties': lines('quarkus.http.port=8083'),
};

describe('Quarkus: contract-first JAX-RS servers and MicroProfile REST clients', () => {
  it('serves OpenAPI operations at the implementing methods; @RegisterRestClient calls through Stork and configKey', async () => {
    const r = await reportOf({
      orders,
      fights: {
        'src/main/java/shop/fights/OrderRestClient.java': lines(
          'package shop.fights;',
          '@Path("/api/orders")',
          '@RegisterRestClient(configKey = "order-client")',
          'interface OrderRestClient {',
          '  @GET',
          '  @Path("/{id}")',
          '  Uni<Order> find(@PathParam("id") long id);',
          '',
          '  @POST',
          '  Uni<Order> create(Order o);',
          '}',
        ),
        'src/main/java/shop/fights/HelloClient.java': lines(
          'package shop.fights;',
          '@Path("/api/orders")',
          '@RegisterRestClient',
          'interface HelloClient {',
          '  @GET',
          '  @Path("hello")',
          '  Uni<String> hello();',
          '}',
        ),
        'src/main/resources/application.properties': lines(
          'quarkus.rest-client."order-client".url=stork://order-service',
          '%dev.quarkus.rest-client."order-client".url=http://localhost:9999',
          'quarkus.stork.order-service.service-discovery.type=static',
          'quarkus.stork.order-service.service-discovery.address-list=localhost:8083',
          'shop.fights.HelloClient/mp-rest/url=http://localhost:9999',
          '%prod.shop.fights.HelloClient/mp-rest/url=${HELLO_URL:http://elsewhere:8080}',
        ),
      },
      deploy: {
        'docker-compose.yml': lines(
          'services:',
          '  orders:',
          '    build: ../orders',
          '  fights:',
          '    build: ../fights',
          '    environment:',
          '      QUARKUS_STORK_ORDER_SERVICE_SERVICE_DISCOVERY_ADDRESS_LIST: orders:8083',
          '      HELLO_URL: http://orders:8083',
        ),
      },
    });

    expect(rows(r)).toEqual([
      'fights src/main/java/shop/fights/HelloClient.java:7 | GET orders/api/orders/hello | orders src/main/java/shop/orders/HelloOrderResource.java:4 GET /api/orders/hello (openapi)',
      'fights src/main/java/shop/fights/OrderRestClient.java:7 | GET orders/api/orders/{} | orders src/main/java/shop/orders/OrderResource.java:4 GET /api/orders/{id} (openapi)',
      'fights src/main/java/shop/fights/OrderRestClient.java:10 | POST orders/api/orders | orders src/main/java/shop/orders/OrderResource.java:6 POST /api/orders (openapi)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('SmallRye Reactive Messaging on Kafka', () => {
  it('@Channel Emitter sends and @Outgoing publish to mp.messaging.outgoing.<c>.topic, @Incoming consumes; unbound channels are in-process', async () => {
    const r = await reportOf({
      fights: {
        'src/main/java/shop/fights/FightService.java': lines(
          'package shop.fights;',
          'public class FightService {',
          '  private final MutinyEmitter<Fight> emitter;',
          '  public FightService(@Channel("fights-out") MutinyEmitter<Fight> emitter) {',
          '    this.emitter = emitter;',
          '  }',
          '  Uni<Fight> persist(Fight f) {',
          '    return Fight.persist(f).invoke(this.emitter::sendAndForget);',
          '  }',
          '  @Outgoing("ticks")',
          '  Multi<Long> ticks() { return Multi.createFrom().ticks().every(Duration.ofSeconds(1)); }',
          '}',
        ),
        'src/main/resources/application.properties': lines(
          'mp.messaging.outgoing.fights-out.connector=smallrye-kafka',
          'mp.messaging.outgoing.fights-out.topic=fights',
        ),
      },
      stats: {
        'src/main/java/shop/stats/SuperStats.java': lines(
          'package shop.stats;',
          'public class SuperStats {',
          '  static final String FIGHTS = "fights";',
          '  @Incoming(FIGHTS)',
          '  @Outgoing("winner-stats")',
          '  Multi<Score> compute(Multi<Fight> fights) { return fights.map(Score::of); }',
          '  @Incoming("ticks")',
          '  void tick(long t) {}',
          '}',
        ),
        'src/main/resources/application.yml': lines(
          'mp:',
          '  messaging:',
          '    incoming:',
          '      fights:',
          '        connector: smallrye-kafka',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'fights src/main/java/shop/fights/FightService.java:8 | produce Kafka topic `fights` | stats src/main/java/shop/stats/SuperStats.java:4 consume Kafka topic `fights`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('Quarkus gRPC', () => {
  const proto = lines(
    'syntax = "proto3";',
    'package shop.locations.v1;',
    'service Locations {',
    '  rpc GetRandomLocation (RandomLocationRequest) returns (Location) {}',
    '  rpc Hello (HelloRequest) returns (HelloReply) {}',
    '}',
  );
  it('@GrpcClient("name") Mutiny interface calls a Kotlin server extending XImplBase; host/port from quarkus.grpc.clients.<name>', async () => {
    const r = await reportOf({
      locations: {
        'src/main/proto/locations.proto': proto,
        'src/main/kotlin/shop/locations/LocationGrpcService.kt': lines(
          'package shop.locations',
          'import shop.locations.LocationsGrpc.LocationsImplBase',
          '@GrpcService',
          'class LocationGrpcService(private val service: LocationService) : LocationsImplBase() {',
          '  override fun getRandomLocation(request: RandomLocationRequest?, observer: StreamObserver<Location>?) {}',
          '  override fun hello(request: HelloRequest?, observer: StreamObserver<HelloReply>?) {}',
          '}',
        ),
        'src/main/resources/application.properties': lines('quarkus.http.port=8089'),
      },
      fights: {
        'src/main/proto/locations.proto': proto,
        'src/main/java/shop/fights/LocationClient.java': lines(
          'package shop.fights;',
          'public class LocationClient {',
          '  private final Locations locationClient;',
          '  public LocationClient(@GrpcClient("locations") Locations locationClient) {',
          '    this.locationClient = locationClient;',
          '  }',
          '  Uni<Location> random() {',
          '    return this.locationClient.getRandomLocation(RandomLocationRequest.newBuilder().build());',
          '  }',
          '}',
        ),
        'src/main/resources/application.properties': lines(
          'quarkus.grpc.clients.locations.host=locations',
          'quarkus.grpc.clients.locations.port=8089',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'fights src/main/java/shop/fights/LocationClient.java:8 | gRPC shop.locations.v1.Locations/getRandomLocation at `locations` | locations src/main/kotlin/shop/locations/LocationGrpcService.kt:4 gRPC shop.locations.v1.Locations/GetRandomLocation (grpc-kotlin, rpc at locations src/main/proto/locations.proto:4)',
    ]);
  });
});

describe('JAX-RS client WebTargets held in fields (issue 20)', () => {
  it('a WebTarget built in the constructor with path segments, used with more paths in other methods; bases from @ConfigMapping chains and @ConfigProperty', async () => {
    const r = await reportOf({
      fights: {
        'src/main/resources/application.properties': lines(
          'fight.villain.client-base-url=stork://villain-service',
          'quarkus.stork.villain-service.service-discovery.type=static',
          'quarkus.stork.villain-service.service-discovery.address-list=villains:8084',
          'heroes.url=http://heroes:8083',
        ),
        'src/main/java/f/config/FightConfig.java': lines(
          'package f.config;',
          'import io.smallrye.config.ConfigMapping;',
          '@ConfigMapping(prefix = "fight")',
          'public interface FightConfig {',
          '  Villain villain();',
          '  interface Villain {',
          '    @WithDefault("villains")',
          '    String teamName();',
          '    String clientBaseUrl();',
          '  }',
          '}',
        ),
        'src/main/java/f/client/VillainClient.java': lines(
          'package f.client;',
          'import jakarta.ws.rs.client.ClientBuilder;',
          'import jakarta.ws.rs.client.WebTarget;',
          'public class VillainClient {',
          '  private final WebTarget villainClient;',
          '  public VillainClient(FightConfig fightConfig) {',
          '    this.villainClient = ClientBuilder.newClient()',
          '      .target(fightConfig.villain().clientBaseUrl())',
          '      .path("api/villains/");',
          '  }',
          '  public Uni<Villain> findRandomVillain() {',
          '    var target = this.villainClient.path("random");',
          '    Log.debugf("Going to %s", target.getUri());',
          '    return target',
          '      .request(MediaType.APPLICATION_JSON_TYPE)',
          '      .rx(UniInvoker.class)',
          '      .get(Villain.class);',
          '  }',
          '  public Villain create(Villain v) {',
          '    return villainClient.request().post(Entity.json(v), Villain.class);',
          '  }',
          '}',
        ),
        'src/main/java/f/client/HeroClient.java': lines(
          'package f.client;',
          'import jakarta.ws.rs.client.Client;',
          'import jakarta.ws.rs.client.WebTarget;',
          'public class HeroClient {',
          '  @ConfigProperty(name = "heroes.url", defaultValue = "http://localhost:8083")',
          '  String heroesUrl;',
          '  private WebTarget heroes;',
          '  void init(Client client) {',
          '    heroes = client.target(heroesUrl).path("/api/heroes");',
          '  }',
          '  Hero random() {',
          '    return heroes.path("/random").request().get(Hero.class);',
          '  }',
          '}',
        ),
      },
      villains: {
        'src/main/resources/application.properties': lines('quarkus.http.port=8084'),
        'src/main/java/v/VillainResource.java': lines(
          'package v;',
          '@Path("/api/villains")',
          'public class VillainResource {',
          '  @GET',
          '  @Path("/random")',
          '  public Villain random() { return null; }',
          '  @POST',
          '  public Villain create(Villain v) { return v; }',
          '}',
        ),
      },
      heroes: {
        'src/main/resources/application.properties': lines('quarkus.http.port=8083'),
        'src/main/java/h/HeroResource.java': lines(
          'package h;',
          '@Path("/api/heroes")',
          'public class HeroResource {',
          '  @GET',
          '  @Path("/random")',
          '  public Hero random() { return null; }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'fights src/main/java/f/client/HeroClient.java:12 | GET heroes/api/heroes/random | heroes src/main/java/h/HeroResource.java:4 GET /api/heroes/random (jax-rs)',
      'fights src/main/java/f/client/VillainClient.java:17 | GET villains/api/villains/random | villains src/main/java/v/VillainResource.java:4 GET /api/villains/random (jax-rs)',
      'fights src/main/java/f/client/VillainClient.java:20 | POST villains/api/villains | villains src/main/java/v/VillainResource.java:7 POST /api/villains (jax-rs)',
    ]);
  });
});
