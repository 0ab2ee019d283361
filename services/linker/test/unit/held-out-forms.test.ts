import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20, third held-out round: general forms the blind trials (a Spring Cloud shop with two Zuul
 * gateways and an AngularJS UI, a Node shop on supertest, a Go CQRS application on Kafka and gRPC)
 * showed missing, each with a small application written here and the exact links expected.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('a UI behind two gateways on one Docker host', () => {
  it('JS: a property of a parameter set in a controller is the URL of a call in its callback; a proxy URL naming a machine address reaches the one source on that port, and on through that gateway', async () => {
    const r = await reportOf({
      web: {
        'src/main/resources/application.yml': lines(
          'spring:',
          '  application:',
          '    name: web',
          'zuul:',
          '  routes:',
          '    edge:',
          '      path: /api/**',
          '      url: http://${DOCKER_IP:192.168.99.100}:9999',
        ),
        'src/main/java/demo/WebApplication.java': lines(
          'package demo;',
          '@SpringBootApplication',
          '@EnableZuulProxy',
          'public class WebApplication {}',
        ),
        'src/main/resources/static/js/controller.js': lines(
          "app.controller('CatalogCtrl', ['$scope', '$http', function ($scope, $http) {",
          "    $scope.url = '/api/catalog/v1/catalog';",
          '    $scope.load = function () {',
          "        $http({ method: 'GET', url: $scope.url }).success(function (data) {",
          '            $scope.catalog = data;',
          '        });',
          '    };',
          '}]);',
          "app.controller('OtherCtrl', ['$scope', '$http', function ($scope, $http) {",
          '    $scope.load = function () {',
          "        $http({ method: 'GET', url: $scope.url });",
          '    };',
          '}]);',
        ),
      },
      edge: {
        'src/main/resources/bootstrap.yml': lines('server:', '  port: 9999'),
        'src/main/resources/application.yml': lines(
          'spring:',
          '  application:',
          '    name: edge',
          'zuul:',
          "  ignored-services: '*'",
          '  routes:',
          '    catalog: /catalog/**',
        ),
      },
      catalog: {
        'src/main/resources/bootstrap.yml': lines(
          'server:',
          '  port: 0',
          'spring:',
          '  application:',
          '    name: catalog',
        ),
        'src/main/java/demo/CatalogController.java': lines(
          'package demo;',
          '@RestController',
          '@RequestMapping("/v1")',
          'public class CatalogController {',
          '    @RequestMapping(path = "/catalog", method = RequestMethod.GET)',
          '    public String catalog() { return ""; }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/main/resources/static/js/controller.js:4 | GET /api/catalog/v1/catalog | catalog src/main/java/demo/CatalogController.java:5 GET /v1/catalog (spring)',
    ]);
    // The other controller's `$scope` is another object: its `url` is not the first controller's.
    expect(unresolved(r)).toEqual([
      'web src/main/resources/static/js/controller.js:11 GET ${$scope.url} — dynamic URL: the URL is only known at run time (`$scope.url` is no constant of the source)',
    ]);
  });
});

describe('Go: settings structs, topic dispatch and generated gRPC names', () => {
  it('a topic read from a settings struct unmarshalled from config.yaml; a handler switching on the message topic consumes each case; the wire name of a proto service spelled in lower camel case; a NewXClient nothing declares is no gRPC client', async () => {
    const r = await reportOf({
      gateway: {
        'config/config.yaml': lines(
          'grpc:',
          '  readerServicePort: reader:5003',
          'kafkaTopics:',
          '  productCreate:',
          '    topicName: product_create',
        ),
        'config/config.go': lines(
          'package config',
          '',
          'type TopicConfig struct {',
          '\tTopicName string `mapstructure:"topicName"`',
          '}',
          '',
          'type KafkaTopics struct {',
          '\tProductCreate TopicConfig `mapstructure:"productCreate"`',
          '}',
          '',
          'type Config struct {',
          '\tKafkaTopics KafkaTopics `mapstructure:"kafkaTopics"`',
          '}',
        ),
        'commands/create.go': lines(
          'package commands',
          '',
          'import "github.com/segmentio/kafka-go"',
          '',
          'func (c *handler) Handle(ctx context.Context, b []byte) error {',
          '\treturn c.producer.PublishMessage(ctx, kafka.Message{',
          '\t\tTopic: c.cfg.KafkaTopics.ProductCreate.TopicName,',
          '\t\tValue: b,',
          '\t})',
          '}',
        ),
        'server/server.go': lines(
          'package server',
          '',
          'import (',
          '\t"google.golang.org/grpc"',
          '\treaderService "example.com/reader/proto"',
          '\t"example.com/pkg/redis"',
          ')',
          '',
          'func (s *server) Run() error {',
          '\tconn, _ := grpc.Dial(s.cfg.Grpc.ReaderServicePort, grpc.WithInsecure())',
          '\trs := readerService.NewReaderServiceClient(conn)',
          '\trs.GetProductById(ctx, &readerService.GetProductByIdReq{})',
          '\tcache := redis.NewUniversalRedisClient(s.cfg.Redis)',
          '\tcache.PoolStats()',
          '\treturn nil',
          '}',
        ),
      },
      reader: {
        'proto/reader.proto': lines(
          'syntax = "proto3";',
          'package readerService;',
          'service readerService {',
          '  rpc GetProductById(GetProductByIdReq) returns (GetProductByIdRes);',
          '}',
        ),
        'config/config.yaml': lines('kafkaTopics:', '  productCreate:', '    topicName: product_create'),
        'server/grpc.go': lines(
          'package server',
          '',
          'import (',
          '\t"google.golang.org/grpc"',
          '\treaderService "example.com/reader/proto"',
          ')',
          '',
          'func (s *server) serve() {',
          '\tg := grpc.NewServer()',
          '\treaderService.RegisterReaderServiceServer(g, s.impl)',
          '}',
        ),
        'delivery/consumer.go': lines(
          'package delivery',
          '',
          'import "github.com/segmentio/kafka-go"',
          '',
          'func (s *processor) Process(ctx context.Context, r *kafka.Reader) {',
          '\tm, _ := r.FetchMessage(ctx)',
          '\tswitch m.Topic {',
          '\tcase s.cfg.KafkaTopics.ProductCreate.TopicName:',
          '\t\ts.create(ctx, m)',
          '\t}',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'gateway server/server.go:12 | gRPC readerService.readerService/GetProductById at `reader` | reader server/grpc.go:10 gRPC readerService.readerService/GetProductById (grpc-go, rpc at reader proto/reader.proto:4)',
      'gateway commands/create.go:7 | produce Kafka topic `product_create` | reader delivery/consumer.go:8 consume Kafka topic `product_create`',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Node: supertest as an HTTP client', () => {
  it('supertest(base URL).post(path) is a call under the base; supertest(app) tests the app itself', async () => {
    const r = await reportOf({
      booking: {
        'src/services/payment.service.js': lines(
          "const supertest = require('supertest')",
          '',
          'module.exports = (order) => new Promise((resolve, reject) => {',
          "  supertest('https://192.168.99.100:8080')",
          "    .post('/payment/makePurchase')",
          '    .send({ order })',
          '    .end((err, res) => (err ? reject(err) : resolve(res.body)))',
          '})',
        ),
        'src/check.js': lines(
          "const request = require('supertest')",
          "const app = require('./app')",
          "module.exports = () => request(app).get('/payment/health')",
        ),
      },
      payment: {
        'src/api/payment.js': lines(
          'module.exports = (app) => {',
          "  app.post('/payment/makePurchase', (req, res) => res.json({}))",
          "  app.get('/payment/health', (req, res) => res.json({}))",
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'booking src/services/payment.service.js:4 | POST 192.168.99.100/payment/makepurchase | payment src/api/payment.js:2 POST /payment/makePurchase (express)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});

describe('Java: Spring Data REST without annotations', () => {
  it('a build depending on Spring Data REST exports every repository (search methods, associations) under the base path a RepositoryRestConfigurer sets; without the dependency nothing is served', async () => {
    const repo = (pkg: string): Record<string, string> => ({
      'src/main/java/demo/CatalogRepository.java': lines(
        `package ${pkg};`,
        '',
        'public interface CatalogRepository extends GraphRepository<Catalog> {',
        '    Catalog findCatalogByCatalogNumber(@Param("catalogNumber") Long catalogNumber);',
        '}',
      ),
      'src/main/java/demo/InventoryApplication.java': lines(
        `package ${pkg};`,
        '',
        '@SpringBootApplication',
        'public class InventoryApplication {',
        '    @Configuration',
        '    public static class RestConfig extends RepositoryRestConfigurerAdapter {',
        '        @Override',
        '        public void configureRepositoryRestConfiguration(RepositoryRestConfiguration config) {',
        '            config.setBasePath("/api");',
        '        }',
        '    }',
        '}',
      ),
    });
    const r = await reportOf({
      inventory: {
        'pom.xml': lines(
          '<project>',
          '  <dependencies>',
          '    <dependency><artifactId>spring-boot-starter-data-rest</artifactId></dependency>',
          '  </dependencies>',
          '</project>',
        ),
        ...repo('demo'),
      },
      // The same code in a build without Spring Data REST serves nothing.
      archive: repo('archive'),
      catalog: {
        'src/main/java/demo/CatalogService.java': lines(
          'package demo;',
          '',
          'public class CatalogService {',
          '    public Catalog get(Long n) {',
          '        Catalog c = restTemplate.getForObject(String.format("http://inventory/api/catalogs/search/findCatalogByCatalogNumber?catalogNumber=%s", n), Catalog.class);',
          '        restTemplate.getForObject(String.format("http://inventory/api/catalogs/%s/products", c.getId()), Products.class);',
          '        restTemplate.getForObject(String.format("http://archive/api/catalogs/%s", n), Catalog.class);',
          '        return c;',
          '    }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'catalog src/main/java/demo/CatalogService.java:5 | GET inventory/api/catalogs/search/findcatalogbycatalognumber | inventory src/main/java/demo/CatalogRepository.java:4 GET /api/catalogs/search/findCatalogByCatalogNumber (spring-data-rest)',
      'catalog src/main/java/demo/CatalogService.java:6 | GET inventory/api/catalogs/{}/products | inventory src/main/java/demo/CatalogRepository.java:3 GET /api/catalogs/{id}/{property} (spring-data-rest)',
    ]);
    expect(unresolved(r)).toEqual([
      'catalog src/main/java/demo/CatalogService.java:7 GET archive/api/catalogs/{} — no matching route: `archive` serves no GET /api/catalogs/{}',
    ]);
  });
});
