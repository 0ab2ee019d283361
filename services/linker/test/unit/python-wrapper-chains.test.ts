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

describe('Python: wrappers over wrappers in a large source', () => {
  // The step budget counted every call site inside a function with parameters (every call with arguments is
  // one), so in a source with more than about 1,000 of them before the chain, no wrapper over a wrapper was found.
  it('follows the chain after thousands of unrelated calls', async () => {
    const busy = lines('def busy(x):', ...Array.from({ length: 1_500 }, (_, i) => `    record(x, ${i})`));
    const r = await reportOf({
      billing: {
        'app/aaa_busy.py': busy,
        'app/tools/rabbit.py': lines(
          'import aio_pika',
          '',
          'class RabbitClient:',
          '    async def publish_message(self, queue: str, message: dict):',
          '        await self.channel.default_exchange.publish(aio_pika.Message(b"x"), routing_key=queue)',
        ),
        'app/work.py': lines(
          'from .tools.rabbit import RabbitClient',
          '',
          'class BrokerWork:',
          '    async def send(self, queue: str, message: dict):',
          '        await self.client.publish_message(queue, message)',
        ),
        'app/zzz_logic.py': lines(
          'async def paid(broker, order):',
          '    await broker.send(message=order, queue="shipping")',
        ),
      },
      shipping,
    });
    expect(rows(r)).toEqual([
      'billing app/zzz_logic.py:2 | publish to queue `shipping` (default exchange) | shipping app/worker.py:7 consume queue `shipping`',
    ]);
  });
});

/** A payment service that publishes its result to the queue its caller named in the request body. */
const payments = {
  'app/api.py': lines(
    'from fastapi import APIRouter',
    '',
    'router = APIRouter(prefix="/v1/payments")',
    '',
    '@router.post("")',
    'async def create(payload: PaymentPayload):',
    '    await repo.store(payload)',
    '',
    '@router.post("/callback")',
    'async def callback(result):',
    '    await PaymentLogic(repo, Broker()).done(result)',
  ),
  'app/broker.py': lines(
    'import aio_pika',
    '',
    'class Broker:',
    '    async def publish(self, queue: str, message: dict):',
    '        await self.channel.default_exchange.publish(aio_pika.Message(b"x"), routing_key=queue)',
  ),
  'app/logic.py': lines(
    'class PaymentLogic:',
    '    def __init__(self, repo, broker):',
    '        self.repo = repo',
    '        self.broker = broker',
    '',
    '    async def done(self, result):',
    '        payment = await self.repo.read(result.caller_id)',
    '        await self.broker.publish(message=result, queue=payment.metadata.receiver)',
  ),
};

/** An order service that names its own queue (a settings field) as the reply-to of its payment request. */
const orders = (receiver: string): Record<string, string> => ({
  'app/settings.py': lines(
    'from pydantic_settings import BaseSettings',
    '',
    'class Settings(BaseSettings):',
    '    service_name: str = "orders"',
    '',
    'config = Settings()',
  ),
  'app/pay.py': lines(
    'import httpx',
    'from .settings import config',
    '',
    'async def pay(order):',
    `    meta = Metadata(order_id=order.id, receiver=${receiver})`,
    '    payload = PaymentPayload(metadata=meta, amount=order.amount)',
    '    async with httpx.AsyncClient() as client:',
    '        await client.post("http://payments:8000/v1/payments", data=payload.model_dump_json())',
  ),
  'app/worker.py': lines(
    'import aio_pika',
    'from .settings import config',
    '',
    'async def listen(channel):',
    '    queue = await channel.declare_queue("orders", durable=True)',
    '    await queue.consume(on_reply)',
  ),
});

describe('Python: a reply-to queue carried in a request body', () => {
  it("a publish keyed by a stored request's field (payment.metadata.receiver) goes to the queue the caller of the linked route set in that field", async () => {
    const r = await reportOf({ orders: orders("f'{config.service_name}'"), payments });
    expect(
      r.table
        .filter((t) => t.calls.startsWith('publish'))
        .map((t) => `${t.caller} | ${t.calls} | ${t.servedBy} | ${t.match}`),
    ).toEqual([
      'payments app/logic.py:8 | publish to queue `orders` (default exchange) | orders app/worker.py:6 consume queue `orders` | binding: default exchange → queue `orders`; key `payment.metadata.receiver` = request field `metadata.receiver` sent by orders app/pay.py:8',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('the same through a direct aio-pika publish on the default exchange (no wrapper)', async () => {
    const direct = {
      'app/api.py': payments['app/api.py'],
      'app/logic.py': lines(
        'import aio_pika',
        '',
        'class PaymentLogic:',
        '    async def done(self, result):',
        '        payment = await self.repo.read(result.caller_id)',
        '        await self.channel.default_exchange.publish(aio_pika.Message(b"x"), routing_key=payment.metadata.receiver)',
      ),
    };
    const r = await reportOf({ orders: orders("f'{config.service_name}'"), payments: direct });
    expect(rows(r).filter((t) => t.includes('publish'))).toEqual([
      'payments app/logic.py:6 | publish to queue `orders` (default exchange) | orders app/worker.py:6 consume queue `orders`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('a field the caller leaves to run time names no queue: the publish stays a dynamic-key gap', async () => {
    const r = await reportOf({ orders: orders('order.reply_to'), payments });
    expect(r.table.filter((t) => t.calls.startsWith('publish'))).toEqual([]);
    expect(gaps(r)).toContain(
      'publisher payments app/logic.py:8 dynamic key: the queue is only known at run time, and a placeholder matches no queue',
    );
  });
});
