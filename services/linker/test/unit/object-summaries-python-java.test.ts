import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * ADR 0062 for Python and Java: a class whose methods call or publish with fields its constructor set from
 * its arguments is summarised once (the same rules find the calls) and run where the object is created
 * and used, in any source, with that site's values.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

/** Two services serving the same route: only the host the client was created with tells them apart. */
const servers = {
  orders: {
    'app/main.py': lines(
      'from fastapi import FastAPI',
      'app = FastAPI()',
      '@app.get("/api/orders/{oid}")',
      'def get(oid: int):',
      '    return {}',
    ),
  },
  archive: {
    'app/main.py': lines(
      'from fastapi import FastAPI',
      'app = FastAPI()',
      '@app.get("/api/orders/{oid}")',
      'def get(oid: int):',
      '    return {}',
    ),
  },
};

describe('object summaries instantiated at call sites (Python)', () => {
  it('a client class holding its base URL from __init__ (positional and keyword), two instances told apart by the variable holding each', async () => {
    const r = await reportOf({
      ...servers,
      web: {
        'app/clients.py': lines(
          'import requests',
          '',
          'class OrdersClient:',
          '    def __init__(self, base_url, timeout=5):',
          '        self.base_url = base_url',
          '        self.session = requests.Session()',
          '',
          '    def get(self, oid):',
          '        return self.session.get(f"{self.base_url}/api/orders/{oid}", timeout=5)',
        ),
        'app/views.py': lines(
          'import os',
          'from app.clients import OrdersClient',
          '',
          'orders = OrdersClient(os.environ["ORDERS_URL"])',
          'archive = OrdersClient(base_url=os.getenv("ARCHIVE_URL"))',
          '',
          'def show(oid):',
          '    return orders.get(oid), archive.get(oid)',
        ),
        'docker-compose.yml': lines(
          'services:',
          '  web:',
          '    build: .',
          '    environment:',
          '      ORDERS_URL: http://orders:8000',
          '      ARCHIVE_URL: http://archive:8000',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app/views.py:8 | GET archive/api/orders/{} | archive app/main.py:3 GET /api/orders/{oid} (fastapi)',
      'web app/views.py:8 | GET orders/api/orders/{} | orders app/main.py:3 GET /api/orders/{oid} (fastapi)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('a pika publisher class whose exchange its creator names publishes there from its callers; an httpx client built in __init__ from a field', async () => {
    const r = await reportOf({
      ...servers,
      billing: {
        'worker.py': lines(
          'import pika',
          'channel = pika.BlockingConnection(pika.ConnectionParameters("rabbitmq")).channel()',
          'channel.exchange_declare(exchange="shop", exchange_type="topic")',
          'channel.queue_declare(queue="billing")',
          'channel.queue_bind(queue="billing", exchange="shop", routing_key="order.*")',
          'channel.basic_consume(queue="billing", on_message_callback=print)',
        ),
      },
      web: {
        'app/bus.py': lines(
          'import pika',
          '',
          'class Publisher:',
          '    def __init__(self, host, exchange="events"):',
          '        self.exchange = exchange',
          '        self.channel = pika.BlockingConnection(pika.ConnectionParameters(host)).channel()',
          '',
          '    def publish(self, key, body):',
          '        self.channel.basic_publish(exchange=self.exchange, routing_key=key, body=body)',
        ),
        'app/clients.py': lines(
          'import httpx',
          '',
          'class Orders:',
          '    def __init__(self, settings):',
          '        self.base = settings',
          '        self.http = httpx.AsyncClient(base_url=self.base)',
          '',
          '    async def fetch(self, oid):',
          '        return await self.http.get(f"/api/orders/{oid}")',
        ),
        'app/main.py': lines(
          'import os',
          'from app.bus import Publisher',
          'from app.clients import Orders',
          'bus = Publisher("rabbitmq", exchange="shop")',
          'orders = Orders(os.getenv("ARCHIVE_URL", "http://archive:8000"))',
          '',
          'async def place(o):',
          '    await orders.fetch(o.id)',
          '    bus.publish("order.placed", o)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web app/main.py:8 | GET archive/api/orders/{} | archive app/main.py:3 GET /api/orders/{oid} (fastapi)',
      'web app/main.py:9 | publish `shop` / `order.placed` | billing worker.py:6 consume queue `billing`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('a Kafka producer class of a shared library, created by a service with the topic of its environment (a default when unset)', async () => {
    const r = await reportOf({
      common: {
        'common/events.py': lines(
          'from kafka import KafkaProducer',
          '',
          'class Events:',
          '    def __init__(self, servers, topic):',
          '        self.topic = topic',
          '        self.producer = KafkaProducer(bootstrap_servers=servers)',
          '',
          '    def emit(self, message):',
          '        self.producer.send(self.topic, message)',
        ),
      },
      orders: {
        'app/main.py': lines(
          'import os',
          'from common.events import Events',
          'events = Events("kafka:9092", topic=os.getenv("ORDER_TOPIC", "orders"))',
          '',
          'def place(o):',
          '    events.emit(o)',
        ),
        '.env': 'ORDER_TOPIC=order-events\n',
      },
      shipping: {
        'consumer.py': lines(
          'from aiokafka import AIOKafkaConsumer',
          'consumer = AIOKafkaConsumer("order-events", bootstrap_servers="kafka:9092")',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders app/main.py:6 | produce Kafka topic `order-events` | shipping consumer.py:2 consume Kafka topic `order-events`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('object summaries instantiated at call sites (Java)', () => {
  it('a REST client base and a Kafka publisher of a library source, created by @Bean methods of a service with its configuration (two beans of one class told apart by name): each call made where the service calls them', async () => {
    const r = await reportOf({
      ...servers,
      shipping: {
        'consumer.py': lines(
          'from aiokafka import AIOKafkaConsumer',
          'consumer = AIOKafkaConsumer("order-events", bootstrap_servers="kafka:9092")',
        ),
      },
      lib: {
        'src/main/java/com/acme/lib/RestClientBase.java': lines(
          'package com.acme.lib;',
          'public class RestClientBase {',
          '  private final RestTemplate rest;',
          '  private final String base;',
          '  public RestClientBase(RestTemplate rest, String base) { this.rest = rest; this.base = base; }',
          '  public Order order(long id) { return rest.getForObject(base + "/api/orders/{id}", Order.class, id); }',
          '}',
        ),
        'src/main/java/com/acme/lib/EventPublisher.java': lines(
          'package com.acme.lib;',
          'public class EventPublisher {',
          '  private final KafkaTemplate<String, Object> kafka;',
          '  private final String topic;',
          '  public EventPublisher(KafkaTemplate<String, Object> kafka, String topic) { this.kafka = kafka; this.topic = topic; }',
          '  public void publish(Object event) { kafka.send(topic, event); }',
          '}',
        ),
      },
      web: {
        'src/main/java/com/acme/web/Clients.java': lines(
          'package com.acme.web;',
          '@Configuration',
          'public class Clients {',
          '  @Bean RestClientBase ordersClient(RestTemplate t, @Value("${clients.orders}") String ordersUrl) { return new RestClientBase(t, ordersUrl); }',
          '  @Bean RestClientBase archiveClient(RestTemplate t, @Value("${clients.archive}") String archiveUrl) { return new RestClientBase(t, archiveUrl); }',
          '  @Bean EventPublisher events(KafkaTemplate<String, Object> t, @Value("${app.topic}") String topic) { return new EventPublisher(t, topic); }',
          '}',
        ),
        'src/main/java/com/acme/web/OrderView.java': lines(
          'package com.acme.web;',
          '@Service',
          'public class OrderView {',
          '  private final RestClientBase ordersClient;',
          '  private final RestClientBase archiveClient;',
          '  private final EventPublisher events;',
          '  public Order show(long id) { events.publish(id); return ordersClient.order(id); }',
          '  public Order old(long id) { return archiveClient.order(id); }',
          '}',
        ),
        'src/main/resources/application.yml': lines(
          'app:',
          '  topic: order-events',
          'clients:',
          '  orders: http://orders:8000',
          '  archive: http://archive:8000',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/main/java/com/acme/web/OrderView.java:7 | GET orders/api/orders/{} | orders app/main.py:3 GET /api/orders/{oid} (fastapi)',
      'web src/main/java/com/acme/web/OrderView.java:8 | GET archive/api/orders/{} | archive app/main.py:3 GET /api/orders/{oid} (fastapi)',
      'web src/main/java/com/acme/web/OrderView.java:7 | produce Kafka topic `order-events` | shipping consumer.py:2 consume Kafka topic `order-events`',
    ]);
    expect(unresolved(r)).toEqual([]);
    expect(gaps(r)).toEqual([]);
  });

  it('a @ConfigurationProperties record’s accessor (serviceUrlConfig.location()) is its property; UriComponentsBuilder.fromUriString(base).path(…).queryParam(…).buildAndExpand().toUri() is base + path', async () => {
    const r = await reportOf({
      ...servers,
      web: {
        'src/main/java/com/acme/web/ServiceUrlConfig.java': lines(
          'package com.acme.web;',
          '@ConfigurationProperties(prefix = "acme.services")',
          'public record ServiceUrlConfig(String orders, String archive) {}',
        ),
        'src/main/java/com/acme/web/OrderService.java': lines(
          'package com.acme.web;',
          '@Service',
          'public class OrderService {',
          '  private final RestClient restClient;',
          '  private final ServiceUrlConfig serviceUrlConfig;',
          '  public Order get(long id) {',
          '    final URI url = UriComponentsBuilder.fromUriString(serviceUrlConfig.archive())',
          '        .path("/api/orders/{id}").queryParam("full", true).buildAndExpand(id).toUri();',
          '    return restClient.get().uri(url).retrieve().body(Order.class);',
          '  }',
          '}',
        ),
        'src/main/resources/application.properties': 'acme.services.archive=http://archive:8000\n',
      },
    });
    expect(rows(r)).toEqual([
      'web src/main/java/com/acme/web/OrderService.java:9 | GET archive/api/orders/{} | archive app/main.py:3 GET /api/orders/{oid} (fastapi)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
