import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** A shared NATS library (its own folder), subjects in a shared package, event definitions in another. */
const natsLib = {
  'package.json': JSON.stringify({ name: '@acme/bus', main: './dist/index.js' }),
  'src/index.ts': lines(
    "export * from './subjects';",
    "export * from './publish';",
    "export * from './consume';",
    "export * from './define';",
  ),
  'src/subjects/billing.ts': lines(
    "export const BillingSubjects = { InvoiceIssued: 'billing.invoice.issued' } as const;",
  ),
  'src/subjects/shipping.ts': lines('export enum ShippingSubjects {', "  Shipped = 'shipping.parcel.shipped',", '}'),
  'src/subjects/index.ts': lines(
    "import { BillingSubjects } from './billing';",
    "import { ShippingSubjects } from './shipping';",
    'export const Topics = { ...BillingSubjects, ...ShippingSubjects } as const;',
  ),
  'src/define.ts': lines('export function defineMessage<T>(def: T) {', '  return def;', '}'),
  'src/publish.ts': lines(
    "import { connect } from 'nats';",
    'export async function send(def: { subject: string }, data: unknown) {',
    '  const js = (await connect()).jetstream();',
    '  await js.publish(def.subject, JSON.stringify(data));',
    '}',
  ),
  'src/consume.ts': lines(
    "import type { Consumer } from 'nats';",
    'export async function worker(opts: { stream: string; durable_name: string; def?: { subject: string }; filter_subjects?: string[] }) {',
    '  const filters = opts.def?.subject ? [opts.def.subject] : (opts.filter_subjects ?? []);',
    '  await jsm.consumers.add(opts.stream, { durable_name: opts.durable_name, filter_subjects: filters });',
    '  const c: Consumer = await js.consumers.get(opts.stream, opts.durable_name);',
    '  for await (const m of await c.consume()) m.ack();',
    '}',
  ),
};

