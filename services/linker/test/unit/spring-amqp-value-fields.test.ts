import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

/**
 * Issue 20, blind27c round: Spring AMQP declarables (`@Bean Queue` / `TopicExchange` / `Binding`) whose names
 * come from `@Value("${…}")` fields or constructor parameters, resolved from `application.yml` and the
 * deployment's active profile; and a publishing helper of a shared module reported at its callers only.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const consumer = (config: string): Record<string, string> => ({
  'src/main/java/mail/MailConfig.java': config,
  'src/main/java/mail/MailListener.java': lines(
    'package mail;',
    'public class MailListener {',
    '    @RabbitListener(queues = "${broker.queue}")',
    '    public void on(Mail m) {}',
    '}',
  ),
  'src/main/resources/application.yml': lines(
    'broker:',
    '  exchange: local.exchange',
    '  queue: local.mail',
    '  key: local.mail.key',
  ),
  'src/main/resources/application-docker.yml': lines(
    'broker:',
    '  exchange: app.exchange',
    '  queue: mail.queue',
    '  key: mail.send',
  ),
});

const fieldConfig = lines(
  'package mail;',
  '@Configuration',
  'public class MailConfig {',
  '    @Value("${broker.exchange}")',
  '    private String exchange;',
  '    @Value("${broker.queue}")',
  '    private String queue;',
  '    @Value("${broker.key}")',
  '    private String key;',
  '    @Bean public TopicExchange appExchange() { return new TopicExchange(this.exchange); }',
  '    @Bean public Queue mailQueue() { return new Queue(queue); }',
  '    @Bean public Binding mailBinding(Queue mailQueue, TopicExchange appExchange) {',
  '        return BindingBuilder.bind(mailQueue).to(appExchange).with(key);',
  '    }',
  '}',
);

const ctorConfig = lines(
  'package mail;',
  '@Configuration',
  'public class MailConfig {',
  '    private final String exchange;',
  '    private final String queue;',
  '    private final String key;',
  '    public MailConfig(@Value("${broker.exchange}") String exchange, @Value("${broker.queue}") String queue,',
  '                      @Value("${broker.key}") String key) {',
  '        this.exchange = exchange;',
  '        this.queue = queue;',
  '        this.key = key;',
  '    }',
  '    @Bean public DirectExchange appExchange() { return new DirectExchange(exchange); }',
  '    @Bean public Queue mailQueue() { return QueueBuilder.durable(this.queue).build(); }',
  '    @Bean public Binding mailBinding() { return BindingBuilder.bind(mailQueue()).to(appExchange()).with(this.key); }',
  '}',
);

const publisher = {
  'src/main/java/shop/Checkout.java': lines(
    'package shop;',
    'public class Checkout {',
    '    @Value("${broker.exchange}")',
    '    private String exchange;',
    '    private final RabbitTemplate rabbitTemplate;',
    '    public void done(Order o) {',
    '        rabbitTemplate.convertAndSend(exchange, "mail.send", o);',
    '    }',
    '}',
  ),
  'src/main/resources/application.yml': lines('broker:', '  exchange: app.exchange'),
};

const deploy = {
  'docker-compose.yml': lines(
    'services:',
    '  shop:',
    '    build: ../shop',
    '  mail:',
    '    build: ../mail',
    '    environment:',
    '      SPRING_PROFILES_ACTIVE: docker',
  ),
};

const FLOW =
  'shop src/main/java/shop/Checkout.java:7 | publish `app.exchange` / `mail.send` | mail src/main/java/mail/MailListener.java:3 consume queue `mail.queue`';

describe('Spring AMQP declarables named by @Value settings', () => {
  it('fields injected with @Value name the exchange, queue and binding key (the active profile’s values)', async () => {
    const r = await reportOf({ shop: publisher, mail: consumer(fieldConfig), deploy });
    expect(rows(r)).toEqual([FLOW]);
    expect(gaps(r)).toEqual([]);
  });

  it('constructor parameters injected with @Value, through the fields they set', async () => {
    const r = await reportOf({ shop: publisher, mail: consumer(ctorConfig), deploy });
    expect(rows(r)).toEqual([FLOW]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('a publishing helper of a shared module, injected where it is used', () => {
  const shared = {
    'broker/src/main/java/lib/broker/EventSender.java': lines(
      'package lib.broker;',
      '@Component',
      '@AllArgsConstructor',
      'public class EventSender {',
      '    private final AmqpTemplate amqpTemplate;',
      '    public void dispatch(String exchange, String routingKey, Object payload) {',
      '        amqpTemplate.convertAndSend(exchange, routingKey, payload);',
      '    }',
      '}',
    ),
  };
  const caller = {
    'src/main/java/shop/Checkout.java': lines(
      'package shop;',
      'import lib.broker.EventSender;',
      '@Service',
      '@AllArgsConstructor',
      'public class Checkout {',
      '    private final EventSender events;',
      '    public void done(Order o) {',
      '        events.dispatch("app.exchange", "mail.send", o);',
      '    }',
      '}',
    ),
  };

  it('publishes at each caller’s site, and the helper’s own send (names only callers give) is no gap', async () => {
    const r = await reportOf({ shop: caller, shared, mail: consumer(fieldConfig), deploy });
    expect(rows(r)).toEqual([
      'shop src/main/java/shop/Checkout.java:8 | publish `app.exchange` / `mail.send` | mail src/main/java/mail/MailListener.java:3 consume queue `mail.queue`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('stays the helper’s own gap when no source calls it', async () => {
    const r = await reportOf({ shared, mail: consumer(fieldConfig), deploy });
    expect(gaps(r)).toEqual([
      'consumer mail src/main/java/mail/MailListener.java:3 no publisher routes to queue `mail.queue`',
      'publisher shared broker/src/main/java/lib/broker/EventSender.java:7 dynamic key: the exchange is only known at run time, and a placeholder matches no exchange',
    ]);
  });
});

describe('Spring AMQP: convertAndSend(routingKey, msg) through the template’s exchange', () => {
  const orders = {
    'src/main/java/shop/OrderConfig.java': lines(
      'package shop;',
      '@Configuration',
      'public class OrderConfig {',
      '  @Bean Queue created() { return new Queue("orders.created"); }',
      '  @Bean TopicExchange events() { return new TopicExchange("shop.events"); }',
      '  @Bean Binding bind(Queue created, TopicExchange events) { return BindingBuilder.bind(created).to(events).with("order.*"); }',
      '}',
    ),
    'src/main/java/shop/OrderListener.java': lines(
      'package shop;',
      '@Component',
      'public class OrderListener {',
      '  @RabbitListener(queues = "orders.created")',
      '  public void on(Order o) {}',
      '  @RabbitListener(queues = "order.direct")',
      '  public void direct(Order o) {}',
      '}',
    ),
  };
  const sender = lines(
    'package cart;',
    '@Service',
    'public class Checkout {',
    '  private final RabbitTemplate rabbitTemplate;',
    '  public void done(Order o) {',
    '    rabbitTemplate.convertAndSend("order.placed", o);',
    '  }',
    '}',
  );

  it('the exchange a @Bean RabbitTemplate sets with setExchange', async () => {
    const r = await reportOf({
      orders,
      cart: {
        'src/main/java/cart/Checkout.java': sender,
        'src/main/java/cart/AmqpConfig.java': lines(
          'package cart;',
          '@Configuration',
          'public class AmqpConfig {',
          '  @Bean',
          '  public RabbitTemplate rabbitTemplate(ConnectionFactory cf) {',
          '    RabbitTemplate template = new RabbitTemplate(cf);',
          '    template.setExchange("shop.events");',
          '    return template;',
          '  }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'cart src/main/java/cart/Checkout.java:6 | publish `shop.events` / `order.placed` | orders src/main/java/shop/OrderListener.java:4 consume queue `orders.created`',
    ]);
  });

  it('spring.rabbitmq.template.exchange, else the default exchange (the key names the queue)', async () => {
    const withProperty = await reportOf({
      orders,
      cart: {
        'src/main/java/cart/Checkout.java': sender,
        'src/main/resources/application.yml': lines(
          'spring:',
          '  rabbitmq:',
          '    template:',
          '      exchange: shop.events',
        ),
      },
    });
    expect(rows(withProperty)).toEqual([
      'cart src/main/java/cart/Checkout.java:6 | publish `shop.events` / `order.placed` | orders src/main/java/shop/OrderListener.java:4 consume queue `orders.created`',
    ]);
    const plain = await reportOf({
      orders,
      cart: { 'src/main/java/cart/Checkout.java': sender.replace('"order.placed"', '"order.direct"') },
    });
    expect(rows(plain)).toEqual([
      'cart src/main/java/cart/Checkout.java:6 | publish to queue `order.direct` (default exchange) | orders src/main/java/shop/OrderListener.java:6 consume queue `order.direct`',
    ]);
  });
});
