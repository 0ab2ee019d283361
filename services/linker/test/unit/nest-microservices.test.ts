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
});
