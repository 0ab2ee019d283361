import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => l.join('\n') + '\n';

/** A consumer service that declares durable queues on the default exchange. */
const shipping = {
  'app/worker.py': lines(
    'import aio_pika',
    '',
    'async def run(url):',
    '    connection = await aio_pika.connect_robust(url)',
    '    channel = await connection.channel()',
    '    shipments = await channel.declare_queue("shipping", durable=True)',
    '    await shipments.consume(on_shipment)',
    '    invoices = await channel.declare_queue("invoices", durable=True)',
    '    await invoices.consume(on_invoice)',
  ),
};

describe('Python: publish wrappers over wrappers (any depth)', () => {
  it('a queue passed through a unit of work (self.client.publish_message) and a business method (self.broker.send) is published at the outermost call naming it', async () => {
    const r = await reportOf({
      billing: {
        'app/tools/rabbit.py': lines(
          'import aio_pika',
          'from aio_pika import Message',
          '',
          'class RabbitClient:',
          '    def __init__(self, url):',
          '        self.url = url',
          '',
          '    async def publish_message(self, queue: str, message: dict):',
          '        body = Message(body=str(message).encode())',
          '        await self.channel.default_exchange.publish(routing_key=queue, message=body)',
        ),
        'app/broker/work.py': lines(
          'from ..tools.rabbit import RabbitClient',
          '',
          'class BrokerWork:',
          '    def __init__(self):',
          '        self.client = RabbitClient("amqp://rabbit")',
          '',
          '    async def send(self, queue: str, message: dict):',
          '        await self.client.publish_message(queue, message)',
        ),
        'app/logic.py': lines(
          'class Logic:',
          '    def __init__(self, broker):',
          '        self.broker = broker',
          '',
          '    async def paid(self, order):',
          '        await self.broker.send(message=order, queue="shipping")',
          '',
          '    async def notify(self, target, order):',
          '        await self.broker.send(target, order)',
        ),
        'app/api.py': lines(
          'from .logic import Logic',
          'from .broker.work import BrokerWork',
          '',
          'async def callback(order):',
          '    logic = Logic(BrokerWork())',
          '    await logic.notify("invoices", order)',
        ),
      },
      shipping,
    });
    expect(rows(r)).toEqual([
      'billing app/api.py:6 | publish to queue `invoices` (default exchange) | shipping app/worker.py:9 consume queue `invoices`',
      'billing app/logic.py:6 | publish to queue `shipping` (default exchange) | shipping app/worker.py:7 consume queue `shipping`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
