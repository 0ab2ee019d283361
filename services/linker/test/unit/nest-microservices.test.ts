import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** A Nest gateway with one client per transport, and one Nest service per transport answering it. */
const gateway = {
  'package.json': JSON.stringify({ name: 'gateway', dependencies: { '@nestjs/microservices': '^10' } }),
  'src/clients.module.ts': lines(
    "import { Module } from '@nestjs/common';",
    "import { ClientsModule, ClientProxyFactory, Transport } from '@nestjs/microservices';",
    "const ORDERS_QUEUE = 'orders_q';",
    '@Module({',
    '  imports: [',
    '    ClientsModule.register([',
    "      { name: 'ORDERS', transport: Transport.RMQ, options: { urls: ['amqp://mq:5672'], queue: ORDERS_QUEUE } },",
    "      { name: 'STOCK', transport: Transport.NATS, options: { servers: ['nats://nats:4222'] } },",
    '    ]),',
    '  ],',
    '  providers: [',
    '    {',
    "      provide: 'AUDIT',",
    "      useFactory: () => ClientProxyFactory.create({ transport: Transport.KAFKA, options: { client: { brokers: ['kafka:9092'] } } }),",
    '    },',
    '  ],',
    '})',
    'export class ClientsConfig {}',
  ),
  'src/shop.service.ts': lines(
    "import { Inject, Injectable } from '@nestjs/common';",
    "import { ClientProxy } from '@nestjs/microservices';",
    '@Injectable()',
    'export class ShopService {',
    '  constructor(',
    "    @Inject('ORDERS') private readonly orders: ClientProxy,",
    "    @Inject('STOCK') private stock: ClientProxy,",
    "    @Inject('AUDIT') private readonly audit: ClientProxy,",
    '  ) {}',
    '  place(o: unknown) {',
    "    this.orders.emit('order.placed', o);",
    "    return this.orders.send({ cmd: 'list' }, {});",
    '  }',
    '  reserve(o: unknown) {',
    "    return this.stock.send<number>('stock.reserve', o);",
    '  }',
    '  log(o: unknown) {',
    "    this.audit.emit('audit-log', o);",
    '  }',
    '}',
  ),
};

const service = (transport: string, options: string, controller: string[]) => ({
  'src/main.ts': lines(
    "import { NestFactory } from '@nestjs/core';",
    "import { Transport } from '@nestjs/microservices';",
    'async function bootstrap() {',
    `  const app = await NestFactory.createMicroservice(AppModule, { transport: Transport.${transport}, options: ${options} });`,
    '  await app.listen();',
    '}',
  ),
  'src/app.controller.ts': lines(
    "import { Controller } from '@nestjs/common';",
    "import { EventPattern, MessagePattern } from '@nestjs/microservices';",
    '@Controller()',
    'export class AppController {',
    ...controller,
    '}',
  ),
});