describe('NATS through shared libraries (issue 20)', () => {
  it('a publish wrapper and a JetStream worker of a shared package, subjects from enums and spread objects of another: flows at the services call sites', async () => {
    const r = await reportOf({
      bus: natsLib,
      contracts: {
        'package.json': JSON.stringify({
          name: '@acme/contracts',
          exports: { '.': { source: './src/index.ts', default: './dist/index.js' } },
        }),
        'src/index.ts': lines(
          "export * from './billing/invoice-issued';",
          "export { ParcelShippedMsg as Shipped } from './shipping';",
        ),
        'src/billing/invoice-issued.ts': lines(
          "import { defineMessage, Topics } from '@acme/bus';",
          'export const InvoiceIssued = defineMessage({ subject: Topics.InvoiceIssued, version: 1 });',
        ),
        'src/shipping.ts': lines(
          "import * as bus from '@acme/bus';",
          'export const ParcelShippedMsg = bus.defineMessage({ subject: bus.Topics.Shipped });',
        ),
      },
      billing: {
        'src/routes/issue.ts': lines(
          "import { send } from '@acme/bus';",
          "import { InvoiceIssued } from '@acme/contracts';",
          'export async function issue(req, res) {',
          '  await send(InvoiceIssued, { id: 1 });',
          '  res.sendStatus(201);',
          '}',
        ),
      },
      shipping: {
        'src/listeners/invoice.ts': lines(
          "import { worker } from '@acme/bus';",
          "import { InvoiceIssued, Shipped } from '@acme/contracts';",
          "const DURABLE = 'shipping-invoice-issued';",
          'export function start() {',
          '  return worker({',
          "    stream: 'BILLING',",
          '    durable_name: DURABLE,',
          '    def: InvoiceIssued,',
          '  });',
          '}',
          'export async function shipped() {',
          '  await send2(Shipped);',
          '}',
          "import { send as send2 } from '@acme/bus';",
        ),
      },
      audit: {
        'src/audit.ts': lines(
          "import { worker } from '@acme/bus';",
          "worker({ stream: 'SHIPPING', durable_name: 'audit-all', filter_subjects: ['shipping.>'] });",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'billing src/routes/issue.ts:4 | publish `BILLING` / `billing.invoice.issued` | shipping src/listeners/invoice.ts:5 consume NATS subject `billing.invoice.issued` (JetStream stream `BILLING`, durable `shipping-invoice-issued`)',
      'shipping src/listeners/invoice.ts:12 | publish `SHIPPING` / `shipping.parcel.shipped` | audit src/audit.ts:2 consume NATS subject `shipping.>` (JetStream stream `SHIPPING`, durable `audit-all`)',
    ]);
    // The library reports nothing of its own: its operations take their subjects from their callers.
    expect(gaps(r)).toEqual([]);
  });

  it('abstract Publisher/Listener base classes (node-nats-streaming style): each subclass sets `subject`, instantiated where it is created', async () => {
    const r = await reportOf({
      common: {
        'package.json': JSON.stringify({ name: '@shop/common', main: 'build/index.js' }),
        'src/index.ts': lines(
          "export * from './base-publisher';",
          "export * from './base-listener';",
          "export * from './subjects';",
        ),
        'src/subjects.ts': lines(
          'export enum Subjects {',
          "  ItemCreated = 'item:created',",
          "  ItemSold = 'item:sold',",
          '}',
        ),
        'src/base-publisher.ts': lines(
          "import { Stan } from 'node-nats-streaming';",
          'export abstract class Publisher<T> {',
          "  abstract subject: T['subject'];",
          '  constructor(protected client: Stan) {}',
          '  publish(data: unknown) {',
          '    this.client.publish(this.subject, JSON.stringify(data));',
          '  }',
          '}',
        ),
        'src/base-listener.ts': lines(
          "import { Stan } from 'node-nats-streaming';",
          'export abstract class Listener<T> {',
          "  abstract subject: T['subject'];",
          '  abstract queueGroupName: string;',
          '  constructor(private client: Stan) {}',
          '  listen() {',
          '    const sub = this.client.subscribe(this.subject, this.queueGroupName, {});',
          "    sub.on('message', () => {});",
          '  }',
          '}',
        ),
      },
      catalog: {
        'src/events/item-created-publisher.ts': lines(
          "import { Publisher, Subjects } from '@shop/common';",
          'export class ItemCreatedPublisher extends Publisher<ItemCreatedEvent> {',
          '  readonly subject = Subjects.ItemCreated;',
          '}',
        ),
        'src/routes/new.ts': lines(
          "import { ItemCreatedPublisher } from '../events/item-created-publisher';",
          'export async function create(client) {',
          '  const publisher = new ItemCreatedPublisher(client);',
          '  await publisher.publish({ id: 1 });',
          '}',
        ),
      },
      search: {
        'src/listeners/item-created.ts': lines(
          "import { Listener, Subjects } from '@shop/common';",
          'export class ItemCreatedListener extends Listener<ItemCreatedEvent> {',
          '  subject: Subjects.ItemCreated = Subjects.ItemCreated;',
          "  queueGroupName = 'search-service';",
          '}',
        ),
        'src/index.ts': lines(
          "import { ItemCreatedListener } from './listeners/item-created';",
          'new ItemCreatedListener(stan).listen();',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'catalog src/routes/new.ts:4 | publish NATS / `item:created` | search src/index.ts:2 consume NATS subject `item:created` (queue group `search-service`)',
    ]);
  });

  it('JetStream: a consumer declared by a topology job is no consumer; the service reading it by stream and durable name is', async () => {
    const r = await reportOf({
      orders: {
        'src/pub.js': lines(
          "const { connect } = require('nats');",
          "const SUBJECT = process.env.ORDER_SUBJECT ?? 'orders.created';",
          'async function placed(js, order) {',
          '  await js.publish(SUBJECT, JSON.stringify(order));',
          '}',
        ),
      },
      setup: {
        'src/topology.ts': lines(
          "import { connect } from 'nats';",
          'export async function setup(jsm) {',
          "  await jsm.streams.add({ name: 'ORDERS', subjects: ['orders.*'] });",
          "  await jsm.consumers.add('ORDERS', { durable_name: 'mailer', filter_subject: 'orders.created' });",
          '}',
        ),
      },
      mailer: {
        'src/main.ts': lines(
          "import { connect } from 'nats';",
          'export async function run(js) {',
          "  const c = await js.consumers.get('ORDERS', 'mailer');",
          '  for await (const m of await c.consume()) m.ack();',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/pub.js:4 | publish `ORDERS` / `orders.created` | mailer src/main.ts:3 consume NATS subject `orders.created` (JetStream stream `ORDERS`, durable `mailer`)',
    ]);
  });
});

describe('JavaScript HTTP wrappers to any depth (issue 20)', () => {
  it('a service function → a safe wrapper → a dispatcher → server and browser fetches: one call at the service function, method from the options spread, a query-string builder after the path dropped', async () => {
    const r = await reportOf({
      web: {
        'package.json': JSON.stringify({ name: 'web', dependencies: { react: '18' } }),
        'src/http/index.ts': lines("export * from './safe';"),
        'src/http/safe.ts': lines(
          "import { request } from './request';",
          'export async function safeRequest(url: string, options?: { method?: string }) {',
          '  try { return await request(url, options); } catch { return null; }',
          '}',
        ),
        'src/http/request.ts': lines(
          "import { onServer } from './server';",
          "import { inBrowser } from './browser';",
          'export function request(url: string, options = {}) {',
          "  return typeof window === 'undefined' ? onServer(url, options) : inBrowser(url, options);",
          '}',
        ),
        'src/http/server.ts': lines(
          'const API = process.env.API_BASE_URL;',
          'export async function onServer(path: string, options) {',
          '  return fetch(`${API}${path}`, { ...options, cache: "no-store" });',
          '}',
        ),
        'src/http/browser.ts': lines(
          'function init(options) {',
          "  return { ...options, credentials: 'include' };",
          '}',
          'export async function inBrowser(url: string, options) {',
          '  return fetch(url, init(options));',
          '}',
        ),
        'src/services/orders.ts': lines(
          "import { safeRequest } from '@/http';",
          "import { qs } from '@/utils';",
          "export const placeOrder = () => safeRequest('/api/orders', { method: 'POST' });",
          'export const listOrders = (p) => safeRequest(`/api/orders${qs(p)}`);',
        ),
        '.env': 'API_BASE_URL=http://orders:3000\n',
      },
      orders: {
        'src/app.ts': lines(
          "import express from 'express';",
          'const app = express();',
          "app.post('/api/orders', (q, s) => s.send({}));",
          "app.get('/api/orders', (q, s) => s.send([]));",
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/services/orders.ts:3 | POST orders/api/orders | orders src/app.ts:3 POST /api/orders (express)',
      'web src/services/orders.ts:4 | GET orders/api/orders | orders src/app.ts:4 GET /api/orders (express)',
    ]);
  });
});

describe('NATS in Go and Python by value flow (issue 20)', () => {
  it('nats.go, jetstream and nats-py: subjects from constants of another package, module or source, settings, formatting and a wrapper parameter', async () => {
    const r = await reportOf({
      // A Go module of its own folder holding the subjects other services import.
      contracts: { 'events/subjects.go': lines('package events', 'const PaymentDone = "payments.done"') },
      orders: {
        'internal/events/subjects.go': lines(
          'package events',
          'const (',
          '\tOrderCreated = "orders.created"',
          ')',
          'const PriceQuote string = "pricing.quote"',
        ),
        'internal/app/pub.go': lines(
          'package app',
          'import (',
          '\t"github.com/nats-io/nats.go"',
          '\t"github.com/acme/orders/internal/events"',
          '\tshared "github.com/acme/contracts/events"',
          ')',
          'type Pub struct { nc *nats.Conn; js nats.JetStreamContext }',
          'func (p *Pub) Run(ctx context.Context) {',
          '\tp.nc.Publish(events.OrderCreated, data)',
          '\tp.js.Publish(events.OrderCreated+".v2", data)',
          '\tmsg, _ := p.nc.Request(events.PriceQuote, req, time.Second)',
          '\tp.nc.Publish(events.PaymentDone, data)',
          '}',
        ),
      },
      shipping: {
        'main.go': lines(
          'package main',
          'import "github.com/nats-io/nats.go"',
          'const subj = "orders.*"',
          'func main() {',
          '\tnc, _ := nats.Connect(nats.DefaultURL)',
          '\tnc.QueueSubscribe(subj, "shippers", func(m *nats.Msg) {})',
          '\tjs, _ := nc.JetStream()',
          '\tjs.PullSubscribe(fmt.Sprintf("%s.v2", "orders.created"), "ship-pull", nats.BindStream("ORDERS"))',
          '}',
        ),
        'consumer.go': lines(
          'package main',
          'import "github.com/nats-io/nats.go/jetstream"',
          'func consume(ctx context.Context, js jetstream.JetStream) {',
          '\tjs.CreateOrUpdateConsumer(ctx, "PAY", jetstream.ConsumerConfig{Durable: "ship", FilterSubjects: []string{"payments.>"}})',
          '}',
        ),
      },
      pricing: {
        'app/settings.py': lines('import os', 'QUOTE_SUBJECT = os.getenv("QUOTE_SUBJECT", "pricing.quote")'),
        'app/svc.py': lines(
          'import nats',
          'from app import settings',
          'class Bus:',
          '    async def emit(self, subject, data):',
          '        await self.nc.publish(subject, data)',
          'async def main(bus):',
          '    nc = await nats.connect("nats://nats:4222")',
          '    await nc.subscribe(settings.QUOTE_SUBJECT, queue="pricers", cb=handler)',
          '    await bus.emit("payments.refund", b"")',
          '    js = nc.jetstream()',
          '    await js.subscribe(subject="orders.created", durable="pricing", stream="ORDERS")',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders internal/app/pub.go:9 | publish `ORDERS` / `orders.created` | pricing app/svc.py:11 consume NATS subject `orders.created` (JetStream stream `ORDERS`, durable `pricing`)',
      'orders internal/app/pub.go:9 | publish NATS / `orders.created` | shipping main.go:6 consume NATS subject `orders.*` (queue group `shippers`)',
      'orders internal/app/pub.go:10 | publish `ORDERS` / `orders.created.v2` | shipping main.go:8 consume NATS subject `orders.created.v2` (JetStream stream `ORDERS`, durable `ship-pull`)',
      'orders internal/app/pub.go:11 | publish NATS / `pricing.quote` | pricing app/svc.py:8 consume NATS subject `pricing.quote` (queue group `pricers`)',
      'orders internal/app/pub.go:12 | publish `PAY` / `payments.done` | shipping consumer.go:4 consume NATS subject `payments.>` (JetStream stream `PAY`, durable `ship`)',
      'pricing app/svc.py:9 | publish `PAY` / `payments.refund` | shipping consumer.go:4 consume NATS subject `payments.>` (JetStream stream `PAY`, durable `ship`)',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
