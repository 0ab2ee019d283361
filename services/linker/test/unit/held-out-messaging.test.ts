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