describe('NestJS microservices (issue 20)', () => {
  it('send/emit through an injected client reach the @MessagePattern/@EventPattern of the service on the same transport, as the broker sees it', async () => {
    const r = await reportOf({
      gateway,
      orders: service('RMQ', "{ urls: ['amqp://mq:5672'], queue: 'orders_q' }", [
        "  @MessagePattern({ cmd: 'list' })",
        '  list() { return []; }',
        "  @EventPattern('order.placed')",
        '  placed() {}',
      ]),
      stock: service('NATS', "{ servers: ['nats://nats:4222'] }", [
        "  @MessagePattern('stock.reserve')",
        '  reserve() { return 1; }',
      ]),
      audit: service('KAFKA', "{ client: { brokers: ['kafka:9092'] } }", [
        "  @EventPattern('audit-log')",
        '  log() {}',
      ]),
    });
    expect(rows(r)).toEqual([
      'gateway src/shop.service.ts:11 | publish to queue `orders_q` (default exchange) | orders src/app.controller.ts:7 consume queue `orders_q`',
      'gateway src/shop.service.ts:12 | publish to queue `orders_q` (default exchange) | orders src/app.controller.ts:5 consume queue `orders_q`',
      'gateway src/shop.service.ts:15 | publish NATS / `stock.reserve` | stock src/app.controller.ts:5 consume NATS subject `stock.reserve`',
      'gateway src/shop.service.ts:18 | produce Kafka topic `audit-log` | audit src/app.controller.ts:5 consume Kafka topic `audit-log`',
    ]);
    expect(gaps(r)).toEqual([]);
  });

  it('ClientGrpc.getService methods reach the ts-proto @XControllerMethods() class, named as the proto declares them', async () => {
    const proto = lines(
      'syntax = "proto3";',
      'package billing;',
      'service InvoiceService {',
      '  rpc Issue (IssueRequest) returns (Invoice);',
      '  rpc ListInvoices (Empty) returns (Invoices);',
      '}',
    );
    const r = await reportOf({
      web: {
        'src/proto/billing.proto': proto,
        'src/invoices.service.ts': lines(
          "import { Inject, OnModuleInit } from '@nestjs/common';",
          "import { ClientGrpc } from '@nestjs/microservices';",
          "import { INVOICE_SERVICE_NAME, InvoiceServiceClient } from './proto/billing';",
          'export class InvoicesService implements OnModuleInit {',
          '  private svc: InvoiceServiceClient;',
          "  constructor(@Inject('BILLING') private readonly client: ClientGrpc) {}",
          '  onModuleInit() {',
          '    this.svc = this.client.getService<InvoiceServiceClient>(INVOICE_SERVICE_NAME);',
          '  }',
          '  issue(r: unknown) {',
          '    return this.svc.issue(r);',
          '  }',
          '  all() {',
          '    return this.svc.listInvoices({});',
          '  }',
          '}',
        ),
      },
      billing: {
        'src/proto/billing.proto': proto,
        'src/invoice.controller.ts': lines(
          "import { Controller } from '@nestjs/common';",
          "import { InvoiceServiceControllerMethods } from './proto/billing';",
          '@Controller()',
          '@InvoiceServiceControllerMethods()',
          'export class InvoiceController {',
          '  constructor(private readonly repo: Repo) {}',
          '  async issue(r: unknown) {',
          '    return this.repo.save(r);',
          '  }',
          '  listInvoices() {',
          '    return [];',
          '  }',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/invoices.service.ts:11 | gRPC billing.InvoiceService/issue | billing src/invoice.controller.ts:7 gRPC billing.InvoiceService/Issue (grpc-nest)',
      'web src/invoices.service.ts:14 | gRPC billing.InvoiceService/listInvoices | billing src/invoice.controller.ts:10 gRPC billing.InvoiceService/ListInvoices (grpc-nest)',
    ]);
  });
  it('options built by a config factory method resolve at each call, and each send goes to the client of its own injection token', async () => {
    const config = lines(
      "import { Injectable } from '@nestjs/common';",
      "import { Transport, RmqOptions } from '@nestjs/microservices';",
      '@Injectable()',
      'export class BrokerConfig {',
      '  private url(): string {',
      '    return `amqp://${process.env.MQ_HOST}`;',
      '  }',
      '  public optionsFor(queue: Queues): RmqOptions {',
      '    return {',
      '      transport: Transport.RMQ,',
      '      options: { urls: [this.url()], queue, queueOptions: { durable: true } },',
      '    };',
      '  }',
      '}',
    );
    const queues = lines('export enum Queues {', "  BILLING = 'billing_q',", "  SHIPPING = 'shipping_q',", '}');
    const tokens = lines(
      'export enum Tokens {',
      "  BILLING = 'billing_client',",
      "  SHIPPING = 'shipping_client',",
      '}',
    );
    const server = (q: string, pattern: string) => ({
      'src/broker-config.ts': config,
      'src/queues.ts': queues,
      'src/main.ts': lines(
        "import { NestFactory } from '@nestjs/core';",
        "import { AsyncMicroserviceOptions } from '@nestjs/microservices';",
        "import { Queues } from './queues';",
        'async function bootstrap() {',
        '  const app = await NestFactory.createMicroservice<AsyncMicroserviceOptions>(AppModule, {',
        `    useFactory: (cfg: BrokerConfig) => cfg.optionsFor(Queues.${q}),`,
        '    inject: [BrokerConfig],',
        '  });',
        '  await app.listen();',
        '}',
      ),
      'src/app.controller.ts': lines(
        "import { Controller } from '@nestjs/common';",
        "import { MessagePattern } from '@nestjs/microservices';",
        '@Controller()',
        'export class AppController {',
        `  @MessagePattern('${pattern}')`,
        '  handle() {}',
        '}',
      ),
    });
    const r = await reportOf({
      shop: {
        'src/broker-config.ts': config,
        'src/queues.ts': queues,
        'src/tokens.ts': tokens,
        'src/clients.module.ts': lines(
          "import { Module } from '@nestjs/common';",
          "import { ClientProxy, ClientProxyFactory, ClientsModule } from '@nestjs/microservices';",
          "import { Queues } from './queues';",
          "import { Tokens } from './tokens';",
          '@Module({',
          '  imports: [',
          '    ClientsModule.registerAsync([',
          '      { name: Tokens.SHIPPING, useFactory: (cfg: BrokerConfig) => cfg.optionsFor(Queues.SHIPPING), inject: [BrokerConfig] },',
          '    ]),',
          '  ],',
          '  providers: [',
          '    {',
          '      provide: Tokens.BILLING,',
          '      useFactory: (cfg: BrokerConfig): ClientProxy =>',
          '        ClientProxyFactory.create(cfg.optionsFor(Queues.BILLING)),',
          '      inject: [BrokerConfig],',
          '    },',
          '  ],',
          '})',
          'export class ClientsConfig {}',
        ),
        'src/billing.service.ts': lines(
          "import { Inject, Injectable } from '@nestjs/common';",
          "import { ClientProxy } from '@nestjs/microservices';",
          "import { Tokens } from './tokens';",
          '@Injectable()',
          'export class BillingService {',
          '  constructor(@Inject(Tokens.BILLING) private readonly client: ClientProxy) {}',
          '  charge(o: unknown) {',
          "    return this.client.send('charge', o);",
          '  }',
          '}',
        ),
        'src/shipping.service.ts': lines(
          "import { Inject, Injectable } from '@nestjs/common';",
          "import { ClientProxy } from '@nestjs/microservices';",
          "import { Tokens } from './tokens';",
          '@Injectable()',
          'export class ShippingService {',
          '  constructor(@Inject(Tokens.SHIPPING) private readonly client: ClientProxy) {}',
          '  ship(o: unknown) {',
          "    this.client.emit('ship', o);",
          '  }',
          '}',
        ),
      },
      billing: server('BILLING', 'charge'),
      shipping: server('SHIPPING', 'ship'),
    });
    expect(rows(r)).toEqual([
      'shop src/billing.service.ts:8 | publish to queue `billing_q` (default exchange) | billing src/app.controller.ts:5 consume queue `billing_q`',
      'shop src/shipping.service.ts:8 | publish to queue `shipping_q` (default exchange) | shipping src/app.controller.ts:5 consume queue `shipping_q`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
  it("a config factory and queue enum of a shared library source name the queue of the other sources' clients and servers", async () => {
    const r = await reportOf({
      lib: {
        'src/mq/mq-options.ts': lines(
          "import { Transport } from '@nestjs/microservices';",
          'export class MqOptions {',
          '  build(name: string) {',
          "    return { transport: Transport.RMQ, options: { urls: ['amqp://mq'], queue: name } };",
          '  }',
          '}',
        ),
        'src/mq/queues.ts': lines('export enum MqQueues {', "  MAIL = 'mail_q',", '}'),
      },
      web: {
        'src/mail.module.ts': lines(
          "import { ClientsModule } from '@nestjs/microservices';",
          "import { MqQueues } from '../lib/mq/queues';",
          '@Module({',
          "  imports: [ClientsModule.registerAsync([{ name: 'MAIL', useFactory: (o: MqOptions) => o.build(MqQueues.MAIL) }])],",
          '})',
          'export class MailModule {}',
        ),
        'src/mail.service.ts': lines(
          "import { ClientProxy } from '@nestjs/microservices';",
          'export class MailService {',
          "  constructor(@Inject('MAIL') private readonly mail: ClientProxy) {}",
          "  send(m: unknown) { this.mail.emit('mail', m); }",
          '}',
        ),
      },
      mailer: {
        'src/main.ts': lines(
          "import { NestFactory } from '@nestjs/core';",
          "import { MqQueues } from '../lib/mq/queues';",
          'const app = await NestFactory.createMicroservice(AppModule, {',
          '  useFactory: (o: MqOptions) => o.build(MqQueues.MAIL),',
          '  inject: [MqOptions],',
          '});',
        ),
        'src/mail.controller.ts': lines(
          "import { EventPattern } from '@nestjs/microservices';",
          'export class MailController {',
          "  @EventPattern('mail')",
          '  on() {}',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/mail.service.ts:4 | publish to queue `mail_q` (default exchange) | mailer src/mail.controller.ts:3 consume queue `mail_q`',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
