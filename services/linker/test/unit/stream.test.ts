import { describe, expect, it } from 'vitest';
import { gaps, reportOf } from '../support/in-memory-report';

/** Issue 20 item 4: Spring Cloud Stream functional bindings, destinations from configuration. */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('Spring Cloud Stream', () => {
  it('StreamBridge.send(binding) and @Bean Consumer/Function beans meet on the configured destination; a @Bean Consumer without Spring Cloud Stream configuration is no binding', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/shop/Orders.java': lines(
          'package shop;',
          '@Service',
          'public class Orders {',
          '    private final StreamBridge streamBridge;',
          '    public void place(Order o) {',
          '        streamBridge.send("orderPlaced-out-0", o);',
          '    }',
          '}',
        ),
        'src/main/resources/application.yml': lines(
          'spring:',
          '  cloud:',
          '    stream:',
          '      bindings:',
          '        orderPlaced-out-0:',
          '          destination: orders',
        ),
      },
      shipping: {
        'src/main/java/shop/Shipping.java': lines(
          'package shop;',
          '@Configuration',
          'public class Shipping {',
          '    @Bean',
          '    public Consumer<Order> ship() {',
          '        return order -> {};',
          '    }',
          '}',
        ),
        'src/main/resources/application.properties': lines(
          'spring.cloud.stream.bindings.ship-in-0.destination=orders',
          'spring.cloud.stream.bindings.ship-in-0.group=shipping',
        ),
      },
      billing: {
        'src/main/java/shop/Billing.java': lines(
          'package shop;',
          '@Configuration',
          'public class Billing {',
          '    @Bean',
          '    Function<Order, Invoice> bill() {',
          '        return order -> new Invoice(order);',
          '    }',
          '}',
        ),
        'src/main/resources/application.yml': lines(
          'spring.cloud.function.definition: bill',
          'spring.cloud.stream.bindings.bill-in-0.destination: orders',
        ),
      },
      audit: {
        'src/main/java/shop/Audit.java': lines(
          'package shop;',
          '@Configuration',
          'public class Audit {',
          '    @Bean',
          '    public Consumer<String> printer() {',
          '        return System.out::println;',
          '    }',
          '}',
        ),
      },
    });
    expect(r.table.map((t) => `${t.caller} | ${t.calls} | ${t.servedBy} | ${t.match}`)).toEqual([
      'orders src/main/java/shop/Orders.java:6 | produce Kafka topic `orders` | billing src/main/java/shop/Billing.java:4 consume Kafka topic `orders` | Kafka topic `orders` (its own binding)',
      'orders src/main/java/shop/Orders.java:6 | produce Kafka topic `orders` | shipping src/main/java/shop/Shipping.java:4 consume Kafka topic `orders` | Kafka topic `orders` (its own binding)',
    ]);
    // The function's output binding has no destination configured: its topic is the binding name.
    expect(gaps(r)).toEqual([
      'publisher billing src/main/java/shop/Billing.java:4 no consumer of Kafka topic `bill-out-0`',
    ]);
  });
});

describe('Spring Cloud Stream with the RabbitMQ binder', () => {
  it('the destination is a topic exchange; a consumer group is the queue <destination>.<group> bound with #; no group is an anonymous queue; a Kafka binder binding stays a topic', async () => {
    const r = await reportOf({
      orders: {
        'src/main/java/shop/Orders.java': lines(
          'package shop;',
          '@Service',
          'public class Orders {',
          '    private final StreamBridge streamBridge;',
          '    public void place(Order o) {',
          '        streamBridge.send("orderPlaced-out-0", o);',
          '        streamBridge.send("audit-out-0", o);',
          '    }',
          '}',
        ),
        'src/main/resources/application.yml': lines(
          'spring:',
          '  cloud:',
          '    stream:',
          '      default-binder: rabbit',
          '      binders:',
          '        kafka1:',
          '          type: kafka',
          '      bindings:',
          '        orderPlaced-out-0:',
          '          destination: orders',
          '        audit-out-0:',
          '          destination: audit',
          '          binder: kafka1',
        ),
      },
      shipping: {
        'src/main/java/shop/Shipping.java': lines(
          'package shop;',
          '@Configuration',
          'public class Shipping {',
          '    @Bean',
          '    public Consumer<Order> ship() {',
          '        return order -> {};',
          '    }',
          '    @Bean',
          '    public Consumer<Order> track() {',
          '        return order -> {};',
          '    }',
          '}',
        ),
        'src/main/resources/application.properties': lines(
          'spring.rabbitmq.host=rabbitmq',
          'spring.cloud.function.definition=ship;track',
          'spring.cloud.stream.bindings.ship-in-0.destination=orders',
          'spring.cloud.stream.bindings.ship-in-0.group=shipping',
          'spring.cloud.stream.bindings.track-in-0.destination=orders',
        ),
      },
      audit: {
        'src/main/java/shop/Audit.java': lines(
          'package shop;',
          '@Configuration',
          'public class Audit {',
          '    @Bean',
          '    public Consumer<Order> audit() {',
          '        return order -> {};',
          '    }',
          '}',
        ),
        'src/main/resources/application.yml': lines(
          'spring.kafka.bootstrap-servers: kafka:9092',
          'spring.cloud.stream.bindings.audit-in-0.destination: audit',
        ),
      },
    });
    expect(r.table.map((t) => `${t.caller} | ${t.calls} | ${t.servedBy} | ${t.match}`)).toEqual([
      'orders src/main/java/shop/Orders.java:6 | publish `orders` / `orders` | shipping src/main/java/shop/Shipping.java:4 consume queue `orders.shipping` | binding: topic exchange `orders` —`#`→ queue `orders.shipping`',
      'orders src/main/java/shop/Orders.java:6 | publish `orders` / `orders` | shipping src/main/java/shop/Shipping.java:8 consume queue `orders.anonymous.shipping` | binding: topic exchange `orders` —`#`→ queue `orders.anonymous.shipping`',
      'orders src/main/java/shop/Orders.java:7 | produce Kafka topic `audit` | audit src/main/java/shop/Audit.java:4 consume Kafka topic `audit` | Kafka topic `audit` (its own binding)',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
