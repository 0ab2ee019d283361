import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => l.join('\n') + '\n';

/** A settings module of a worker service: queue names as module constants. */
const settings = lines('INVOICES = "invoices.request"', 'AUDIT = "audit.events"', 'RETRIES = 3');

/** A sender with a fixed queue, in a plain function: the publishing side of the flows below. */
const sender = (queue: string): Record<string, string> => ({
  'sender.py': lines(
    'import pika',
    '',
    'def send(body):',
    "    ch = pika.BlockingConnection(pika.ConnectionParameters('mq')).channel()",
    `    ch.basic_publish(exchange='', routing_key='${queue}', body=body)`,
  ),
});

describe('Python: a module constant imported from a sibling module names a queue in every scope', () => {
  it('from m import *: queue_declare and basic_consume inside methods of a consumer class', async () => {
    const r = await reportOf({
      billing: sender('invoices.request'),
      invoicing: {
        'settings.py': settings,
        'worker.py': lines(
          'import pika',
          'from settings import *',
          '',
          'class Worker:',
          '    def declare(self):',
          '        self.channel.queue_declare(INVOICES)',
          '',
          '    def run(self):',
          '        self.channel.basic_consume(queue=INVOICES, on_message_callback=self.handle)',
          '        self.channel.start_consuming()',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'billing sender.py:5 | publish to queue `invoices.request` (default exchange) | invoicing worker.py:9 consume queue `invoices.request`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('from m import X, import m (m.X), import m as alias: in a nested function, a lambda and a class body', async () => {
    const r = await reportOf({
      billing: sender('invoices.request'),
      audit: sender('audit.events'),
      invoicing: {
        'settings.py': settings,
        'consume.py': lines(
          'import pika',
          'from settings import INVOICES',
          'import settings',
          'import settings as cfg',
          '',
          'class Runner:',
          '    QUEUE = INVOICES',
          '',
          '    def run(self, channel):',
          '        def start():',
          '            channel.queue_declare(queue=settings.INVOICES)',
          '            channel.basic_consume(queue=self.QUEUE, on_message_callback=print)',
          '        start()',
          '',
          '    def audit(self, channel):',
          '        channel.queue_declare(queue=cfg.AUDIT)',
          '        later = lambda: channel.basic_consume(queue=cfg.AUDIT, on_message_callback=print)',
          '        later()',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'audit sender.py:5 | publish to queue `audit.events` (default exchange) | invoicing consume.py:17 consume queue `audit.events`',
      'billing sender.py:5 | publish to queue `invoices.request` (default exchange) | invoicing consume.py:12 consume queue `invoices.request`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('an RPC client wrapper call(payload, queue) with a reply_to queue: one row per calling site, the replies no rows', async () => {
    const r = await reportOf({
      gateway: {
        'config.py': settings,
        'app.py': lines(
          'import uuid',
          'import pika',
          'from config import *',
          '',
          'class RpcClient:',
          '    def connect(self):',
          "        self.channel = pika.BlockingConnection(pika.ConnectionParameters('mq')).channel()",
          '        self.channel.queue_declare(queue=INVOICES)',
          '',
          '    def call(self, payload, queue):',
          "        reply = self.channel.queue_declare(queue='', exclusive=True).method.queue",
          '        self.channel.basic_consume(queue=reply, on_message_callback=self.on_reply, auto_ack=True)',
          '        self.channel.basic_publish(',
          "            exchange='',",
          '            routing_key=queue,',
          '            properties=pika.BasicProperties(reply_to=reply, correlation_id=str(uuid.uuid4())),',
          '            body=payload,',
          '        )',
          '',
          'client = RpcClient()',
          '',
          'def create(order):',
          "    return client.call({'action': 'create', 'order': order}, INVOICES)",
          '',
          'def cancel(order):',
          "    return client.call({'action': 'cancel', 'order': order}, INVOICES)",
        ),
      },
      invoicing: {
        'settings.py': settings,
        'worker.py': lines(
          'import pika',
          'from settings import *',
          '',
          'class Worker:',
          '    def run(self):',
          '        self.channel.basic_consume(queue=INVOICES, on_message_callback=self.handle)',
          '',
          '    def handle(self, ch, method, properties, body):',
          "        ch.basic_publish(exchange='', routing_key=properties.reply_to, body=b'ok')",
        ),
      },
    });
    // The worker declares nothing: the gateway's declaration of the queue is what it consumes by name.
    expect(rows(r)).toEqual([
      'gateway app.py:23 | publish to queue `invoices.request` (default exchange) | invoicing worker.py:6 consume queue `invoices.request`',
      'gateway app.py:26 | publish to queue `invoices.request` (default exchange) | invoicing worker.py:6 consume queue `invoices.request`',
    ]);
    // The replies go to queues named at run time: gaps, never rows.
    // (`every` alone held for no gaps at all: each reply side is listed, by line.)
    expect(gaps(r).map((g) => g.replace(/ dynamic key:.*/, ''))).toEqual([
      'consumer gateway app.py:12',
      'publisher invoicing worker.py:9',
    ]);
    expect(gaps(r).every((g) => g.includes('dynamic key'))).toBe(true);
  });

  it('kafka-python: a topic constant of another module in a producer method and a consumer method', async () => {
    const r = await reportOf({
      shop: {
        'topics.py': lines('ORDER_PLACED = "orders.placed"'),
        'events.py': lines(
          'from kafka import KafkaProducer',
          'from topics import ORDER_PLACED',
          '',
          'class Events:',
          '    def __init__(self):',
          "        self.producer = KafkaProducer(bootstrap_servers='kafka:9092')",
          '',
          '    def placed(self, order):',
          '        self.producer.send(ORDER_PLACED, order)',
        ),
      },
      mailer: {
        'topics.py': lines('ORDER_PLACED = "orders.placed"'),
        'listen.py': lines(
          'from kafka import KafkaConsumer',
          'import topics',
          '',
          'class Listener:',
          '    def run(self):',
          "        for m in KafkaConsumer(topics.ORDER_PLACED, bootstrap_servers='kafka:9092'):",
          '            print(m)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop events.py:9 | produce Kafka topic `orders.placed` | mailer listen.py:6 consume Kafka topic `orders.placed`',
    ]);
  });

  it('aio-pika: a queue constant of another module in declare_queue, consume and a default-exchange publish', async () => {
    const r = await reportOf({
      billing: {
        'names.py': settings,
        'publisher.py': lines(
          'import aio_pika',
          'from names import INVOICES',
          '',
          'class Publisher:',
          '    async def send(self, body):',
          "        conn = await aio_pika.connect_robust('amqp://mq')",
          '        channel = await conn.channel()',
          '        await channel.default_exchange.publish(aio_pika.Message(body=body), routing_key=INVOICES)',
        ),
      },
      invoicing: {
        'settings.py': settings,
        'worker.py': lines(
          'import aio_pika',
          'from settings import *',
          '',
          'class Worker:',
          '    async def run(self):',
          "        conn = await aio_pika.connect_robust('amqp://mq')",
          '        channel = await conn.channel()',
          '        queue = await channel.declare_queue(INVOICES, durable=True)',
          '        await queue.consume(self.handle)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'billing publisher.py:8 | publish to queue `invoices.request` (default exchange) | invoicing worker.py:9 consume queue `invoices.request`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('a queue consumed by name and declared by no source still receives a default-exchange publish of its name', async () => {
    const r = await reportOf({
      billing: sender('invoices.request'),
      invoicing: {
        'settings.py': settings,
        'worker.py': lines(
          'import pika',
          'from settings import INVOICES',
          '',
          'class Worker:',
          '    def run(self):',
          '        self.channel.basic_consume(queue=INVOICES, on_message_callback=self.handle)',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'billing sender.py:5 | publish to queue `invoices.request` (default exchange) | invoicing worker.py:6 consume queue `invoices.request`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('a parameter, a local, or a name nothing imports stays a run-time queue even when a constant has its name', async () => {
    const r = await reportOf({
      billing: sender('invoices.request'),
      invoicing: {
        'settings.py': settings,
        'worker.py': lines(
          'import pika',
          'from settings import AUDIT',
          '',
          'class Worker:',
          '    def run(self, INVOICES):',
          '        self.channel.basic_consume(queue=INVOICES, on_message_callback=self.handle)',
          '',
          '    def other(self):',
          '        self.channel.basic_consume(queue=INVOICES, on_message_callback=self.handle)',
        ),
      },
    });
    expect(rows(r)).toEqual([]);
  });

  it('under a star import, a name the code binds itself (loop, with, lambda, comprehension) is no constant of the source', async () => {
    // `defaults.py` has a constant `queue`: a loop variable of that name in a star-importing file is not it.
    const r = await reportOf({
      billing: sender('alpha'),
      audit: sender('invoices.request'),
      invoicing: {
        'settings.py': settings,
        'defaults.py': lines("queue = 'alpha'", "name = 'alpha'", "target = 'alpha'", "q = 'alpha'"),
        'worker.py': lines(
          'import pika',
          'from settings import *',
          '',
          'def run(ch, data):',
          "    for queue in data['queues']:",
          '        ch.basic_consume(queue=queue, on_message_callback=print)',
          "    with open('x') as name:",
          '        ch.basic_consume(queue=name, on_message_callback=print)',
          "    [ch.basic_consume(queue=target, on_message_callback=print) for target in data['t']]",
          '    handler = lambda q: ch.basic_consume(queue=q, on_message_callback=print)',
          '',
          "for queue in ['x']:",
          '    pass',
          '',
          'def other(ch):',
          '    ch.basic_consume(queue=queue, on_message_callback=print)',
          '    ch.basic_consume(queue=INVOICES, on_message_callback=print)',
        ),
      },
    });
    // Only the constant the star import really brings (`INVOICES`) names a queue; `alpha` reaches no consumer.
    expect(rows(r)).toEqual([
      'audit sender.py:5 | publish to queue `invoices.request` (default exchange) | invoicing worker.py:17 consume queue `invoices.request`',
    ]);
    expect(
      gaps(r)
        .filter((g) => g.startsWith('consumer'))
        .map((g) => g.replace(/ dynamic key:.*/, '')),
    ).toEqual([6, 8, 9, 10, 16].map((l) => `consumer invoicing worker.py:${l}`));
  });
});
