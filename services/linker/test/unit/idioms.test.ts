import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * One focused test per idiom of issue 12 not already covered by real-code.test.ts: small applications
 * written the way code in that framework is written, with the exact links, flows and findings expected.
 * services/linker/README.md ("Idioms") maps every idiom to its test.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('Go idioms', () => {
  it('gorilla/mux: Path, PathPrefix and Methods in any order, sub-routers of sub-routers, http.Method constants', async () => {
    const r = await reportOf({
      orders: {
        'cmd/orders/main.go': lines(
          'package main',
          '',
          'func main() {',
          '\tr := mux.NewRouter()',
          '\tr.HandleFunc("/orders", list).Methods("GET")',
          '\tr.Path("/orders/{id}").Methods(http.MethodPut).HandlerFunc(update)',
          '\tr.Methods(http.MethodDelete).Path("/orders/{id}").HandlerFunc(remove)',
          '\tapi := r.PathPrefix("/api/v1").Subrouter()',
          '\tapi.HandleFunc("/carts/{id}", getCart).Methods(http.MethodGet, http.MethodHead)',
          '\tadmin := api.PathPrefix("/admin").Subrouter()',
          '\tadmin.Methods("POST").Path("/reindex").HandlerFunc(reindex)',
          '\tlog.Fatal(http.ListenAndServe(":8080", r))',
          '}',
        ),
      },
      web: {
        'src/client.ts': lines(
          "const base = 'http://orders:8080';",
          'export const a = () => fetch(`${base}/orders`);',
          "export const b = (id: string) => fetch(`${base}/orders/${id}`, { method: 'PUT' });",
          "export const c = (id: string) => fetch(`${base}/orders/${id}`, { method: 'DELETE' });",
          'export const d = (id: string) => fetch(`${base}/api/v1/carts/${id}`);',
          "export const e = () => fetch(`${base}/api/v1/admin/reindex`, { method: 'POST' });",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/client.ts:2 | GET orders/orders | orders cmd/orders/main.go:5 GET /orders (gorilla/mux)',
      'web src/client.ts:3 | PUT orders/orders/{} | orders cmd/orders/main.go:6 PUT /orders/{id} (gorilla/mux)',
      'web src/client.ts:4 | DELETE orders/orders/{} | orders cmd/orders/main.go:7 DELETE /orders/{id} (gorilla/mux)',
      'web src/client.ts:5 | GET orders/api/v1/carts/{} | orders cmd/orders/main.go:9 GET /api/v1/carts/{id} (gorilla/mux)',
      'web src/client.ts:6 | POST orders/api/v1/admin/reindex | orders cmd/orders/main.go:11 POST /api/v1/admin/reindex (gorilla/mux)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });

  it('go-kit transports: Methods().Path().Handler(httptransport.NewServer) on a sub-router; net/http 1.22 method patterns', async () => {
    const r = await reportOf({
      profiles: {
        'transport.go': lines(
          'package profilesvc',
          '',
          'func MakeHTTPHandler(s Service, logger log.Logger) http.Handler {',
          '\tr := mux.NewRouter()',
          '\te := MakeServerEndpoints(s)',
          '\tv1 := r.PathPrefix("/v1").Subrouter()',
          '\tv1.Methods("POST").Path("/profiles/").Handler(httptransport.NewServer(',
          '\t\te.PostProfileEndpoint,',
          '\t\tdecodePostProfileRequest,',
          '\t\tencodeResponse,',
          '\t))',
          '\tv1.Methods("GET").Path("/profiles/{id}").Handler(kithttp.NewServer(e.GetProfileEndpoint, decodeGet, encodeResponse))',
          '\treturn r',
          '}',
        ),
      },
      payments: {
        'main.go': lines(
          'package main',
          '',
          'func main() {',
          '\tmux := http.NewServeMux()',
          '\tmux.HandleFunc("POST /payments/{id}/refund", refund)',
          '\thttp.HandleFunc("GET /payments/{id}", get)',
          '\thttp.ListenAndServe(":8080", mux)',
          '}',
        ),
      },
      web: {
        'client.go': lines(
          'package client',
          '',
          'const profiles = "http://profiles:8080"',
          '',
          'func Create(body io.Reader) (*http.Response, error) {',
          '\treturn http.Post(profiles+"/v1/profiles/", "application/json", body)',
          '}',
          '',
          'func Get(ctx context.Context, id string) (*http.Response, error) {',
          '\treq, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/v1/profiles/%s", profiles, id), nil)',
          '\tif err != nil {',
          '\t\treturn nil, err',
          '\t}',
          '\treturn http.DefaultClient.Do(req)',
          '}',
          '',
          'func Refund(id string) error {',
          '\treq, _ := http.NewRequest("POST", "http://payments:8080/payments/"+id+"/refund", nil)',
          '\t_, err := http.DefaultClient.Do(req)',
          '\treturn err',
          '}',
          '',
          'func Payment(id string) (*http.Response, error) { return http.Get("http://payments:8080/payments/" + id) }',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web client.go:6 | POST profiles/v1/profiles | profiles transport.go:7 POST /v1/profiles (go-kit)',
      'web client.go:10 | GET profiles/v1/profiles/{} | profiles transport.go:12 GET /v1/profiles/{id} (go-kit)',
      'web client.go:18 | POST payments/payments/{}/refund | payments main.go:5 POST /payments/{id}/refund (net/http)',
      'web client.go:23 | GET payments/payments/{} | payments main.go:6 GET /payments/{id} (net/http)',
    ]);
  });

  it('chi, gin and echo groups', async () => {
    const r = await reportOf({
      catalog: {
        'main.go': lines(
          'package main',
          '',
          'func main() {',
          '\tr := chi.NewRouter()',
          '\tr.Route("/api", func(r chi.Router) {',
          '\t\tr.Get("/products/{productID}", getProduct)',
          '\t})',
          '\tg := gin.Default()',
          '\tv2 := g.Group("/v2")',
          '\t{',
          '\t\titems := v2.Group("/items")',
          '\t\titems.POST("", createItem)',
          '\t\titems.GET("/:id", getItem)',
          '\t}',
          '\te := echo.New()',
          '\tadmin := e.Group("/admin")',
          '\tadmin.DELETE("/cache/:key", purge)',
          '}',
        ),
      },
      web: {
        'api.py': lines(
          'import requests',
          '',
          'CATALOG = "http://catalog"',
          '',
          'def product(pid):',
          '    return requests.get(f"{CATALOG}/api/products/{pid}")',
          '',
          'def create(item):',
          '    return requests.post(CATALOG + "/v2/items", json=item)',
          '',
          'def item(iid):',
          '    return requests.get(f"{CATALOG}/v2/items/{iid}")',
          '',
          'def purge(key):',
          '    return requests.delete(f"{CATALOG}/admin/cache/{key}")',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web api.py:6 | GET catalog/api/products/{} | catalog main.go:6 GET /api/products/{productID} (chi)',
      'web api.py:9 | POST catalog/v2/items | catalog main.go:12 POST /v2/items (gin)',
      'web api.py:12 | GET catalog/v2/items/{} | catalog main.go:13 GET /v2/items/:id (gin)',
      'web api.py:15 | DELETE catalog/admin/cache/{} | catalog main.go:17 DELETE /admin/cache/:key (echo)',
    ]);
  });

  it('chi Mount of a router built by a function of the file (mounts of mounts) or held in a variable; chi Method', async () => {
    const r = await reportOf({
      shop: {
        'cmd/shop/main.go': lines(
          'package main',
          '',
          'func main() {',
          '\tr := chi.NewRouter()',
          '\tr.Use(middleware.Logger)',
          '\tr.Mount("/api", apiRouter())',
          '\thttp.ListenAndServe(":8080", r)',
          '}',
          '',
          'func apiRouter() http.Handler {',
          '\tr := chi.NewRouter()',
          '\tr.Mount("/orders", ordersRouter())',
          '\tcarts := chi.NewRouter()',
          '\tcarts.Get("/{cartID}", getCart)',
          '\tr.Mount("/carts", carts)',
          '\treturn r',
          '}',
          '',
          'func ordersRouter() chi.Router {',
          '\tr := chi.NewRouter()',
          '\tr.Get("/", listOrders)',
          '\tr.Route("/{orderID}", func(r chi.Router) {',
          '\t\tr.Get("/", getOrder)',
          '\t\tr.Method(http.MethodPut, "/status", http.HandlerFunc(setStatus))',
          '\t})',
          '\treturn r',
          '}',
        ),
      },
      web: {
        'src/shop.ts': lines(
          "const SHOP = 'http://shop:8080/api';",
          'export const orders = () => fetch(`${SHOP}/orders`);',
          'export const order = (id: string) => fetch(`${SHOP}/orders/${id}`);',
          "export const status = (id: string) => fetch(`${SHOP}/orders/${id}/status`, { method: 'PUT' });",
          'export const cart = (id: string) => fetch(`${SHOP}/carts/${id}`);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/shop.ts:2 | GET shop/api/orders | shop cmd/shop/main.go:21 GET /api/orders (chi)',
      'web src/shop.ts:3 | GET shop/api/orders/{} | shop cmd/shop/main.go:23 GET /api/orders/{orderID} (chi)',
      'web src/shop.ts:4 | PUT shop/api/orders/{}/status | shop cmd/shop/main.go:24 PUT /api/orders/{orderID}/status (chi)',
      'web src/shop.ts:5 | GET shop/api/carts/{} | shop cmd/shop/main.go:14 GET /api/carts/{cartID} (chi)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });

  it('sarama (sync and async producers, partition and group consumers) and segmentio/kafka-go (Writer, Message, Reader)', async () => {
    const r = await reportOf({
      orders: {
        'producer.go': lines(
          'package main',
          '',
          'const ordersTopic = "orders"',
          '',
          'func publish(p sarama.SyncProducer, ap sarama.AsyncProducer, v []byte) {',
          '\tp.SendMessage(&sarama.ProducerMessage{Topic: ordersTopic, Value: sarama.ByteEncoder(v)})',
          '\tap.Input() <- &sarama.ProducerMessage{Topic: "audit", Value: sarama.ByteEncoder(v)}',
          '}',
        ),
      },
      billing: {
        'consumer.go': lines(
          'package main',
          '',
          'func run(ctx context.Context, group sarama.ConsumerGroup, c sarama.Consumer) {',
          '\tgroup.Consume(ctx, []string{"orders"}, handler{})',
          '\tpc, _ := c.ConsumePartition("audit", 0, sarama.OffsetNewest)',
          '\tdefer pc.Close()',
          '}',
        ),
        'writer.go': lines(
          'package main',
          '',
          'func emit(ctx context.Context, v []byte) error {',
          '\tw := &kafka.Writer{Addr: kafka.TCP("kafka:9092"), Balancer: &kafka.LeastBytes{}}',
          '\treturn w.WriteMessages(ctx, kafka.Message{Topic: "invoices", Value: v})',
          '}',
        ),
      },
      ledger: {
        'main.go': lines(
          'package main',
          '',
          'func main() {',
          '\tr := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, GroupID: "ledger", Topic: "invoices"})',
          '\tdefer r.Close()',
          '\tw := kafka.Writer{Addr: kafka.TCP("kafka:9092"), Topic: "ledger-entries"}',
          '\tdefer w.Close()',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'billing writer.go:5 | produce Kafka topic `invoices` | ledger main.go:4 consume Kafka topic `invoices`',
      'orders producer.go:6 | produce Kafka topic `orders` | billing consumer.go:4 consume Kafka topic `orders`',
      'orders producer.go:7 | produce Kafka topic `audit` | billing consumer.go:5 consume Kafka topic `audit`',
    ]);
    expect(gaps(r)).toEqual(['publisher ledger main.go:6 no consumer of Kafka topic `ledger-entries`']);
  });

  it('kafka-go writers in a map keyed by topic: a helper looking the writer up publishes where it is called, map keys only', async () => {
    const r = await reportOf({
      accounts: {
        'cmd/main.go': lines(
          'package main',
          '',
          'func main() {',
          '	writers := map[string]*kafka.Writer{',
          '		"account-opened": kafka.NewWriter(kafka.WriterConfig{Brokers: []string{"kafka:9092"}, Topic: "account-opened"}),',
          '		"account-audit":  &kafka.Writer{Addr: kafka.TCP("kafka:9092"), Topic: "account-audit"},',
          '	}',
          '	writers["account-closed"] = kafka.NewWriter(kafka.WriterConfig{Topic: "account-closed"})',
          '	svc := service.New(writers)',
          '	svc.Run()',
          '}',
        ),
        'internal/service/publish.go': lines(
          'package service',
          '',
          'func (s *Service) Emit(ctx context.Context, topic string, v []byte) error {',
          '	w, ok := s.writers[topic]',
          '	if !ok {',
          '		return ErrUnknownTopic',
          '	}',
          '	return w.WriteMessages(ctx, kafka.Message{Value: v})',
          '}',
          '',
          'func (s *Service) Open(ctx context.Context, v []byte) error {',
          '	return s.Emit(ctx, "account-opened", v)',
          '}',
          '',
          'func (s *Service) Close(ctx context.Context, v []byte) error {',
          '	if err := s.Emit(ctx, "account-closed", v); err != nil {',
          '		return err',
          '	}',
          '	return s.Emit(ctx, "mail-request", v)',
          '}',
        ),
      },
      ledger: {
        'main.go': lines(
          'package main',
          '',
          'func main() {',
          '	for _, t := range []string{"account-opened", "account-closed", "mail-request", "account-audit"} {',
          '		go consume(t)',
          '	}',
          '}',
          '',
          'func consume(t string) {',
          '	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, Topic: "account-opened"})',
          '	r2 := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, Topic: "account-closed"})',
          '	r3 := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, Topic: "mail-request"})',
          '	r4 := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, Topic: "account-audit"})',
          '}',
        ),
      },
    });
    // The writers' declarations are no publishers; "mail-request" has no writer (the helper returns before
    // writing) and "account-audit" has a writer nothing writes to.
    expect(rows(r)).toEqual([
      'accounts internal/service/publish.go:12 | produce Kafka topic `account-opened` | ledger main.go:10 consume Kafka topic `account-opened`',
      'accounts internal/service/publish.go:16 | produce Kafka topic `account-closed` | ledger main.go:11 consume Kafka topic `account-closed`',
    ]);
    expect(gaps(r)).toEqual([
      'consumer ledger main.go:12 no producer for Kafka topic `mail-request`',
      'consumer ledger main.go:13 no producer for Kafka topic `account-audit`',
    ]);
  });

  it('kafka-go writer map filled in a loop over a topic list; a topic passed on through a second helper', async () => {
    const r = await reportOf({
      shop: {
        'main.go': lines(
          'package main',
          '',
          'var topics = []string{"user-created", "user-deleted"}',
          '',
          'var writers = make(map[string]*kafka.Writer)',
          '',
          'func main() {',
          '	for _, t := range topics {',
          '		writers[t] = &kafka.Writer{Addr: kafka.TCP("kafka:9092"), Topic: t}',
          '	}',
          '	PublishUser(context.Background(), "user-created", nil)',
          '	PublishUser(context.Background(), "user-renamed", nil)',
          '}',
          '',
          'func PublishUser(ctx context.Context, topic string, v []byte) error {',
          '	return PublishMessage(ctx, topic, v)',
          '}',
          '',
          'func PublishMessage(ctx context.Context, topic string, v []byte) error {',
          '	w, ok := writers[topic]',
          '	if !ok {',
          '		return nil',
          '	}',
          '	return w.WriteMessages(ctx, kafka.Message{Value: v})',
          '}',
        ),
      },
      mailer: {
        'main.go': lines(
          'package main',
          '',
          'func main() {',
          '	r := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, Topic: "user-created"})',
          '	r2 := kafka.NewReader(kafka.ReaderConfig{Brokers: []string{"kafka:9092"}, Topic: "user-renamed"})',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop main.go:11 | produce Kafka topic `user-created` | mailer main.go:4 consume Kafka topic `user-created`',
    ]);
    expect(gaps(r)).toEqual(['consumer mailer main.go:5 no producer for Kafka topic `user-renamed`']);
  });
});

describe('Go RabbitMQ', () => {
  it('amqp091-go: q, err := ch.QueueDeclare("name", …) then q.Name in QueueBind and Consume; PublishWithContext', async () => {
    const r = await reportOf({
      orders: {
        'internal/events/publisher.go': lines(
          'package events',
          '',
          'func (p *Publisher) OrderCreated(ctx context.Context, body []byte) error {',
          '\treturn p.ch.PublishWithContext(ctx, "orders", "order.created", false, false, amqp.Publishing{',
          '\t\tContentType: "application/json",',
          '\t\tBody:        body,',
          '\t})',
          '}',
        ),
      },
      mailer: {
        'main.go': lines(
          'package main',
          '',
          'func main() {',
          '\tconn, _ := amqp.Dial(os.Getenv("AMQP_URL"))',
          '\tch, _ := conn.Channel()',
          '\t_ = ch.ExchangeDeclare("orders", "topic", true, false, false, false, nil)',
          '\tq, err := ch.QueueDeclare(',
          '\t\t"emails", // name',
          '\t\ttrue,     // durable',
          '\t\tfalse, false, false, nil,',
          '\t)',
          '\tfailOnError(err, "declare")',
          '\t_ = ch.QueueBind(q.Name, "order.*", "orders", false, nil)',
          '\tmsgs, _ := ch.Consume(q.Name, "", true, false, false, false, nil)',
          '\tfor d := range msgs {',
          '\t\tsend(d.Body)',
          '\t}',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders internal/events/publisher.go:4 | publish `orders` / `order.created` | mailer main.go:14 consume queue `emails`',
    ]);
    expect(r.messagingGaps).toEqual([]);
  });
});

describe('Python idioms', () => {
  it('FastAPI: APIRouter prefixes plus the include_router prefix of another module; requests, httpx AsyncClient(base_url) and aiohttp ClientSession(base_url)', async () => {
    const r = await reportOf({
      orders: {
        'app/routers/orders.py': lines(
          'from fastapi import APIRouter',
          '',
          'router = APIRouter(prefix="/orders", tags=["orders"])',
          '',
          '',
          '@router.get("/{order_id}")',
          'async def read_order(order_id: int):',
          '    return {"id": order_id}',
          '',
          '',
          '@router.post("/", status_code=201)',
          'async def create_order(order: Order):',
          '    return order',
        ),
        'app/main.py': lines(
          'from fastapi import FastAPI',
          'from app.routers import orders',
          '',
          'app = FastAPI()',
          'app.include_router(orders.router, prefix="/api/v1")',
        ),
      },
      web: {
        'web/clients.py': lines(
          'import os',
          'import httpx',
          'import requests',
          '',
          'ORDERS_URL = os.getenv("ORDERS_URL", "http://orders:8000")',
          '',
          '',
          'async def order(order_id: int):',
          '    async with httpx.AsyncClient(base_url=ORDERS_URL, timeout=5.0) as client:',
          '        resp = await client.get(f"/api/v1/orders/{order_id}")',
          '        return resp.json()',
          '',
          '',
          'def place(order):',
          '    return requests.post(f"{ORDERS_URL}/api/v1/orders/", json=order, timeout=5)',
          '',
          '',
          'def legacy(order_id):',
          '    return httpx.get(ORDERS_URL + "/api/v1/orders/" + str(order_id))',
          '',
          '',
          'async def order_aio(order_id: int):',
          '    async with aiohttp.ClientSession(ORDERS_URL) as session:',
          '        async with session.get(f"/api/v1/orders/{order_id}") as resp:',
          '            return await resp.json()',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web web/clients.py:10 | GET orders/api/v1/orders/{} | orders app/routers/orders.py:6 GET /api/v1/orders/{order_id} (fastapi)',
      'web web/clients.py:15 | POST orders/api/v1/orders | orders app/routers/orders.py:11 POST /api/v1/orders (fastapi)',
      'web web/clients.py:19 | GET orders/api/v1/orders/{} | orders app/routers/orders.py:6 GET /api/v1/orders/{order_id} (fastapi)',
      'web web/clients.py:24 | GET orders/api/v1/orders/{} | orders app/routers/orders.py:6 GET /api/v1/orders/{order_id} (fastapi)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });

  it('Django URLconfs with include(), path converters and re_path groups', async () => {
    const r = await reportOf({
      catalog: {
        'mysite/urls.py': lines(
          'from django.contrib import admin',
          'from django.urls import include, path',
          '',
          'urlpatterns = [',
          '    path("admin/", admin.site.urls),',
          '    path("api/", include("catalog.urls")),',
          ']',
        ),
        'catalog/urls.py': lines(
          'from django.urls import path, re_path',
          '',
          'from . import views',
          '',
          'urlpatterns = [',
          '    path("products/<int:pk>/", views.product_detail, name="product-detail"),',
          '    re_path(r"^tags/(?P<slug>[-\\w]+)/$", views.tag, name="tag"),',
          ']',
        ),
      },
      web: {
        'src/catalog.js': lines(
          "const axios = require('axios');",
          "const api = axios.create({ baseURL: process.env.CATALOG_URL || 'http://catalog:8000/api' });",
          'exports.product = (id) => api.get(`/products/${id}/`);',
          'exports.tag = (slug) => api.get(`/tags/${slug}/`);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/catalog.js:3 | GET catalog/api/products/{} | catalog catalog/urls.py:6 ANY /api/products/<int:pk> (django)',
      'web src/catalog.js:4 | GET catalog/api/tags/{} | catalog catalog/urls.py:7 ANY /api/tags/(?P<slug>[-\\w]+) (django)',
    ]);
  });

  it('pika: exchange_declare, basic_publish, queue_bind, basic_consume with keyword arguments', async () => {
    const r = await reportOf({
      orders: {
        'orders/events.py': lines(
          'import json',
          'import pika',
          '',
          'connection = pika.BlockingConnection(pika.ConnectionParameters("rabbitmq"))',
          'channel = connection.channel()',
          'channel.exchange_declare(exchange="orders", exchange_type="topic", durable=True)',
          '',
          '',
          'def order_created(order):',
          '    channel.basic_publish(exchange="orders", routing_key="order.created", body=json.dumps(order))',
          '',
          '',
          'def order_refunded(order):',
          '    channel.basic_publish(exchange="orders", routing_key="payment.refunded", body=json.dumps(order))',
        ),
      },
      mailer: {
        'mailer/worker.py': lines(
          'import pika',
          '',
          'channel = pika.BlockingConnection(pika.ConnectionParameters("rabbitmq")).channel()',
          'channel.queue_declare(queue="emails", durable=True)',
          'channel.queue_bind(exchange="orders", queue="emails", routing_key="order.*")',
          'channel.basic_consume(queue="emails", on_message_callback=send_email, auto_ack=True)',
          'channel.start_consuming()',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders orders/events.py:10 | publish `orders` / `order.created` | mailer mailer/worker.py:6 consume queue `emails`',
    ]);
    expect(gaps(r)).toEqual([
      'publisher orders orders/events.py:14 no binding routes `orders` / `payment.refunded` to a queue',
    ]);
  });

  it('kafka-python (KafkaProducer.send, KafkaConsumer(topic)) and confluent-kafka (produce, subscribe)', async () => {
    const r = await reportOf({
      clicks: {
        'clicks/producer.py': lines(
          'from kafka import KafkaProducer',
          '',
          'producer = KafkaProducer(bootstrap_servers="kafka:9092")',
          '',
          '',
          'def track(event):',
          '    producer.send("page-views", value=event)',
        ),
      },
      analytics: {
        'analytics/consumer.py': lines(
          'from kafka import KafkaConsumer',
          'from confluent_kafka import Consumer, Producer',
          '',
          'views = KafkaConsumer("page-views", bootstrap_servers="kafka:9092", group_id="analytics")',
          'p = Producer({"bootstrap.servers": "kafka:9092"})',
          '',
          '',
          'def aggregate(total):',
          '    p.produce("daily-stats", value=str(total))',
          '    p.flush()',
        ),
      },
      reports: {
        'reports/worker.py': lines(
          'from confluent_kafka import Consumer',
          '',
          'c = Consumer({"bootstrap.servers": "kafka:9092", "group.id": "reports"})',
          'c.subscribe(["daily-stats"])',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'analytics analytics/consumer.py:9 | produce Kafka topic `daily-stats` | reports reports/worker.py:4 consume Kafka topic `daily-stats`',
      'clicks clicks/producer.py:7 | produce Kafka topic `page-views` | analytics analytics/consumer.py:4 consume Kafka topic `page-views`',
    ]);
    expect(r.messagingGaps).toEqual([]);
  });
});

describe('C# idioms', () => {
  it('typed HttpClients registered with AddHttpClient<T>(c => c.BaseAddress = …) from `?? "default"` env fallbacks; API versioning on MapGroup', async () => {
    const r = await reportOf({
      'Ordering.Api': {
        'Program.cs': lines(
          'var builder = WebApplication.CreateBuilder(args);',
          'var app = builder.Build();',
          'var orders = app.NewVersionedApi("Orders");',
          'var v1 = orders.MapGroup("api/orders").HasApiVersion(1.0);',
          'v1.MapGet("/{id:int}", GetOrderAsync);',
          'v1.MapPost("/", CreateOrderAsync);',
          'app.Run();',
        ),
      },
      'Basket.Api': {
        'Program.cs': lines(
          'var builder = WebApplication.CreateBuilder(args);',
          'var ordersUrl = Environment.GetEnvironmentVariable("ORDERS_URL") ?? "http://ordering-api";',
          'builder.Services.AddHttpClient<OrderingClient>(client =>',
          '{',
          '    client.BaseAddress = new Uri(ordersUrl);',
          '    client.Timeout = TimeSpan.FromSeconds(5);',
          '});',
          'var app = builder.Build();',
        ),
        'Services/OrderingClient.cs': lines(
          'namespace Basket.Api.Services;',
          '',
          'public class OrderingClient',
          '{',
          '    private readonly HttpClient _httpClient;',
          '',
          '    public OrderingClient(HttpClient httpClient) => _httpClient = httpClient;',
          '',
          '    public Task<Order?> GetAsync(int id) => _httpClient.GetFromJsonAsync<Order>($"api/orders/{id}");',
          '',
          '    public async Task CheckoutAsync(Order order)',
          '    {',
          '        var response = await _httpClient.PostAsJsonAsync("api/orders", order);',
          '        response.EnsureSuccessStatusCode();',
          '    }',
          '}',
        ),
      },
      deploy: {
        'docker-compose.yml': lines(
          'services:',
          '  ordering-api:',
          '    build: ../Ordering.Api',
          '  basket-api:',
          '    build: ../Basket.Api',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'Basket.Api Services/OrderingClient.cs:9 | GET ordering-api/api/orders/{} | Ordering.Api Program.cs:5 GET /api/orders/{id:int} (aspnetcore-minimal)',
      'Basket.Api Services/OrderingClient.cs:13 | POST ordering-api/api/orders | Ordering.Api Program.cs:6 POST /api/orders (aspnetcore-minimal)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });

  it('API versioning in the URL: v{version:apiVersion} on a controller [Route] and on a MapGroup fits v1, v2', async () => {
    const r = await reportOf({
      'Catalog.Api': {
        'Controllers/ItemsController.cs': lines(
          '[ApiController]',
          '[ApiVersion("1.0")]',
          '[Route("api/v{version:apiVersion}/[controller]")]',
          'public class ItemsController : ControllerBase',
          '{',
          '    [HttpGet("{id:int}")]',
          '    public async Task<ActionResult<Item>> Get(int id) => Ok(await _items.FindAsync(id));',
          '}',
        ),
        'Program.cs': lines(
          'var brands = app.MapGroup("/api/v{version:apiVersion}/brands").WithApiVersionSet(versionSet);',
          'brands.MapGet("/", ListBrands);',
        ),
      },
      web: {
        'src/catalog.ts': lines(
          'export const item = (id: number) => fetch(`http://catalog.api/api/v1/items/${id}`);',
          "export const brands = () => fetch('http://catalog.api/api/v2/brands');",
          "export const legacy = () => fetch('http://catalog.api/api/version1/brands/x');",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/catalog.ts:1 | GET catalog.api/api/v1/items/{} | Catalog.Api Controllers/ItemsController.cs:6 GET /api/v{version:apiVersion}/Items/{id:int} (aspnetcore-mvc)',
      'web src/catalog.ts:2 | GET catalog.api/api/v2/brands | Catalog.Api Program.cs:2 GET /api/v{version:apiVersion}/brands (aspnetcore-minimal)',
    ]);
    expect(unresolved(r)).toEqual([
      'web src/catalog.ts:3 GET catalog.api/api/version1/brands/x — no matching route: `Catalog.Api` serves no GET /api/version1/brands/x',
    ]);
  });

  it('RabbitMQ.Client (ExchangeDeclare, BasicPublish, QueueDeclare, QueueBind, BasicConsume; named arguments and the async API)', async () => {
    const r = await reportOf({
      Ordering: {
        'Messaging/EventBus.cs': lines(
          'public class EventBus',
          '{',
          '    private const string Exchange = "eshop_event_bus";',
          '    public void Publish(IModel channel, byte[] body)',
          '    {',
          '        channel.ExchangeDeclare(exchange: Exchange, type: ExchangeType.Direct);',
          '        channel.BasicPublish(exchange: Exchange, routingKey: "OrderStartedIntegrationEvent", mandatory: true, basicProperties: null, body: body);',
          '    }',
          '    public async Task PublishPaidAsync(IChannel channel, byte[] body)',
          '    {',
          '        await channel.BasicPublishAsync(exchange: Exchange, routingKey: "OrderPaidIntegrationEvent", body: body);',
          '    }',
          '}',
        ),
      },
      Basket: {
        'Messaging/Subscriber.cs': lines(
          'public class Subscriber',
          '{',
          '    public async Task StartAsync(IChannel channel, AsyncEventingBasicConsumer consumer)',
          '    {',
          '        await channel.QueueDeclareAsync(queue: "basket", durable: true, exclusive: false, autoDelete: false);',
          '        await channel.QueueBindAsync(queue: "basket", exchange: "eshop_event_bus", routingKey: "OrderStartedIntegrationEvent");',
          '        await channel.BasicConsumeAsync(queue: "basket", autoAck: false, consumer: consumer);',
          '    }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'Ordering Messaging/EventBus.cs:7 | publish `eshop_event_bus` / `OrderStartedIntegrationEvent` | Basket Messaging/Subscriber.cs:7 consume queue `basket`',
    ]);
    expect(gaps(r)).toEqual([
      'publisher Ordering Messaging/EventBus.cs:11 no binding routes `eshop_event_bus` / `OrderPaidIntegrationEvent` to a queue',
    ]);
  });

  it('Confluent.Kafka ProduceAsync/Produce and Subscribe are Kafka, kept apart from an AMQP exchange and queue of the same name', async () => {
    const r = await reportOf({
      Payments: {
        'PaymentPublisher.cs': lines(
          'public class PaymentPublisher',
          '{',
          '    private readonly IProducer<Null, string> _producer;',
          '    public PaymentPublisher(ProducerConfig config) => _producer = new ProducerBuilder<Null, string>(config).Build();',
          '    public Task PaidAsync(string json) => _producer.ProduceAsync("payments", new Message<Null, string> { Value = json });',
          '    public void Publish(IModel channel, byte[] body) => channel.BasicPublish("payments", "", null, body);',
          '}',
        ),
      },
      Ledger: {
        'LedgerWorker.cs': lines(
          'public class LedgerWorker : BackgroundService',
          '{',
          '    protected override Task ExecuteAsync(CancellationToken ct)',
          '    {',
          '        using var consumer = new ConsumerBuilder<Ignore, string>(_config).Build();',
          '        consumer.Subscribe("payments");',
          '        while (!ct.IsCancellationRequested) Handle(consumer.Consume(ct));',
          '        return Task.CompletedTask;',
          '    }',
          '}',
        ),
      },
      Audit: {
        'AuditListener.cs': lines(
          'public class AuditListener',
          '{',
          '    public void Start(IModel channel, EventingBasicConsumer consumer)',
          '    {',
          '        channel.ExchangeDeclare("payments", ExchangeType.Fanout);',
          '        channel.QueueDeclare("audit", true, false, false, null);',
          '        channel.QueueBind("audit", "payments", "");',
          '        channel.BasicConsume("audit", true, consumer);',
          '    }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'Payments PaymentPublisher.cs:5 | produce Kafka topic `payments` | Ledger LedgerWorker.cs:6 consume Kafka topic `payments`',
      'Payments PaymentPublisher.cs:6 | publish `payments` | Audit AuditListener.cs:8 consume queue `audit`',
    ]);
    expect(r.messagingGaps).toEqual([]);
  });
});

describe('JavaScript/TypeScript idioms', () => {
  it('Express routers mounted on prefixes from another file; axios.create({ baseURL }), got, superagent, fetch with template literals', async () => {
    const r = await reportOf({
      users: {
        'src/routes/users.js': lines(
          "const express = require('express');",
          'const router = express.Router();',
          '',
          "router.get('/:id', async (req, res) => res.json(await Users.find(req.params.id)));",
          "router.post('/', async (req, res) => res.status(201).json(await Users.create(req.body)));",
          "router.delete('/:id/sessions', revoke);",
          '',
          'module.exports = router;',
        ),
        'src/app.js': lines(
          "const express = require('express');",
          "const users = require('./routes/users');",
          '',
          'const app = express();',
          'app.use(express.json());',
          "app.use('/api/users', users);",
          'app.listen(3000);',
        ),
      },
      web: {
        'src/api.ts': lines(
          "import axios from 'axios';",
          "import got from 'got';",
          "import superagent from 'superagent';",
          '',
          "const USERS = process.env.USERS_URL ?? 'http://users:3000';",
          'const users = axios.create({ baseURL: `${USERS}/api`, timeout: 2000 });',
          '',
          'export const getUser = (id: string) => users.get(`/users/${id}`);',
          'export const createUser = (body: unknown) => got.post(`${USERS}/api/users`, { json: body }).json();',
          'export const revoke = (id: string) => superagent.delete(`${USERS}/api/users/${id}/sessions`);',
          "export const whoami = (id: string) => fetch(`${USERS}/api/users/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' } });",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/api.ts:8 | GET users/api/users/{} | users src/routes/users.js:4 GET /api/users/:id (express)',
      'web src/api.ts:9 | POST users/api/users | users src/routes/users.js:5 POST /api/users (express)',
      'web src/api.ts:10 | DELETE users/api/users/{}/sessions | users src/routes/users.js:6 DELETE /api/users/:id/sessions (express)',
      'web src/api.ts:11 | GET users/api/users/{} | users src/routes/users.js:4 GET /api/users/:id (express)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });

  it('NestJS @Controller prefix + @Get/@Post with setGlobalPrefix; Fastify plugins registered with a prefix (own file, inline, nested)', async () => {
    const r = await reportOf({
      notes: {
        'src/main.ts': lines(
          "import { NestFactory } from '@nestjs/core';",
          'async function bootstrap() {',
          '  const app = await NestFactory.create(AppModule);',
          "  app.setGlobalPrefix('api');",
          '  await app.listen(3000);',
          '}',
          'bootstrap();',
        ),
        'src/notes/notes.controller.ts': lines(
          "import { Body, Controller, Get, Param, Post } from '@nestjs/common';",
          '',
          "@Controller('notes')",
          'export class NotesController {',
          "  @Get(':id')",
          "  findOne(@Param('id') id: string) {",
          '    return this.notes.findOne(id);',
          '  }',
          '',
          '  @Post()',
          '  create(@Body() dto: CreateNoteDto) {',
          '    return this.notes.create(dto);',
          '  }',
          '}',
        ),
      },
      search: {
        'src/server.js': lines(
          "const fastify = require('fastify')({ logger: true });",
          '',
          "fastify.get('/health', async () => ({ ok: true }));",
          "fastify.register(require('./routes/search'), { prefix: '/search' });",
          'fastify.register(',
          '  async (api) => {',
          "    api.get('/stats/:noteId', async (request) => stats(request.params.noteId));",
          "    api.register(async (admin) => admin.delete('/cache/:noteId', purge), { prefix: '/admin' });",
          '  },',
          "  { prefix: '/v1' },",
          ');',
          'fastify.listen({ port: 3000 });',
        ),
        'src/routes/search.js': lines(
          'module.exports = async function searchRoutes(fastify, opts) {',
          "  fastify.post('/reindex/:noteId', async (request) => reindex(request.params.noteId));",
          '};',
        ),
      },
      web: {
        'src/client.js': lines(
          "const axios = require('axios');",
          "const NOTES = 'http://notes:3000/api';",
          'exports.note = (id) => axios.get(`${NOTES}/notes/${id}`);',
          'exports.create = (note) => axios.post(`${NOTES}/notes`, note);',
          "exports.reindex = (id) => axios({ method: 'post', url: `http://search:3000/search/reindex/${id}` });",
          'exports.stats = (id) => axios.get(`http://search:3000/v1/stats/${id}`);',
          'exports.purge = (id) => axios.delete(`http://search:3000/v1/admin/cache/${id}`);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/client.js:3 | GET notes/api/notes/{} | notes src/notes/notes.controller.ts:5 GET /api/notes/:id (nestjs)',
      'web src/client.js:4 | POST notes/api/notes | notes src/notes/notes.controller.ts:10 POST /api/notes (nestjs)',
      'web src/client.js:5 | POST search/search/reindex/{} | search src/routes/search.js:2 POST /search/reindex/:noteId (fastify)',
      'web src/client.js:6 | GET search/v1/stats/{} | search src/server.js:7 GET /v1/stats/:noteId (fastify)',
      'web src/client.js:7 | DELETE search/v1/admin/cache/{} | search src/server.js:8 DELETE /v1/admin/cache/:noteId (fastify)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });
});

describe('NestJS URI versioning', () => {
  it('enableVersioning({ type: VersioningType.URI }): /prefix/v{version}/controller/route from @Controller({ version }), @Version, defaultVersion', async () => {
    const r = await reportOf({
      notes: {
        'src/main.ts': lines(
          "import { NestFactory } from '@nestjs/core';",
          "import { VersioningType } from '@nestjs/common';",
          'async function bootstrap() {',
          '  const app = await NestFactory.create(AppModule);',
          "  app.setGlobalPrefix('api');",
          "  app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' });",
          '  await app.listen(3000);',
          '}',
        ),
        'src/notes.controller.ts': lines(
          "@Controller({ path: 'notes', version: ['1', '2'] })",
          'export class NotesController {',
          "  @Get(':id')",
          '  findOne() {}',
          '',
          "  @Version('3')",
          "  @Delete(':id')",
          '  remove() {}',
          '}',
        ),
        'src/tags.controller.ts': lines(
          "@Controller('tags')",
          'export class TagsController {',
          '  @Get()',
          '  all() {}',
          '}',
        ),
      },
      web: {
        'src/client.ts': lines(
          "const NOTES = 'http://notes:3000/api';",
          'export const v1 = (id: string) => fetch(`${NOTES}/v1/notes/${id}`);',
          'export const v2 = (id: string) => fetch(`${NOTES}/v2/notes/${id}`);',
          "export const del = (id: string) => fetch(`${NOTES}/v3/notes/${id}`, { method: 'DELETE' });",
          'export const tags = () => fetch(`${NOTES}/v1/tags`);',
          "export const old = (id: string) => fetch(`${NOTES}/v1/notes/${id}`, { method: 'DELETE' });",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/client.ts:2 | GET notes/api/v1/notes/{} | notes src/notes.controller.ts:3 GET /api/v1/notes/:id (nestjs)',
      'web src/client.ts:3 | GET notes/api/v2/notes/{} | notes src/notes.controller.ts:3 GET /api/v2/notes/:id (nestjs)',
      'web src/client.ts:4 | DELETE notes/api/v3/notes/{} | notes src/notes.controller.ts:7 DELETE /api/v3/notes/:id (nestjs)',
      'web src/client.ts:5 | GET notes/api/v1/tags | notes src/tags.controller.ts:3 GET /api/v1/tags (nestjs)',
    ]);
    expect(unresolved(r)).toEqual([
      'web src/client.ts:6 DELETE notes/api/v1/notes/{} — no matching route: `notes` serves no DELETE /api/v1/notes/{}',
    ]);
  });
});

describe('Java idioms', () => {
  it('WebClient.builder().baseUrl(…) from @Value with a default, YAML placeholders with defaults, class + method @RequestMapping', async () => {
    const r = await reportOf({
      'catalog-service': {
        'src/main/resources/application.yml': lines('spring:', '  application:', '    name: catalog-service'),
        'src/main/java/c/ProductController.java': lines(
          '@RestController',
          '@RequestMapping("/api/products")',
          'public class ProductController {',
          '  @GetMapping("/{id}")',
          '  public Mono<Product> one(@PathVariable String id) { return repo.findById(id); }',
          '  @RequestMapping(value = "/{id}/price", method = RequestMethod.PUT)',
          '  public Mono<Void> price(@PathVariable String id, @RequestBody Price p) { return service.price(id, p); }',
          '}',
        ),
      },
      'order-service': {
        'src/main/resources/application.yml': lines(
          'clients:',
          '  catalog:',
          '    url: ${CATALOG_URL:http://catalog-service:8080}',
        ),
        'src/main/java/o/CatalogClient.java': lines(
          '@Component',
          'public class CatalogClient {',
          '  private final WebClient webClient;',
          '  public CatalogClient(WebClient.Builder builder, @Value("${clients.catalog.url}") String baseUrl) {',
          '    this.webClient = builder.baseUrl(baseUrl).build();',
          '  }',
          '  public Mono<Product> product(String id) {',
          '    return webClient.get().uri("/api/products/{id}", id).retrieve().bodyToMono(Product.class);',
          '  }',
          '  public Mono<Void> price(String id, Price p) {',
          '    return webClient.put().uri("/api/products/{id}/price", id).bodyValue(p).retrieve().bodyToMono(Void.class);',
          '  }',
          '}',
        ),
        'src/main/java/o/PricingClient.java': lines(
          '@Component',
          'public class PricingClient {',
          '  private final WebClient client = WebClient.builder().baseUrl("http://catalog-service:8080/api").build();',
          '  public Mono<Product> product(String id) { return client.get().uri("/products/" + id).retrieve().bodyToMono(Product.class); }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'order-service src/main/java/o/CatalogClient.java:8 | GET catalog-service/api/products/{} | catalog-service src/main/java/c/ProductController.java:4 GET /api/products/{id} (spring)',
      'order-service src/main/java/o/CatalogClient.java:11 | PUT catalog-service/api/products/{}/price | catalog-service src/main/java/c/ProductController.java:6 PUT /api/products/{id}/price (spring)',
      'order-service src/main/java/o/PricingClient.java:4 | GET catalog-service/api/products/{} | catalog-service src/main/java/c/ProductController.java:4 GET /api/products/{id} (spring)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });

  it('@RabbitListener with @QueueBinding and RabbitTemplate; @KafkaListener and KafkaTemplate with topics from properties; send(record) is no topic', async () => {
    const r = await reportOf({
      orders: {
        'src/main/resources/application.properties': 'app.kafka.topic=order-events\n',
        'src/main/java/o/OrderEvents.java': lines(
          '@Service',
          'public class OrderEvents {',
          '  @Value("${app.kafka.topic}") private String topic;',
          '  public void placed(Order o) {',
          '    rabbitTemplate.convertAndSend("orders.exchange", "orders.placed", o);',
          '    kafkaTemplate.send(topic, o.getId(), o);',
          '    kafkaProducer.send(record, callback); // a record, not a topic: no gap',
          '  }',
          '}',
        ),
      },
      shipping: {
        'src/main/resources/application.yml': lines('app:', '  events:', '    topic: order-events'),
        'src/main/java/s/Listeners.java': lines(
          '@Component',
          'public class Listeners {',
          '  @RabbitListener(bindings = @QueueBinding(',
          '      value = @Queue(value = "shipping.orders", durable = "true"),',
          '      exchange = @Exchange(value = "orders.exchange", type = ExchangeTypes.TOPIC),',
          '      key = "orders.*"))',
          '  public void onOrder(Order o) {}',
          '',
          '  @KafkaListener(topics = "${app.events.topic}", groupId = "shipping")',
          '  public void onEvent(String json) {}',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/main/java/o/OrderEvents.java:5 | publish `orders.exchange` / `orders.placed` | shipping src/main/java/s/Listeners.java:3 consume queue `shipping.orders`',
      'orders src/main/java/o/OrderEvents.java:6 | produce Kafka topic `order-events` | shipping src/main/java/s/Listeners.java:9 consume Kafka topic `order-events`',
    ]);
    expect(r.messagingGaps).toEqual([]);
  });
});

describe('configuration across repositories (item 3)', () => {
  it('docker-compose environment of a service names the hosts and Kafka topics its code reads from the environment', async () => {
    const r = await reportOf({
      deploy: {
        'docker-compose.yml': lines(
          'services:',
          '  orders-svc:',
          '    build: ../orders',
          '    environment:',
          '      EVENTS_TOPIC: order-events',
          '  web:',
          '    build: ../web',
          '    environment:',
          '      - ORDERS_API=http://orders-svc:8080',
          '      - EVENTS_TOPIC=order-events',
        ),
      },
      orders: {
        'src/app.ts': lines(
          'const app = express();',
          "app.get('/api/orders/:id', getOrder);",
          'await producer.send({ topic: process.env.EVENTS_TOPIC, messages: [{ value: json }] });',
        ),
      },
      web: {
        'src/orders.ts': lines(
          'export const order = (id: string) => fetch(`${process.env.ORDERS_API}/api/orders/${id}`);',
          'await consumer.subscribe({ topic: process.env.EVENTS_TOPIC, fromBeginning: false });',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/orders.ts:1 | GET orders-svc/api/orders/{} | orders src/app.ts:2 GET /api/orders/:id (express)',
      'orders src/app.ts:3 | produce Kafka topic `order-events` | web src/orders.ts:2 consume Kafka topic `order-events`',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
    expect(r.messagingGaps).toEqual([]);
  });

  it('Kubernetes: the env of a Deployment no Service exposes, and a Service (namespaced cluster DNS name) selecting the target workload by label', async () => {
    const r = await reportOf({
      k8s: {
        'manifests/billing.yaml': lines(
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata:',
          '  name: billing',
          'spec:',
          '  selector:',
          '    matchLabels:',
          '      app: billing',
          '  template:',
          '    metadata:',
          '      labels:',
          '        app: billing',
          '    spec:',
          '      containers:',
          '        - name: billing',
          '          image: registry.example.com/shop/billing-api:1.4.2',
          '---',
          'apiVersion: v1',
          'kind: Service',
          'metadata:',
          '  name: billing-internal',
          'spec:',
          '  selector:',
          '    app: billing',
          '  ports:',
          '    - port: 80',
          '      targetPort: 8080',
        ),
        'manifests/checkout.yaml': lines(
          'apiVersion: apps/v1',
          'kind: Deployment',
          'metadata:',
          '  name: checkout',
          'spec:',
          '  template:',
          '    spec:',
          '      containers:',
          '        - name: checkout',
          '          image: registry.example.com/shop/checkout:2.0.0',
          '          env:',
          '            - name: BILLING_URL',
          '              value: http://billing-internal.shop.svc.cluster.local',
        ),
      },
      'billing-api': {
        'main.go': lines('package main', '', 'func main() {', '\thttp.HandleFunc("POST /invoices", create)', '}'),
      },
      checkout: {
        'checkout/billing.py': lines(
          'import os',
          'import requests',
          '',
          'BILLING_URL = os.environ["BILLING_URL"]',
          '',
          '',
          'def invoice(order):',
          '    return requests.post(f"{BILLING_URL}/invoices", json=order)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'checkout checkout/billing.py:8 | POST billing-internal.shop.svc.cluster.local/invoices | billing-api main.go:4 POST /invoices (net/http)',
    ]);
  });
});

describe('each verdict explained (item 5)', () => {
  it('ambiguous names both candidates; no matching route names the repository; external host names the host; rows carry both sides', async () => {
    const r = await reportOf({
      inventory: { 'src/app.ts': "const app = express();\napp.get('/api/items/:id', h);\n" },
      catalog: { 'src/app.ts': "const app = express();\napp.get('/api/items/:sku', h);\napp.get('/api/brands', h);\n" },
      web: {
        'src/api.ts': lines(
          'export const item = (id: string) => fetch(`/api/items/${id}`);',
          "export const colours = () => fetch('http://catalog/api/colours');",
          "export const rates = () => fetch('https://api.rates.example.com/v1/latest');",
          "export const brands = () => fetch('http://catalog/api/brands');",
        ),
      },
    });
    expect(r.table).toEqual([
      {
        caller: 'web src/api.ts:4',
        calls: 'GET catalog/api/brands',
        servedBy: 'catalog src/app.ts:3 GET /api/brands (express)',
        match: 'host `catalog` + exact path',
      },
    ]);
    expect(unresolved(r)).toEqual([
      'web src/api.ts:1 GET /api/items/{} — ambiguous: served by `catalog` and `inventory`, nothing tells them apart',
      'web src/api.ts:2 GET catalog/api/colours — no matching route: `catalog` serves no GET /api/colours',
      'web src/api.ts:3 GET api.rates.example.com/v1/latest — external host: `api.rates.example.com` is not a service of this application',
    ]);
    // The evidence of both candidates' routes.
    expect(r.unresolvedCalls[0]!.candidates).toEqual([
      { source: 'catalog', file: 'src/app.ts', line: 2 },
      { source: 'inventory', file: 'src/app.ts', line: 2 },
    ]);
  });
});

describe('inline mounts and chained clients', () => {
  it("app.use('/api', require('./routes/x')) with require('express').Router(); CreateClient(\"name\").GetAsync chained, Configuration[…] ?? default; a class-held httpx.AsyncClient", async () => {
    const r = await reportOf({
      orders: {
        'src/app.js': lines(
          "const app = require('express')();",
          "app.use('/api', require('./routes/orders'));",
          'app.listen(8080);',
        ),
        'src/routes/orders.js': lines(
          "const router = require('express').Router();",
          "router.get('/orders/:id', (req, res) => res.json(find(req.params.id)));",
          'module.exports = router;',
        ),
      },
      basket: {
        'Program.cs': lines(
          'builder.Services.AddHttpClient("orders", c => c.BaseAddress = new Uri(builder.Configuration["Services:Orders"] ?? "http://orders:8080"));',
        ),
        'OrdersLookup.cs': lines(
          'public class OrdersLookup(IHttpClientFactory factory)',
          '{',
          '    public Task<string> Get(int id) => factory.CreateClient("orders").GetStringAsync($"api/orders/{id}");',
          '}',
        ),
      },
      reports: {
        'reports/clients.py': lines(
          'import httpx',
          '',
          '',
          'class OrdersClient:',
          '    def __init__(self):',
          '        self._client = httpx.AsyncClient(base_url="http://orders:8080/api")',
          '',
          '    async def order(self, oid: int):',
          '        resp = await self._client.get(f"/orders/{oid}")',
          '        return resp.json()',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'basket OrdersLookup.cs:3 | GET orders/api/orders/{} | orders src/routes/orders.js:2 GET /api/orders/:id (express)',
      'reports reports/clients.py:9 | GET orders/api/orders/{} | orders src/routes/orders.js:2 GET /api/orders/:id (express)',
    ]);
    expect(r.unresolvedCalls).toEqual([]);
  });
});
