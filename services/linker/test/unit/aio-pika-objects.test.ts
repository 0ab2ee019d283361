import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * aio-pika inside a client class (issue 20, fastapi_messaging's shape): the queue it consumes and the routing
 * key it publishes with come from its constructor and method arguments, named by each service that creates
 * it (a pydantic `BaseSettings` field set by the service's `.env`, a literal).
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const rabbitClient = lines(
  'import json',
  'from aio_pika import Message, connect_robust',
  '',
  'class RabbitClient:',
  '    def __init__(self, rabbit_url: str, service_name: str, handler=None):',
  '        self.rabbit_url = rabbit_url',
  '        self.service_name = service_name',
  '        self.handler = handler',
  '        self.channel = None',
  '',
  '    async def connect(self):',
  '        connection = await connect_robust(url=self.rabbit_url)',
  '        self.channel = await connection.channel()',
  '',
  '    async def start_subscription(self):',
  '        queue = await self.channel.declare_queue(name=self.service_name, durable=True)',
  '        await queue.consume(self.handler, no_ack=False)',
  '',
  '    async def publish_message(self, queue: str, message: dict):',
  '        body = Message(body=json.dumps(message).encode())',
  '        await self.channel.default_exchange.publish(routing_key=queue, message=body)',
);

describe('aio-pika in a client class whose queue its creator names', () => {
  it('declare_queue(name=self.<field>) + consume, default_exchange.publish(routing_key=<parameter>): the default exchange reaches the queue named by the consumer’s settings', async () => {
    const r = await reportOf({
      orders: {
        'src/core/.env': lines("SERVICE_NAME='OrderService'"),
        'src/core/setup.py': lines(
          'from pydantic_settings import BaseSettings',
          'class Configuration(BaseSettings):',
          "    service_name: str = 'unknown'",
          "    rabbit_url: str = 'amqp://guest:guest@localhost'",
          'config = Configuration()',
        ),
        'src/tools/rabbit_client.py': rabbitClient,
        'src/main.py': lines(
          'from src.core.setup import config',
          'from src.tools.rabbit_client import RabbitClient',
          '',
          'async def on_message(msg):',
          '    pass',
          '',
          'async def start():',
          '    client = RabbitClient(config.rabbit_url, config.service_name, on_message)',
          '    await client.connect()',
          '    await client.start_subscription()',
        ),
      },
      payments: {
        'src/tools/rabbit_client.py': rabbitClient,
        'src/business/notify.py': lines(
          'from src.tools.rabbit_client import RabbitClient',
          '',
          'async def notify(result):',
          "    client = RabbitClient('amqp://rabbitmq', 'PaymentService')",
          '    await client.connect()',
          "    await client.publish_message('OrderService', result)",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'payments src/business/notify.py:6 | publish to queue `OrderService` (default exchange) | orders src/main.py:10 consume queue `OrderService`',
    ]);
    // The orders copy of the client never publishes through its method: its key stays a parameter.
    expect(gaps(r)).toEqual([
      'publisher orders src/tools/rabbit_client.py:21 dynamic key: the queue is only known at run time, and a placeholder matches no queue',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
