import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

/**
 * A queue declared with an empty name is named by the broker (`amq.gen-…`): the publish/subscribe idiom binds it
 * to an exchange and consumes it. Its name is one identity per declaration (`amq.gen@<file>:<line>`) that the value
 * flow carries to the binding and the consumer, so each publisher on the exchange reaches each such subscriber the
 * exchange's type routes to, and nobody else's server-named queue (it is private to the declaring connection).
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

/** The same subscriber file in two sources: the same `file:line`, two queues. */
const jsSubscriber = (exchange: string, type: string, key: string): string =>
  lines(
    'const amqp = require("amqplib");',
    'async function main() {',
    '  const ch = await (await amqp.connect(process.env.RABBIT)).createChannel();',
    `  await ch.assertExchange("${exchange}", "${type}");`,
    '  const { queue } = await ch.assertQueue("", { exclusive: true });',
    `  await ch.bindQueue(queue, "${exchange}", "${key}");`,
    '  await ch.consume(queue, (msg) => ch.ack(msg));',
    '}',
  );

describe('server-named queues: amqplib', () => {
  it('const { queue } = await ch.assertQueue(""), bindQueue(queue, fanout, ""), consume(queue): every publisher on the exchange reaches every subscriber, each its own queue', async () => {
    const r = await reportOf({
      streaming: {
        'src/index.js': lines(
          'const amqp = require("amqplib");',
          'async function main() {',
          '  const ch = await (await amqp.connect(process.env.RABBIT)).createChannel();',
          '  await ch.assertExchange("viewed", "fanout");',
          '  app.get("/video", (req, res) => {',
          '    ch.publish("viewed", "", Buffer.from("{}"));',
          '  });',
          '}',
        ),
      },
      history: { 'src/index.js': jsSubscriber('viewed', 'fanout', '') },
      recommendations: { 'src/index.js': jsSubscriber('viewed', 'fanout', '') },
    });
    expect(rows(r)).toEqual([
      'streaming src/index.js:6 | publish `viewed` | history src/index.js:7 consume queue `amq.gen@src/index.js:5`',
      'streaming src/index.js:6 | publish `viewed` | recommendations src/index.js:7 consume queue `amq.gen@src/index.js:5`',
    ]);
    expect(gaps(r)).toEqual([]);
    expect(r.queueBindings.map((b) => `${b.exchangeType} ${b.exchange} → ${b.queue} at ${b.at.source}`)).toEqual([
      'fanout viewed → amq.gen@src/index.js:5 at history',
      'fanout viewed → amq.gen@src/index.js:5 at recommendations',
    ]);
  });

  it('const q = await ch.assertQueue(""), q.queue, on a topic exchange: the binding key decides who receives', async () => {
    const r = await reportOf({
      orders: {
        'src/publish.js': lines(
          'async function placed(ch, order) {',
          '  await ch.assertExchange("shop", "topic");',
          '  ch.publish("shop", "order.placed", Buffer.from(JSON.stringify(order)));',
          '  ch.publish("shop", "order.cancelled", Buffer.from(JSON.stringify(order)));',
          '}',
        ),
      },
      mailer: {
        'src/worker.js': lines(
          'async function listen(ch) {',
          '  await ch.assertExchange("shop", "topic");',
          '  const q = await ch.assertQueue("", { exclusive: true });',
          '  await ch.bindQueue(q.queue, "shop", "order.placed");',
          '  ch.consume(q.queue, onPlaced, { noAck: true });',
          '}',
        ),
      },
      audit: {
        'src/worker.js': lines(
          'async function listen(ch) {',
          '  const { queue: mine } = await ch.assertQueue(null);',
          '  await ch.bindQueue(mine, "shop", "order.#");',
          '  ch.consume(mine, onAny);',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/publish.js:3 | publish `shop` / `order.placed` | audit src/worker.js:4 consume queue `amq.gen@src/worker.js:2`',
      'orders src/publish.js:3 | publish `shop` / `order.placed` | mailer src/worker.js:5 consume queue `amq.gen@src/worker.js:3`',
      'orders src/publish.js:4 | publish `shop` / `order.cancelled` | audit src/worker.js:4 consume queue `amq.gen@src/worker.js:2`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('the callback API: assertQueue("", opts, (err, q) => …) and assertQueue("").then((q) => …) give q.queue', async () => {
    const r = await reportOf({
      emitter: {
        'emit.js': lines(
          'const amqp = require("amqplib/callback_api");',
          'function emit(channel, msg) {',
          '  channel.assertExchange("logs", "fanout", { durable: false });',
          '  channel.publish("logs", "", Buffer.from(msg));',
          '}',
        ),
      },
      receiver: {
        'receive.js': lines(
          'const amqp = require("amqplib/callback_api");',
          'function receive(channel) {',
          '  channel.assertQueue("", { exclusive: true }, function (error2, q) {',
          '    channel.bindQueue(q.queue, "logs", "");',
          '    channel.consume(q.queue, function (msg) {}, { noAck: true });',
          '  });',
          '}',
        ),
      },
      tailer: {
        'tail.js': lines(
          'function tail(ch) {',
          '  return ch.assertQueue("", { exclusive: true }).then((ok) => {',
          '    ch.bindQueue(ok.queue, "logs", "");',
          '    return ch.consume(ok.queue, print);',
          '  });',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'emitter emit.js:4 | publish `logs` | receiver receive.js:5 consume queue `amq.gen@receive.js:3`',
      'emitter emit.js:4 | publish `logs` | tailer tail.js:4 consume queue `amq.gen@tail.js:2`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('a named assertQueue keeps its name through { queue }', async () => {
    const r = await reportOf({
      producer: { 'p.js': lines('async function f(ch) {', '  ch.sendToQueue("tasks", Buffer.from("x"));', '}') },
      worker: {
        'w.js': lines(
          'async function f(ch) {',
          '  const { queue } = await ch.assertQueue("tasks", { durable: true });',
          '  ch.consume(queue, work);',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'producer p.js:2 | publish to queue `tasks` (default exchange) | worker w.js:3 consume queue `tasks`',
    ]);
  });
});

describe('server-named queues: Python', () => {
  it('pika: result = channel.queue_declare(queue="", exclusive=True); result.method.queue bound to a direct exchange and consumed', async () => {
    const r = await reportOf({
      emitter: {
        'emit.py': lines(
          'import pika',
          'connection = pika.BlockingConnection(pika.ConnectionParameters("rabbitmq"))',
          'channel = connection.channel()',
          'channel.exchange_declare(exchange="logs", exchange_type="direct")',
          'def emit(severity, body):',
          '    channel.basic_publish(exchange="logs", routing_key="error", body=body)',
          'def info(body):',
          '    channel.basic_publish(exchange="logs", routing_key="info", body=body)',
        ),
      },
      alerts: {
        'receive.py': lines(
          'import pika',
          'def main(channel):',
          '    channel.exchange_declare(exchange="logs", exchange_type="direct")',
          '    result = channel.queue_declare(queue="", exclusive=True)',
          '    queue_name = result.method.queue',
          '    channel.queue_bind(exchange="logs", queue=queue_name, routing_key="error")',
          '    channel.basic_consume(queue=queue_name, on_message_callback=on_error, auto_ack=True)',
          'def other(channel):',
          '    result = channel.queue_declare("", exclusive=True)',
          '    channel.queue_bind(exchange="logs", queue=result.method.queue, routing_key="info")',
          '    channel.basic_consume(queue=result.method.queue, on_message_callback=on_info)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'emitter emit.py:6 | publish `logs` / `error` | alerts receive.py:7 consume queue `amq.gen@receive.py:4`',
      'emitter emit.py:8 | publish `logs` / `info` | alerts receive.py:11 consume queue `amq.gen@receive.py:9`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('aio-pika: declare_queue("") is a server-named queue (as declare_queue(exclusive=True) already was) on a fanout exchange', async () => {
    const r = await reportOf({
      shop: {
        'app/events.py': lines(
          'import aio_pika',
          'async def announce(channel, body):',
          '    exchange = await channel.declare_exchange("prices", aio_pika.ExchangeType.FANOUT)',
          '    await exchange.publish(aio_pika.Message(body), routing_key="")',
        ),
      },
      cache: {
        'app/listen.py': lines(
          'import aio_pika',
          'async def listen(channel):',
          '    exchange = await channel.declare_exchange("prices", aio_pika.ExchangeType.FANOUT)',
          '    queue = await channel.declare_queue("")',
          '    await queue.bind(exchange)',
          '    await queue.consume(on_price)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop app/events.py:4 | publish `prices` | cache app/listen.py:6 consume queue `amq.gen@app/listen.py:4`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('server-named queues: Go and C#', () => {
  it('amqp091-go: q, err := ch.QueueDeclare("", …); QueueBind(q.Name, "", "logs", …); Consume(q.Name, …) on a fanout exchange', async () => {
    const r = await reportOf({
      emitter: {
        'main.go': lines(
          'package main',
          'import amqp "github.com/rabbitmq/amqp091-go"',
          'func emit(ctx context.Context, ch *amqp.Channel, body []byte) error {',
          '\terr := ch.ExchangeDeclare("logs", "fanout", true, false, false, false, nil)',
          '\treturn ch.PublishWithContext(ctx, "logs", "", false, false, amqp.Publishing{Body: body})',
          '}',
        ),
      },
      receiver: {
        'main.go': lines(
          'package main',
          'import amqp "github.com/rabbitmq/amqp091-go"',
          'func receive(ch *amqp.Channel) {',
          '\tq, err := ch.QueueDeclare(',
          '\t\t"",    // name',
          '\t\tfalse, // durable',
          '\t\tfalse, // delete when unused',
          '\t\ttrue,  // exclusive',
          '\t\tfalse, // no-wait',
          '\t\tnil,   // arguments',
          '\t)',
          '\terr = ch.QueueBind(q.Name, "", "logs", false, nil)',
          '\tmsgs, err := ch.Consume(q.Name, "", true, false, false, false, nil)',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'emitter main.go:5 | publish `logs` | receiver main.go:13 consume queue `amq.gen@main.go:4`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('amqp091-go in a shared package configured by functional options: QueueDeclare("") there is one queue per configuring service', async () => {
    const r = await reportOf({
      bus: {
        'go.mod': 'module example.com/shop\n',
        'pkg/bus/consumer/consumer.go': lines(
          'package consumer',
          'import amqp "github.com/rabbitmq/amqp091-go"',
          'type Option func(*consumer)',
          'func ExchangeName(name string) Option { return func(c *consumer) { c.exchange = name } }',
          'func BindingKey(key string) Option { return func(c *consumer) { c.key = key } }',
          'type consumer struct{ exchange, key string; ch *amqp.Channel }',
          'func (c *consumer) Configure(opts ...Option) { for _, o := range opts { o(c) } }',
          'func (c *consumer) Start() error {',
          '\tc.ch.ExchangeDeclare(c.exchange, "direct", true, false, false, false, nil)',
          '\tq, _ := c.ch.QueueDeclare("", false, true, true, false, nil)',
          '\tc.ch.QueueBind(q.Name, c.key, c.exchange, false, nil)',
          '\t_, err := c.ch.Consume(q.Name, "", false, false, false, false, nil)',
          '\treturn err',
          '}',
        ),
      },
      orders: {
        'main.go': lines(
          'package main',
          'import amqp "github.com/rabbitmq/amqp091-go"',
          'func placed(ctx context.Context, ch *amqp.Channel, body []byte) error {',
          '\treturn ch.PublishWithContext(ctx, "orders", "order-placed", false, false, amqp.Publishing{Body: body})',
          '}',
        ),
      },
      billing: {
        'cmd/main.go': lines(
          'package main',
          'import "example.com/shop/pkg/bus/consumer"',
          'func main() {',
          '\tc := consumer.New()',
          '\tc.Configure(consumer.ExchangeName("orders"), consumer.BindingKey("order-placed"))',
          '\tc.Start()',
          '}',
        ),
      },
      audit: {
        'cmd/main.go': lines(
          'package main',
          'import "example.com/shop/pkg/bus/consumer"',
          'func main() {',
          '\tc := consumer.New()',
          '\tc.Configure(consumer.ExchangeName("orders"), consumer.BindingKey("order-placed"))',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders main.go:4 | publish `orders` / `order-placed` | audit cmd/main.go:5 consume queue `amq.gen@pkg/bus/consumer/consumer.go:10`',
      'orders main.go:4 | publish `orders` / `order-placed` | billing cmd/main.go:5 consume queue `amq.gen@pkg/bus/consumer/consumer.go:10`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('RabbitMQ.Client: QueueDeclare().QueueName and QueueDeclareOk q = await QueueDeclareAsync(); q.QueueName, on direct and topic exchanges', async () => {
    const r = await reportOf({
      logs: {
        'Emit.cs': lines(
          'using RabbitMQ.Client;',
          'public class Emitter {',
          '  public void Emit(IModel channel, byte[] body) {',
          '    channel.ExchangeDeclare(exchange: "direct_logs", type: ExchangeType.Direct);',
          '    channel.BasicPublish(exchange: "direct_logs", routingKey: "error", basicProperties: null, body: body);',
          '    channel.BasicPublish(exchange: "topic_logs", routingKey: "kern.critical", basicProperties: null, body: body);',
          '  }',
          '}',
        ),
      },
      watcher: {
        'Receive.cs': lines(
          'using RabbitMQ.Client;',
          'public class Receiver {',
          '  public void Errors(IModel channel) {',
          '    var queueName = channel.QueueDeclare().QueueName;',
          '    channel.QueueBind(queue: queueName, exchange: "direct_logs", routingKey: "error");',
          '    channel.BasicConsume(queue: queueName, autoAck: true, consumer: new EventingBasicConsumer(channel));',
          '  }',
          '  public async Task Kernel(IChannel channel) {',
          '    await channel.ExchangeDeclareAsync(exchange: "topic_logs", type: ExchangeType.Topic);',
          '    QueueDeclareOk declared = await channel.QueueDeclareAsync();',
          '    await channel.QueueBindAsync(queue: declared.QueueName, exchange: "topic_logs", routingKey: "kern.*");',
          '    await channel.BasicConsumeAsync(declared.QueueName, autoAck: true, consumer: new AsyncEventingBasicConsumer(channel));',
          '  }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'logs Emit.cs:5 | publish `direct_logs` / `error` | watcher Receive.cs:6 consume queue `amq.gen@Receive.cs:4`',
      'logs Emit.cs:6 | publish `topic_logs` / `kern.critical` | watcher Receive.cs:12 consume queue `amq.gen@Receive.cs:10`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
