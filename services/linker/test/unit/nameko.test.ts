import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** A nameko service `billing` with two RPC entrypoints (one never called) and an event handler of each kind. */
const billing = {
  'billing/service.py': lines(
    'from nameko.rpc import rpc',
    'from nameko.events import event_handler, BROADCAST, SINGLETON',
    'SERVICE = "billing"',
    '',
    'class BillingService:',
    '    name = SERVICE',
    '',
    '    @rpc',
    '    def charge(self, order_id, amount):',
    '        return {"ok": True}',
    '',
    '    @rpc(expected_exceptions=ValueError)',
    '    def refund(self, order_id):',
    '        pass',
    '',
    "    @event_handler('shop', 'order_placed')",
    '    def on_placed(self, payload):',
    '        pass',
    '',
    "    @event_handler('shop', 'order_cancelled', handler_type=SINGLETON)",
    '    def on_cancelled(self, payload):',
    '        pass',
    '',
    "    @event_handler('shop', 'cache_flushed', handler_type=BROADCAST, reliable_delivery=False)",
    '    def on_flush(self, payload):',
    '        pass',
  ),
};

describe('nameko: RPC and events over RabbitMQ, named as the broker sees them', () => {
  it('RpcProxy/ServiceRpc attributes, cluster proxies (with, .start(), call_async) and dispatchers reach the entrypoint of their method', async () => {
    const r = await reportOf({
      shop: {
        'shop/service.py': lines(
          'from nameko.rpc import RpcProxy, ServiceRpc',
          'from nameko.events import EventDispatcher',
          '',
          'class ShopService:',
          "    name = 'shop'",
          "    billing = RpcProxy('billing')",
          "    billing3 = ServiceRpc('billing')",
          '    dispatch = EventDispatcher()',
          '',
          '    def place(self, order):',
          '        self.billing.charge(order["id"], order["total"])',
          "        self.dispatch('order_placed', order)",
          '',
          '    def cancel(self, order_id):',
          '        reply = self.billing3.refund.call_async(order_id)',
          "        self.dispatch(event_type='order_cancelled', event_data={'id': order_id})",
          '        self.billing.invoice(order_id)',
          '        return reply.result()',
        ),
        'shop/admin.py': lines(
          'from nameko.standalone.rpc import ClusterRpcProxy, ServiceRpcProxy',
          'from nameko.standalone.events import event_dispatcher',
          'CONFIG = {"AMQP_URI": "amqp://guest:guest@rabbit"}',
          '',
          'def flush_all():',
          '    with ClusterRpcProxy(CONFIG) as cluster:',
          '        cluster.billing.charge(1, 10)',
          '    proxy = ClusterRpcProxy(CONFIG).start()',
          '    proxy.billing.refund(1)',
          "    with ServiceRpcProxy('billing', CONFIG) as billing:",
          '        billing.refund(2)',
          '    dispatch = event_dispatcher(CONFIG)',
          "    dispatch('shop', 'cache_flushed', {})",
        ),
      },
      billing,
    });
    expect(rows(r)).toEqual([
      'shop shop/admin.py:7 | publish `nameko-rpc` / `billing.charge` | billing billing/service.py:8 consume queue `rpc-billing`',
      'shop shop/admin.py:9 | publish `nameko-rpc` / `billing.refund` | billing billing/service.py:12 consume queue `rpc-billing`',
      'shop shop/admin.py:11 | publish `nameko-rpc` / `billing.refund` | billing billing/service.py:12 consume queue `rpc-billing`',
      'shop shop/admin.py:13 | publish `shop.events` / `cache_flushed` | billing billing/service.py:24 consume queue `evt-shop-cache_flushed--billing.on_flush-<broadcast-id>`',
      'shop shop/service.py:11 | publish `nameko-rpc` / `billing.charge` | billing billing/service.py:8 consume queue `rpc-billing`',
      'shop shop/service.py:12 | publish `shop.events` / `order_placed` | billing billing/service.py:16 consume queue `evt-shop-order_placed--billing.on_placed`',
      'shop shop/service.py:15 | publish `nameko-rpc` / `billing.refund` | billing billing/service.py:12 consume queue `rpc-billing`',
      'shop shop/service.py:16 | publish `shop.events` / `order_cancelled` | billing billing/service.py:20 consume queue `evt-shop-order_cancelled`',
    ]);
    // A method the service does not have is a lost request; an entrypoint nobody calls is no gap.
    expect(gaps(r)).toEqual([
      'publisher shop shop/service.py:17 no RPC entrypoint of queue `rpc-billing` answers `billing.invoice`',
    ]);
    expect(r.queueBindings.map((b) => `${b.exchange} ${b.key} ${b.queue}`)).toContain(
      'nameko-rpc billing.* rpc-billing',
    );
  });

  it('a service of another name, or a file that is no nameko code, makes no flow', async () => {
    const r = await reportOf({
      shop: {
        'shop/service.py': lines(
          'from nameko.rpc import RpcProxy',
          'class ShopService:',
          "    name = 'shop'",
          "    payments = RpcProxy('payments')",
          '    def place(self, order):',
          '        self.payments.charge(order)',
        ),
        // Same shapes without nameko: another library's proxy of the same name is not read.
        'shop/other.py': lines(
          'from spyne import rpc',
          'def RpcProxy(name): return name',
          "billing = RpcProxy('billing')",
          'billing.charge(1)',
        ),
      },
      billing,
    });
    expect(rows(r)).toEqual([]);
    expect(gaps(r)).toEqual([
      'consumer billing billing/service.py:16 no publisher routes to queue `evt-shop-order_placed--billing.on_placed`',
      'consumer billing billing/service.py:20 no publisher routes to queue `evt-shop-order_cancelled`',
      'consumer billing billing/service.py:24 no publisher routes to queue `evt-shop-cache_flushed--billing.on_flush-<broadcast-id>`',
      'publisher shop shop/service.py:6 no binding routes `nameko-rpc` / `payments.charge` to a queue',
    ]);
  });
});

