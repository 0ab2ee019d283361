import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => l.join('\n') + '\n';

/** A consumer that binds its queue to the `SHOP` direct exchange with key `billing.key`. */
const billing = {
  'src/consumer.ts': lines(
    "import amqplib from 'amqplib';",
    'export const listen = async () => {',
    "  const channel = await (await amqplib.connect('amqp://rabbit')).createChannel();",
    "  await channel.assertExchange('SHOP', 'direct');",
    "  const q = await channel.assertQueue('BILLING');",
    "  channel.bindQueue(q.queue, 'SHOP', 'billing.key');",
    '  channel.consume(q.queue, (m) => m && channel.ack(m));',
    '};',
  ),
};
const ROW = (at: string): string =>
  `orders ${at} | publish \`SHOP\` / \`billing.key\` | billing src/consumer.ts:7 consume queue \`BILLING\``;

describe('JS/TS: publish wrappers taking the routing key as a parameter', () => {
  it('an exported arrow function imported by name: one flow per calling site, the wrapper line dropped', async () => {
    const r = await reportOf({
      orders: {
        'src/broker.ts': lines(
          "const EXCHANGE = 'SHOP';",
          'export const sendEvent = async (channel: any, routingKey: string, msg: string) => {',
          '  channel.publish(EXCHANGE, routingKey, Buffer.from(msg));',
          '};',
        ),
        'src/api.ts': lines(
          "import { sendEvent } from './broker';",
          'export function paid(ch: any, o: string) {',
          "  sendEvent(ch, 'billing.key', o);",
          '}',
          'export function refunded(ch: any, o: string) {',
          "  sendEvent(ch, 'billing.key', JSON.stringify({ o }));",
          '}',
        ),
      },
      billing,
    });
    expect(rows(r)).toEqual([ROW('src/api.ts:3'), ROW('src/api.ts:6')]);
    expect(gaps(r)).toEqual([]);
  });

  it('a function declaration exported with module.exports and called through a namespace', async () => {
    const r = await reportOf({
      orders: {
        'src/broker.js': lines(
          "const EXCHANGE = 'SHOP';",
          'function publishTo(channel, key, msg) {',
          '  channel.publish(EXCHANGE, key, Buffer.from(msg));',
          '}',
          'module.exports = { publishTo };',
        ),
        'src/api.js': lines(
          "const broker = require('./broker');",
          'async function paid(ch, o) {',
          "  broker.publishTo(ch, 'billing.key', o);",
          '}',
          'module.exports = { paid };',
        ),
      },
      billing,
    });
    expect(rows(r)).toEqual([ROW('src/api.js:3')]);
    expect(gaps(r)).toEqual([]);
  });

  it('a class method wrapped by another function passing its parameter on (wrappers over wrappers)', async () => {
    const r = await reportOf({
      orders: {
        'src/bus.ts': lines(
          'export class Bus {',
          '  constructor(private channel: any) {}',
          '  emitEvent(key: string, body: object) {',
          "    this.channel.publish('SHOP', key, Buffer.from(JSON.stringify(body)));",
          '  }',
          '}',
        ),
        'src/events.ts': lines(
          "import { Bus } from './bus';",
          'export const notify = (bus: Bus, target: string, body: object) => bus.emitEvent(target, body);',
        ),
        'src/api.ts': lines(
          "import { notify } from './events';",
          'export function paid(bus: any, o: object) {',
          "  notify(bus, 'billing.key', o);",
          '}',
        ),
      },
      billing,
    });
    expect(rows(r)).toEqual([ROW('src/api.ts:3')]);
    expect(gaps(r)).toEqual([]);
  });
});
