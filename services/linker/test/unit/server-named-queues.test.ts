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
