import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

/** A shared node-nats-streaming Publisher/Listener package (base classes and a subjects enum). */
const common = {
  'package.json': JSON.stringify({ name: '@shop/common', main: 'build/index.js' }),
  'src/index.ts': lines(
    "export * from './base-publisher';",
    "export * from './base-listener';",
    "export * from './subjects';",
  ),
  'src/subjects.ts': lines(
    'export enum Subjects {',
    "  ItemCreated = 'item:created',",
    "  ItemReserved = 'item:reserved',",
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
    "import { Stan, Message } from 'node-nats-streaming';",
    'export abstract class Listener<T> {',
    "  abstract subject: T['subject'];",
    '  abstract queueGroupName: string;',
    '  constructor(protected client: Stan) {}',
    '  abstract onMessage(data: unknown, msg: Message): void;',
    '  listen() {',
    '    const sub = this.client.subscribe(this.subject, this.queueGroupName, {});',
    "    sub.on('message', (m: Message) => this.onMessage(JSON.parse(m.getData() as string), m));",
    '  }',
    '}',
  ),
};

describe('JavaScript/TypeScript: project wrappers in files that import the raw library (issue 20)', () => {
  it('a publish through a project Publisher class in a file importing node-nats-streaming (a type only) is found', async () => {
    const r = await reportOf({
      common,
      stock: {
        'src/events/item-reserved-publisher.ts': lines(
          "import { Publisher, Subjects } from '@shop/common';",
          'export class ItemReservedPublisher extends Publisher<ItemReservedEvent> {',
          '  readonly subject = Subjects.ItemReserved;',
          '}',
        ),
        'src/events/item-created-listener.ts': lines(
          "import { Listener, Subjects } from '@shop/common';",
          "import { Message } from 'node-nats-streaming';",
          "import { ItemReservedPublisher } from './item-reserved-publisher';",
          "import { bus } from '../bus';",
          'export class ItemCreatedListener extends Listener<ItemCreatedEvent> {',
          '  subject: Subjects.ItemCreated = Subjects.ItemCreated;',
          "  queueGroupName = 'stock-service';",
          '  async onMessage(data: { id: string }, msg: Message) {',
          '    await new ItemReservedPublisher(this.client).publish({ id: data.id });',
          '    msg.ack();',
          '  }',
          '}',
          'export function reserveLater(id: string) {',
          '  return new ItemReservedPublisher(bus.client).publish({ id });',
          '}',
        ),
        'src/index.ts': lines(
          "import { ItemCreatedListener } from './events/item-created-listener';",
          'new ItemCreatedListener(stan).listen();',
        ),
      },
      orders: {
        'src/events/item-reserved-listener.ts': lines(
          "import { Listener, Subjects } from '@shop/common';",
          'export class ItemReservedListener extends Listener<ItemReservedEvent> {',
          '  subject: Subjects.ItemReserved = Subjects.ItemReserved;',
          "  queueGroupName = 'orders-service';",
          '  onMessage() {}',
          '}',
        ),
        'src/index.ts': lines(
          "import { ItemReservedListener } from './events/item-reserved-listener';",
          'new ItemReservedListener(stan).listen();',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'stock src/events/item-created-listener.ts:9 | publish NATS / `item:reserved` | orders src/index.ts:2 consume NATS subject `item:reserved` (queue group `orders-service`)',
      'stock src/events/item-created-listener.ts:14 | publish NATS / `item:reserved` | orders src/index.ts:2 consume NATS subject `item:reserved` (queue group `orders-service`)',
    ]);
    expect(gaps(r).filter((g) => g.startsWith('publish'))).toEqual([]);
  });

  it('an HTTP hook taking one object (`useRequest({ url, method, body })`) over `axios[method](url, …)` in a callback: each call reported at the caller with its method', async () => {
    const r = await reportOf({
      web: {
        'package.json': JSON.stringify({ name: 'web', dependencies: { axios: '1', react: '18', next: '14' } }),
        'hooks/use-request.js': lines(
          "import axios from 'axios';",
          "import { useState } from 'react';",
          'export default ({ url, method, body, onSuccess }) => {',
          '  const [errors, setErrors] = useState(null);',
          '  const doRequest = async (props = {}) => {',
          '    const response = await axios[method](url, { ...body, ...props });',
          '    if (onSuccess) onSuccess(response.data);',
          '    return response.data;',
          '  };',
          '  return { doRequest, errors };',
          '};',
        ),
        'pages/cart.js': lines(
          "import useRequest from '../hooks/use-request';",
          'export default () => {',
          '  const { doRequest } = useRequest({',
          "    url: 'http://orders:3000/api/orders',",
          "    method: 'post',",
          '    body: { sku: 1 },',
          '    onSuccess: () => {},',
          '  });',
          "  const list = useRequest({ url: 'http://orders:3000/api/orders/mine', method: 'get' });",
          '  return null;',
          '};',
        ),
      },
      orders: {
        'package.json': JSON.stringify({ name: 'orders', dependencies: { express: '4' } }),
        'src/app.js': lines(
          "const express = require('express');",
          'const app = express();',
          "app.post('/api/orders', (req, res) => res.send());",
          "app.get('/api/orders/mine', (req, res) => res.send());",
          'app.listen(3000);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web pages/cart.js:3 | POST orders/api/orders | orders src/app.js:3 POST /api/orders (express)',
      'web pages/cart.js:9 | GET orders/api/orders/mine | orders src/app.js:4 GET /api/orders/mine (express)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('default exports called by the importer’s own name: `module.exports = …` (required), `export default function (…)`', async () => {
    const r = await reportOf({
      web: {
        'package.json': JSON.stringify({ name: 'web', dependencies: { axios: '1' } }),
        'lib/poster.js': lines(
          "const axios = require('axios');",
          'module.exports = ({ target, payload }) => axios.post(target, payload);',
        ),
        'lib/getter/index.ts': lines(
          "import axios from 'axios';",
          'export default function (opts: { path: string }) {',
          '  return axios.get(opts.path);',
          '}',
        ),
        'src/ship.js': lines(
          "const postTo = require('../lib/poster');",
          "postTo({ target: 'http://orders:3000/api/orders/ship', payload: {} });",
        ),
        'src/list.ts': lines(
          "import readAll from '../lib/getter';",
          "export const list = () => readAll({ path: 'http://orders:3000/api/orders' });",
        ),
      },
      orders: {
        'package.json': JSON.stringify({ name: 'orders', dependencies: { express: '4' } }),
        'src/app.js': lines(
          "const express = require('express');",
          'const app = express();',
          "app.get('/api/orders', (req, res) => res.send());",
          "app.post('/api/orders/ship', (req, res) => res.send());",
          'app.listen(3000);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/list.ts:2 | GET orders/api/orders | orders src/app.js:3 GET /api/orders (express)',
      'web src/ship.js:2 | POST orders/api/orders/ship | orders src/app.js:4 POST /api/orders/ship (express)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('`(opts) => axios.post(opts.url)`, a literal computed method, and a computed method of another library', async () => {
    const r = await reportOf({
      web: {
        'package.json': JSON.stringify({ name: 'web', dependencies: { axios: '1' } }),
        'src/api.ts': lines(
          "import axios from 'axios';",
          'export const submit = (opts: { url: string; body?: unknown }) => axios.post(opts.url, opts.body);',
          "const verb = 'put';",
          'export function rename(id: string) {',
          '  return axios[verb](`http://orders:3000/api/orders/${id}/name`);',
          '}',
          'export function run(client, { url, action }) {',
          '  return client[action](url);',
          '}',
        ),
        'src/cancel.ts': lines(
          "import { submit, run } from './api';",
          'export async function cancel(id: string) {',
          "  await submit({ url: 'http://orders:3000/api/orders/cancel', body: { id } });",
          "  await run(redis, { url: 'http://orders:3000/api/orders/cancel', action: 'subscribe' });",
          '}',
        ),
      },
      orders: {
        'package.json': JSON.stringify({ name: 'orders', dependencies: { express: '4' } }),
        'src/app.js': lines(
          "const express = require('express');",
          'const app = express();',
          "app.post('/api/orders/cancel', (req, res) => res.send());",
          "app.put('/api/orders/:id/name', (req, res) => res.send());",
          'app.listen(3000);',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'web src/api.ts:5 | PUT orders/api/orders/{}/name | orders src/app.js:4 PUT /api/orders/:id/name (express)',
      'web src/cancel.ts:3 | POST orders/api/orders/cancel | orders src/app.js:3 POST /api/orders/cancel (express)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });

  it('a Bull queue created in one module and filled by others through an import (named, namespace, re-exported, another source): the producer is each `add`', async () => {
    const r = await reportOf({
      jobs: {
        'package.json': JSON.stringify({ name: '@shop/jobs', main: 'src/index.ts' }),
        'src/index.ts': lines("export * from './queues';"),
        'src/queues.ts': lines(
          "import Queue from 'bull';",
          "const expiryQueue = new Queue<{ id: string }>('cart:expiry', { redis: { host: 'redis' } });",
          'expiryQueue.process(async (job) => job.data);',
          "export const mails = new Queue('mails');",
          'export { expiryQueue };',
        ),
        'src/listeners/cart.ts': lines(
          "import { Message } from 'node-nats-streaming';",
          "import { expiryQueue } from '../queues';",
          'export async function onCart(id: string, msg: Message) {',
          '  await expiryQueue.add({ id }, { delay: 1000 });',
          '}',
        ),
        'src/mail-worker.ts': lines(
          "import Queue from 'bull';",
          "const mailQueue = new Queue('mails');",
          'mailQueue.process(async (job) => job.data);',
        ),
      },
      api: {
        'src/routes/cart.ts': lines(
          "import * as jobs from '@shop/jobs';",
          "import { mails } from '@shop/jobs';",
          'export async function checkout(id: string) {',
          '  await jobs.expiryQueue.add({ id });',
          "  await mails.add({ to: 'a@b.c' });",
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'api src/routes/cart.ts:4 | publish to queue `cart:expiry` (Bull) | jobs src/queues.ts:3 consume queue `cart:expiry` (Bull)',
      'api src/routes/cart.ts:5 | publish to queue `mails` (Bull) | jobs src/mail-worker.ts:3 consume queue `mails` (Bull)',
    ]);
    // The listener's `add` in the queue's own source is its producer there too: no gap.
    expect(gaps(r)).toEqual([]);
  });

  it("a computed method on a receiver only named like a client takes a caller's literal HTTP verb, never an unknown one", async () => {
    const r = await reportOf({
      web: {
        'package.json': JSON.stringify({ name: 'web', dependencies: { axios: '1' } }),
        'src/api.ts': lines('export function run(client, { url, action }) {', '  return client[action](url);', '}'),
        'src/use.ts': lines(
          "import { run } from './api';",
          'export async function go(cache, action: string) {',
          "  await run(cache, { url: 'http://orders:3000/api/orders/cancel', action });",
          "  await run(http, { url: 'http://orders:3000/api/orders/cancel', action: 'post' });",
          '}',
        ),
      },
      orders: {
        'package.json': JSON.stringify({ name: 'orders', dependencies: { express: '4' } }),
        'src/app.js': lines(
          "const express = require('express');",
          'const app = express();',
          "app.post('/api/orders/cancel', (req, res) => res.send());",
          'app.listen(3000);',
        ),
      },
    });
    // `client` might be any object: with no verb named, `run(cache, …)` is no HTTP call.
    expect(rows(r)).toEqual([
      'web src/use.ts:4 | POST orders/api/orders/cancel | orders src/app.js:3 POST /api/orders/cancel (express)',
    ]);
    expect(unresolved(r)).toEqual([]);
  });
});
