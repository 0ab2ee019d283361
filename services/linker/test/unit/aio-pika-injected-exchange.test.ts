import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

/**
 * aio-pika with the exchange object handed around (issue 20, blind26c): declared in the lifespan under a
 * pydantic setting's name, kept in `app.state`, injected by FastAPI `Depends`, or held in a consumer's field.
 * A publish or bind through such an object is on the one exchange the source declares.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

const settings = lines(
  'from pydantic import Field',
  'from pydantic_settings import BaseSettings',
  'class Settings(BaseSettings):',
  '    amqp_exchange: str = Field("shop.exchange")',
  'settings = Settings()',
);

describe('aio-pika exchange objects from app.state, Depends and fields', () => {
  it('Depends(get_exchange) publish → a queue bound with queue.bind(exchange=self.exchange, routing_key=…) in a class', async () => {
    const r = await reportOf({
      orders: {
        'src/settings.py': settings,
        'src/main.py': lines(
          'import aio_pika',
          'from fastapi import FastAPI',
          'from src.settings import settings',
          'async def lifespan(app):',
          '    connection = await aio_pika.connect_robust("amqp://rabbitmq")',
          '    channel = await connection.channel()',
          '    exchange = await channel.declare_exchange(name=settings.amqp_exchange, type=aio_pika.ExchangeType.TOPIC)',
          '    app.state.amqp_exchange = exchange',
          '    yield',
          'app = FastAPI(lifespan=lifespan)',
        ),
        'src/api/deps.py': lines(
          'import aio_pika',
          'from fastapi import Request',
          'async def get_exchange(request: Request) -> aio_pika.abc.AbstractExchange:',
          '    return request.app.state.amqp_exchange',
        ),
        'src/api/orders.py': lines(
          'import aio_pika',
          'from fastapi import APIRouter, Depends',
          'from src.api.deps import get_exchange',
          'router = APIRouter()',
          '@router.post("/orders")',
          'async def create(exchange: aio_pika.abc.AbstractExchange = Depends(get_exchange)):',
          '    message = aio_pika.Message(body=b"{}")',
          '    await exchange.publish(message, routing_key="order_created")',
        ),
      },
      billing: {
        'src/settings.py': settings,
        'src/main.py': lines(
          'import aio_pika',
          'from src.settings import settings',
          'from src.consumer import OrderConsumer',
          'async def start():',
          '    connection = await aio_pika.connect_robust("amqp://rabbitmq")',
          '    channel = await connection.channel()',
          '    exchange = await channel.declare_exchange(name=settings.amqp_exchange, type=aio_pika.ExchangeType.TOPIC)',
          '    await OrderConsumer(exchange).setup()',
        ),
        'src/consumer.py': lines(
          'import aio_pika',
          'class OrderConsumer:',
          '    def __init__(self, exchange):',
          '        self.exchange = exchange',
          '    async def setup(self):',
          '        queue = await self.exchange.channel.declare_queue("billing_orders", durable=True)',
          '        await queue.bind(exchange=self.exchange, routing_key="order_created")',
          '        await queue.consume(self.handle)',
          '    async def handle(self, message):',
          '        await self.exchange.publish(aio_pika.Message(body=b"{}"), routing_key="payment_processed")',
        ),
      },
    });
    expect(r.queueBindings.map((b) => `${b.exchange} ${b.exchangeType} ${b.key} → ${b.queue}`)).toEqual([
      'shop.exchange topic order_created → billing_orders',
    ]);
    expect(rows(r)).toEqual([
      'orders src/api/orders.py:8 | publish `shop.exchange` / `order_created` | billing src/consumer.py:8 consume queue `billing_orders`',
    ]);
    // The consumer's own publish through its field: seen, and nobody binds its key.
    expect(gaps(r)).toEqual([
      'publisher billing src/consumer.py:10 no binding routes `shop.exchange` / `payment_processed` to a queue',
    ]);
  });
});