describe('kombu and nameko plain-AMQP extensions: exchanges, queues and bindings as declared', () => {
  it('Producer/publish and nameko Publisher reach Consumer/ConsumerMixin and @consume queues through the declared bindings', async () => {
    const r = await reportOf({
      orders: {
        'orders/publish.py': lines(
          'from kombu import Connection, Exchange, Producer, Queue',
          "orders_x = Exchange('orders', type='topic')",
          "audit_q = Queue('audit', routing_key='audit')",
          'def placed(conn, order):',
          '    producer = Producer(conn.channel(), exchange=orders_x)',
          "    producer.publish(order, routing_key='order.placed')",
          '',
          'def audited(producer, entry):',
          "    producer.publish(entry, exchange='', routing_key='audit', declare=[audit_q])",
        ),
        'orders/service.py': lines(
          'from kombu import Exchange',
          'from nameko.messaging import Publisher',
          "ship_x = Exchange('shipping', type='direct')",
          'class Orders:',
          "    name = 'orders'",
          '    publish = Publisher(exchange=ship_x)',
          '    def ship(self, order):',
          "        self.publish(order, routing_key='ship')",
        ),
      },
      billing: {
        'billing/worker.py': lines(
          'from kombu import Exchange, Queue',
          'from kombu.mixins import ConsumerMixin',
          "orders_x = Exchange('orders', type='topic')",
          "billing_q = Queue('billing', exchange=orders_x, routing_key='order.*')",
          'class Worker(ConsumerMixin):',
          '    def get_consumers(self, Consumer, channel):',
          '        return [Consumer(queues=[billing_q], callbacks=[self.on_order])]',
        ),
        'billing/audit.py': lines(
          'from kombu import Connection, Queue',
          "audit_q = Queue('audit', routing_key='audit')",
          'with Connection("amqp://rabbit") as conn:',
          '    with conn.Consumer(audit_q, callbacks=[print]):',
          '        conn.drain_events()',
        ),
      },
      shipping: {
        'shipping/service.py': lines(
          'from kombu import Exchange, Queue',
          'from nameko.messaging import consume',
          "ship_q = Queue('shipments', exchange=Exchange('shipping', type='direct'), routing_key='ship')",
          'class Shipping:',
          "    name = 'shipping'",
          '    @consume(ship_q)',
          '    def on_ship(self, body):',
          '        pass',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders orders/publish.py:6 | publish `orders` / `order.placed` | billing billing/worker.py:7 consume queue `billing`',
      'orders orders/publish.py:9 | publish to queue `audit` (default exchange) | billing billing/audit.py:4 consume queue `audit`',
      'orders orders/service.py:8 | publish `shipping` / `ship` | shipping shipping/service.py:6 consume queue `shipments`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});

describe('nameko configuration', () => {
  it("the RPC exchange is the services' rpc_exchange setting when their config.yml sets it", async () => {
    const r = await reportOf({
      shop: {
        'config.yml': lines('AMQP_URI: amqp://guest:guest@${RABBIT_HOST:localhost}', 'rpc_exchange: shop-rpc'),
        'shop/service.py': lines(
          'from nameko.rpc import RpcProxy',
          'class ShopService:',
          "    name = 'shop'",
          "    billing = RpcProxy('billing')",
          '    def place(self, order):',
          '        self.billing.charge(order)',
        ),
      },
      billing: {
        'config.yml': lines('rpc_exchange: shop-rpc'),
        'billing/service.py': lines(
          'from nameko.rpc import rpc',
          'class BillingService:',
          "    name = 'billing'",
          '    @rpc',
          '    def charge(self, order):',
          '        pass',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop shop/service.py:6 | publish `shop-rpc` / `billing.charge` | billing billing/service.py:4 consume queue `rpc-billing`',
    ]);
  });
});
