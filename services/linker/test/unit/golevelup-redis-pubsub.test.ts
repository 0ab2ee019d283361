import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

describe('@golevelup/nestjs-rabbitmq and redis-py PubSub objects', () => {
  it('golevelup: AmqpConnection.publish reaches @RabbitSubscribe/@RabbitRPC handlers by their routing keys, and is no Redis publish', async () => {
    const r = await reportOf({
      accounts: {
        'src/accounts.service.ts': lines(
          "import { Injectable } from '@nestjs/common';",
          "import { AmqpConnection } from '@golevelup/nestjs-rabbitmq';",
          "import { CacheService } from './redis/cache.service';",
          'const EVENTS = "account-events";',
          '@Injectable()',
          'export class AccountsService {',
          '  constructor(private readonly cache: CacheService, private readonly bus: AmqpConnection) {}',
          '  async open(id: string) {',
          "    await this.bus.publish(EVENTS, 'account.opened', { id });",
          '  }',
          '  async close(id: string) {',
          "    await this.bus.publish('account-events', 'account.closed', { id });",
          '  }',
          '  async audit(id: string) {',
          "    await this.bus.publish('audit', 'account.audited', { id });",
          '  }',
          '}',
        ),
      },
      mailer: {
        'src/mailer.module.ts': lines(
          "import { RabbitMQModule } from '@golevelup/nestjs-rabbitmq';",
          '@Module({',
          '  imports: [',
          '    RabbitMQModule.forRootAsync({',
          '      useFactory: () => ({',
          "        exchanges: [{ name: 'account-events' }],",
          "        uri: 'amqp://rabbit',",
          "        queues: [{ name: 'mailer_accounts', exchange: 'account-events', routingKey: 'account.*' }],",
          '      }),',
          '    }),',
          '  ],',
          '})',
          'export class MailerModule {}',
        ),
        'src/accounts.consumer.ts': lines(
          "import { RabbitRPC, RabbitSubscribe } from '@golevelup/nestjs-rabbitmq';",
          'export class AccountsConsumer {',
          '  @RabbitSubscribe({',
          "    exchange: 'account-events',",
          "    routingKey: 'account.opened',",
          "    queue: 'mailer_accounts',",
          '  })',
          '  async opened(msg: { id: string }) {}',
          "  @RabbitRPC({ exchange: 'account-events', routingKey: ['account.closed'], queue: 'mailer_accounts' })",
          '  async closed(msg: { id: string }) {}',
          "  @RabbitSubscribe({ exchange: 'billing', routingKey: 'invoice.#', queue: 'mailer_invoices' })",
          '  async invoiced(msg: unknown) {}',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'accounts src/accounts.service.ts:9 | publish `account-events` / `account.opened` | mailer src/accounts.consumer.ts:3 consume queue `mailer_accounts`',
      'accounts src/accounts.service.ts:12 | publish `account-events` / `account.closed` | mailer src/accounts.consumer.ts:9 consume queue `mailer_accounts`',
    ]);
    expect(gaps(r)).toEqual([
      'publisher accounts src/accounts.service.ts:15 no binding routes `audit` / `account.audited` to a queue',
      'consumer mailer src/accounts.consumer.ts:11 no publisher routes to queue `mailer_invoices`',
    ]);
  });

  it('an ioredis client typed as Redis still publishes on Redis', async () => {
    const r = await reportOf({
      api: {
        'src/events.ts': lines(
          "import Redis from 'ioredis';",
          'export class Events {',
          '  constructor(private readonly redis: Redis) {}',
          "  send() { return this.redis.publish('prices', '{}'); }",
          '}',
        ),
      },
      feed: {
        'feed.py': lines('import redis', "r = redis.Redis(host='redis')", 'p = r.pubsub()', "p.subscribe('prices')"),
      },
    });
    expect(rows(r)).toEqual([
      'api src/events.ts:4 | publish Redis / `prices` | feed feed.py:4 consume Redis channel `prices`',
    ]);
  });

  it('redis-py: a PubSub object from client.pubsub() subscribes by arguments, keywords, a ** dict and psubscribe patterns', async () => {
    const r = await reportOf({
      shop: {
        'shop/tasks.py': lines(
          'import json',
          'import redis',
          'def emit(event):',
          "    client = redis.StrictRedis(host='redis', port=6379)",
          "    client.publish('orders', json.dumps(event))",
          "    client.publish('stock.low', json.dumps(event))",
          "    client.publish('refunds', json.dumps(event))",
          "    client.publish('nobody', json.dumps(event))",
        ),
      },
      notify: {
        'notify/consumer.py': lines(
          'import redis',
          'def on_refund(message):',
          '    pass',
          'def run():',
          "    r = redis.Redis(host='redis')",
          '    pubsub = r.pubsub()',
          "    pubsub.subscribe('orders', 'payments')",
          "    pubsub.psubscribe('stock.*')",
          "    pubsub.subscribe(**{'refunds': on_refund})",
          '    for message in pubsub.listen():',
          '        print(message)',
        ),
        'notify/other.py': lines(
          'import redis',
          'class Listener:',
          '    def __init__(self):',
          '        self.ps = redis.Redis().pubsub(ignore_subscribe_messages=True)',
          '        self.ps.subscribe(payments=self.handle)',
          '    def handle(self, message):',
          '        pass',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'shop shop/tasks.py:5 | publish Redis / `orders` | notify notify/consumer.py:7 consume Redis channel `orders`',
      'shop shop/tasks.py:6 | publish Redis / `stock.low` | notify notify/consumer.py:8 consume Redis channel `stock.*`',
      'shop shop/tasks.py:7 | publish Redis / `refunds` | notify notify/consumer.py:9 consume Redis channel `refunds`',
    ]);
    expect(gaps(r)).toEqual([
      'consumer notify notify/consumer.py:7 no producer for Redis channel `payments`',
      'consumer notify notify/other.py:5 no producer for Redis channel `payments`',
      'publisher shop shop/tasks.py:8 no consumer of Redis channel `nobody`',
    ]);
  });
});
