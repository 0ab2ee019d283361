import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

/**
 * Issue 20, blind26 round: messaging forms the held-out applications (a Spring Kafka saga joined in Kafka
 * Streams, a Flask producer on pika) showed missing, each with a small application written here.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const listener = (pkg: string, group: string): string =>
  lines(
    `package ${pkg};`,
    'import org.springframework.kafka.annotation.KafkaListener;',
    `public class ${group}Listener {`,
    `    @KafkaListener(id = "orders", topics = "orders", groupId = "${group}")`,
    '    public void onEvent(Order o) {}',
    '}',
  );

describe('Spring Kafka', () => {
  it('a KafkaTemplate is known by its declared type, whatever the field is called; two listener groups each get the topic', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/demo/OrderController.java': lines(
          'package demo;',
          'import org.springframework.kafka.core.KafkaTemplate;',
          '@RestController',
          'public class OrderController {',
          '    private final KafkaTemplate<Long, Order> template;',
          '    public OrderController(KafkaTemplate<Long, Order> template) { this.template = template; }',
          '    @PostMapping("/orders")',
          '    public Order create(@RequestBody Order order) {',
          '        template.send("orders", order.getId(), order);',
          '        return order;',
          '    }',
          '    public void again(Order order) { this.template.send("orders", order.getId(), order); }',
          '}',
        ),
      },
      payment: { 'src/main/java/pay/PaymentListener.java': listener('pay', 'payment') },
      stock: { 'src/main/java/stock/StockListener.java': listener('stock', 'stock') },
    });
    expect(rows(r)).toEqual([
      'orders src/main/java/demo/OrderController.java:9 | produce Kafka topic `orders` | payment src/main/java/pay/PaymentListener.java:4 consume Kafka topic `orders`',
      'orders src/main/java/demo/OrderController.java:9 | produce Kafka topic `orders` | stock src/main/java/stock/StockListener.java:4 consume Kafka topic `orders`',
      'orders src/main/java/demo/OrderController.java:12 | produce Kafka topic `orders` | payment src/main/java/pay/PaymentListener.java:4 consume Kafka topic `orders`',
      'orders src/main/java/demo/OrderController.java:12 | produce Kafka topic `orders` | stock src/main/java/stock/StockListener.java:4 consume Kafka topic `orders`',
    ]);
  });

  it('Kafka Streams: StreamsBuilder.stream/table read a topic (also inside a join), KStream.to writes one; to() outside a Streams file is not a sink', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/demo/OrderApp.java': lines(
          'package demo;',
          'import org.apache.kafka.streams.StreamsBuilder;',
          'import org.apache.kafka.streams.kstream.*;',
          'public class OrderApp {',
          '    @Bean',
          '    public KStream<Long, Order> stream(StreamsBuilder builder) {',
          '        KStream<Long, Order> stream = builder',
          '                .stream("payment-orders", Consumed.with(Serdes.Long(), serde));',
          '        stream.join(',
          '                        builder.stream("stock-orders"),',
          '                        this::confirm,',
          '                        JoinWindows.of(Duration.ofSeconds(10)))',
          '                .peek((k, o) -> log(o))',
          '                .to("orders");',
          '        KTable<Long, Order> prices = builder.table("prices");',
          '        return stream;',
          '    }',
          '}',
        ),
        'src/main/java/demo/Mailer.java': lines(
          'package demo;',
          'public class Mailer {',
          '    void send(Message m) { m.to("audit"); }',
          '}',
        ),
      },
      payment: {
        'src/main/java/pay/Payments.java': lines(
          'package pay;',
          'public class Payments {',
          '    private final KafkaTemplate<Long, Order> kafka;',
          '    void reserve(Order o) { kafka.send("payment-orders", o.getId(), o); }',
          '    void price(Order o) { kafka.send("prices", o.getId(), o); }',
          '}',
        ),
        'src/main/java/pay/PaymentListener.java': listener('pay', 'payment'),
      },
      stock: {
        'src/main/java/stock/Stock.java': lines(
          'package stock;',
          'public class Stock {',
          '    private final KafkaTemplate<Long, Order> kafka;',
          '    void reserve(Order o) { kafka.send("stock-orders", o.getId(), o); }',
          '}',
        ),
        'src/main/java/stock/Audit.java': lines(
          'package stock;',
          'public class Audit {',
          '    @KafkaListener(topics = "audit", groupId = "audit")',
          '    public void onAudit(String s) {}',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/main/java/demo/OrderApp.java:14 | produce Kafka topic `orders` | payment src/main/java/pay/PaymentListener.java:4 consume Kafka topic `orders`',
      'payment src/main/java/pay/Payments.java:4 | produce Kafka topic `payment-orders` | orders src/main/java/demo/OrderApp.java:8 consume Kafka topic `payment-orders`',
      'payment src/main/java/pay/Payments.java:5 | produce Kafka topic `prices` | orders src/main/java/demo/OrderApp.java:15 consume Kafka topic `prices`',
      'stock src/main/java/stock/Stock.java:4 | produce Kafka topic `stock-orders` | orders src/main/java/demo/OrderApp.java:10 consume Kafka topic `stock-orders`',
    ]);
    expect(gaps(r)).toEqual(['consumer stock src/main/java/stock/Audit.java:3 no producer for Kafka topic `audit`']);
  });
});

describe('pika', () => {
  it("basic_publish on the default exchange (exchange='', keyword or positional) reaches the queue named by the routing key", async () => {
    const consumer = (queue: string): string =>
      lines(
        'import pika',
        "connection = pika.BlockingConnection(pika.ConnectionParameters(host='rabbitmq'))",
        'channel = connection.channel()',
        `channel.queue_declare(queue='${queue}', durable=True)`,
        `channel.basic_consume(queue='${queue}', on_message_callback=callback, auto_ack=True)`,
        'channel.start_consuming()',
      );
    const r = await reportOf({
      producer: {
        'producer.py': lines(
          'import pika, json',
          'from flask import Flask, request',
          'app = Flask(__name__)',
          "channel = pika.BlockingConnection(pika.ConnectionParameters(host='rabbitmq')).channel()",
          "@app.route('/create_item', methods=['POST'])",
          'def create_item():',
          "    channel.basic_publish (exchange='', routing_key='create_item', body=json.dumps(request.get_json()))",
          "    return 'ok'",
          "@app.route('/delete_item', methods=['POST'])",
          'def delete_item():',
          "    channel.basic_publish('', 'delete_item', json.dumps(request.get_json()))",
          "    return 'ok'",
        ),
      },
      creator: { 'item_creation.py': consumer('create_item') },
      remover: { 'item_removal.py': consumer('delete_item') },
    });
    expect(rows(r)).toEqual([
      'producer producer.py:7 | publish to queue `create_item` (default exchange) | creator item_creation.py:5 consume queue `create_item`',
      'producer producer.py:11 | publish to queue `delete_item` (default exchange) | remover item_removal.py:5 consume queue `delete_item`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('Spring Cloud Stream annotation model and listener replies', () => {
  it('@EnableBinding channels: Source.output().send, a channel interface’s @Output method, @StreamListener with @SendTo, bindings named by constants of another file; Spring Kafka @SendTo replies', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/shop/OrderSender.java': lines(
          'package shop;',
          '@EnableBinding({Source.class, ShopChannels.class})',
          'public class OrderSender {',
          '    private final Source source;',
          '    private final ShopChannels channels;',
          '    public OrderSender(Source source, ShopChannels channels) { this.source = source; this.channels = channels; }',
          '    public void place(Order o) { source.output().send(MessageBuilder.withPayload(o).build()); }',
          '    public void refund(Order o) { this.channels.refunds().send(MessageBuilder.withPayload(o).build()); }',
          '    public void other(Order o) { registry.lookup().send(o); }',
          '}',
        ),
        'src/main/java/shop/ShopChannels.java': lines(
          'package shop;',
          'public interface ShopChannels {',
          '    String REFUNDS = "refundsOut";',
          '    @Output(REFUNDS)',
          '    MessageChannel refunds();',
          '}',
        ),
        'src/main/resources/application.yml': lines(
          'spring.cloud.stream.bindings:',
          '  output.destination: orders',
          '  refundsOut.destination: refunds',
        ),
      },
      billing: {
        'src/main/java/bill/Billing.java': lines(
          'package bill;',
          '@EnableBinding(Processor.class)',
          'public class Billing {',
          '    @StreamListener(Processor.INPUT)',
          '    @SendTo(Processor.OUTPUT)',
          '    public Invoice bill(Order o) { return new Invoice(o); }',
          '}',
        ),
        'src/main/resources/application.properties': lines(
          'spring.cloud.stream.bindings.input.destination=orders',
          'spring.cloud.stream.bindings.input.group=billing',
          'spring.cloud.stream.bindings.output.destination=invoices',
        ),
      },
      ledger: {
        'src/main/java/ledger/LedgerChannels.java': lines(
          'package ledger;',
          'public interface LedgerChannels {',
          '    String REFUNDS_IN = "refundsIn";',
          '    @Input(REFUNDS_IN)',
          '    SubscribableChannel refundsIn();',
          '    @Input',
          '    SubscribableChannel invoices();',
          '}',
        ),
        'src/main/java/ledger/Ledger.java': lines(
          'package ledger;',
          '@EnableBinding(LedgerChannels.class)',
          'public class Ledger {',
          '    @StreamListener(target = LedgerChannels.REFUNDS_IN)',
          '    public void refund(Order o) {}',
          '    @StreamListener("invoices")',
          '    public void invoice(Invoice i) {}',
          '    @KafkaListener(topics = "invoices-checked", groupId = "archive")',
          '    public void archive(Invoice i) {}',
          '}',
        ),
        'src/main/resources/application.yml': lines(
          'spring.cloud.stream.bindings.refundsIn.destination: refunds',
          'spring.cloud.stream.bindings.invoices.destination: invoices',
        ),
      },
      audit: {
        'src/main/java/audit/Audit.java': lines(
          'package audit;',
          'public class Audit {',
          '    @KafkaListener(topics = "invoices", groupId = "audit")',
          '    @SendTo("invoices-checked")',
          '    public Invoice check(Invoice i) { return i; }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'audit src/main/java/audit/Audit.java:4 | produce Kafka topic `invoices-checked` | ledger src/main/java/ledger/Ledger.java:8 consume Kafka topic `invoices-checked`',
      'billing src/main/java/bill/Billing.java:5 | produce Kafka topic `invoices` | audit src/main/java/audit/Audit.java:3 consume Kafka topic `invoices`',
      'billing src/main/java/bill/Billing.java:5 | produce Kafka topic `invoices` | ledger src/main/java/ledger/Ledger.java:6 consume Kafka topic `invoices`',
      'orders src/main/java/shop/OrderSender.java:7 | produce Kafka topic `orders` | billing src/main/java/bill/Billing.java:4 consume Kafka topic `orders`',
      'orders src/main/java/shop/OrderSender.java:8 | produce Kafka topic `refunds` | ledger src/main/java/ledger/Ledger.java:4 consume Kafka topic `refunds`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('Spring AMQP @RabbitListener @SendTo("exchange/key") replies through that exchange; without a slash, through the default exchange', async () => {
    const r = await reportOf({
      quotes: {
        'src/main/java/q/Quotes.java': lines(
          'package q;',
          'public class Quotes {',
          '    @RabbitListener(queues = "quote-requests")',
          '    @SendTo("quotes/quote.ready")',
          '    public Quote quote(Request r) { return new Quote(r); }',
          '    @RabbitListener(queues = "price-requests")',
          '    @SendTo("prices")',
          '    public Price price(Request r) { return new Price(r); }',
          '}',
        ),
      },
      web: {
        'src/main/java/w/Listener.java': lines(
          'package w;',
          'public class Listener {',
          '    @RabbitListener(bindings = @QueueBinding(value = @Queue("web-quotes"), exchange = @Exchange(value = "quotes", type = "topic"), key = "quote.*"))',
          '    public void onQuote(Quote q) {}',
          '    @RabbitListener(queues = "prices")',
          '    public void onPrice(Price p) {}',
          '}',
        ),
        'src/main/java/w/AmqpConfig.java': lines(
          'package w;',
          '@Configuration',
          'public class AmqpConfig {',
          '    @Bean',
          '    public Queue prices() { return new Queue("prices"); }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'quotes src/main/java/q/Quotes.java:4 | publish `quotes` / `quote.ready` | web src/main/java/w/Listener.java:3 consume queue `web-quotes`',
      'quotes src/main/java/q/Quotes.java:7 | publish to queue `prices` (default exchange) | web src/main/java/w/Listener.java:5 consume queue `prices`',
    ]);
    expect(gaps(r)).toEqual([
      'consumer quotes src/main/java/q/Quotes.java:3 queue `quote-requests` is bound to no exchange',
      'consumer quotes src/main/java/q/Quotes.java:6 queue `price-requests` is bound to no exchange',
    ]);
  });
});

describe('Kafka producers held under any name', () => {
  it('kafka-python / aiokafka producers assigned to a variable or a field; Spring KafkaTemplate.sendDefault with the configured or set default topic', async () => {
    const r = await reportOf({
      orders: {
        'orders/events.py': lines(
          'from kafka import KafkaProducer',
          "kp = KafkaProducer(bootstrap_servers='kafka:9092')",
          'def placed(order):',
          "    kp.send('orders', order)",
          'class Refunds:',
          '    def __init__(self):',
          "        self.client = AIOKafkaProducer(bootstrap_servers='kafka:9092')",
          '    async def refund(self, order):',
          "        await self.client.send_and_wait('refunds', order)",
        ),
      },
      audit: {
        'src/main/java/a/Audit.java': lines(
          'package a;',
          'public class Audit {',
          '    private final KafkaTemplate<String, String> template;',
          '    void record(String s) { template.sendDefault(s); }',
          '}',
        ),
        'src/main/java/a/Alerts.java': lines(
          'package a;',
          'public class Alerts {',
          '    private final KafkaTemplate<String, String> alerts;',
          '    Alerts(KafkaTemplate<String, String> alerts) { this.alerts = alerts; alerts.setDefaultTopic("alerts"); }',
          '    void raise(String s) { this.alerts.sendDefault(s); }',
          '}',
        ),
        'src/main/resources/application.yml': lines('spring.kafka.template.default-topic: audit-log'),
      },
      sink: {
        'sink.py': lines(
          'from kafka import KafkaConsumer',
          "consumer = KafkaConsumer('orders', 'refunds', 'audit-log', 'alerts', bootstrap_servers='kafka:9092')",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'audit src/main/java/a/Alerts.java:5 | produce Kafka topic `alerts` | sink sink.py:2 consume Kafka topic `alerts`',
      'audit src/main/java/a/Audit.java:4 | produce Kafka topic `audit-log` | sink sink.py:2 consume Kafka topic `audit-log`',
      'orders orders/events.py:4 | produce Kafka topic `orders` | sink sink.py:2 consume Kafka topic `orders`',
      'orders orders/events.py:9 | produce Kafka topic `refunds` | sink sink.py:2 consume Kafka topic `refunds`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
