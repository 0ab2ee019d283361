import type { ExchangeType, Part } from '../model';
import type { Node } from '../parsers';
import { type Sink, exchangeType, lineOf, nameOf } from './common';
import type { NodeRule } from './driver';
import { fileMentions, keyword, positional } from './nameko';

/**
 * kombu (the AMQP library under Celery and nameko) and nameko's plain-AMQP extensions, as the broker sees them:
 * `Exchange('orders', type='topic')` declares an exchange; `Queue('billing', exchange=ex, routing_key='order.*')`
 * declares a queue and its binding; `Consumer(ch, queues=[q])`, `conn.Consumer(q)`, nameko's `@consume(q)`
 * consume it; `producer.publish(body, exchange=ex, routing_key=k)`, a `Producer(ch, exchange=ex)` then
 * `.publish(body, routing_key=k)`, and nameko's `Publisher(exchange=ex)` called as `self.publish(body,
 * routing_key=k)` publish (`Publisher(queue=q)`: to the queue's exchange and key). Variables and attributes
 * are followed by their last name within the file.
 */

interface ExchangeVal {
  readonly name: string;
}
interface QueueVal {
  readonly name: string;
  readonly exchange?: string;
  readonly key: string;
}
interface ProducerVal {
  readonly exchange?: string;
  readonly key?: string;
}

const mentionsKombu = fileMentions(/\bkombu\b/);

const lastName = (n: Node | null | undefined): string | undefined =>
  n?.type === 'identifier' ? n.text : n?.type === 'attribute' ? n.childForFieldName('attribute')?.text : undefined;

export function kombuRules(file: string, sink: Sink, evaluate: (n: Node) => Part[]): NodeRule[] {
  const exchanges = new Map<string, ExchangeVal>();
  const queues = new Map<string, QueueVal>();
  const producers = new Map<string, ProducerVal>();
  /** A name's text; `''` is a name too (the default exchange). */
  const str = (n: Node | undefined): string | undefined => {
    const parts = n ? evaluate(n) : undefined;
    return parts ? (parts.length === 0 ? '' : (nameOf(parts) ?? '{}')) : undefined;
  };
  const loc = (n: Node): { file: string; line: number } => ({ file, line: lineOf(n) });
  const callee = (call: Node): string | undefined => lastName(call.childForFieldName('function'));

  /** An exchange argument: an `Exchange(…)` (inline or by name) or a name string. */
  function exchangeOf(n: Node | undefined): string | undefined {
    if (!n) return undefined;
    if (n.type === 'call' && callee(n) === 'Exchange') return declareExchange(n)?.name;
    const held = exchanges.get(lastName(n) ?? '');
    return held ? held.name : n.type === 'string' || n.type === 'call' ? str(n) : undefined;
  }
  function queueOf(n: Node): QueueVal | undefined {
    if (n.type === 'call' && callee(n) === 'Queue') return declareQueue(n);
    return queues.get(lastName(n) ?? '');
  }
  function declareExchange(call: Node): ExchangeVal | undefined {
    const name = str(positional(call)[0] ?? keyword(call, 'name'));
    if (name === undefined) return undefined;
    const typeNode = positional(call)[1] ?? keyword(call, 'type');
    const type: ExchangeType = exchangeType(typeNode ? (nameOf(evaluate(typeNode)) ?? '') : 'direct') ?? 'direct';
    // kombu's nameless Exchange('') is the default exchange: nothing to declare.
    if (name) sink.exchange(name, type, loc(call));
    return { name };
  }
  function declareQueue(call: Node): QueueVal | undefined {
    const name = str(positional(call)[0] ?? keyword(call, 'name'));
    if (!name) return undefined;
    const exchange = exchangeOf(positional(call)[1] ?? keyword(call, 'exchange'));
    const key = str(positional(call)[2] ?? keyword(call, 'routing_key')) ?? '';
    sink.queue(name, loc(call));
    if (exchange) sink.binding(exchange, name, key, loc(call));
    return { name, ...(exchange ? { exchange } : {}), key };
  }

  function onAssign(n: Node): void {
    if (!mentionsKombu(n)) return;
    const right = n.childForFieldName('right');
    const name = lastName(n.childForFieldName('left'));
    if (right?.type !== 'call' || !name) return;
    const kind = callee(right);
    if (kind === 'Exchange') {
      const x = declareExchange(right);
      if (x) exchanges.set(name, x);
    } else if (kind === 'Queue') {
      const q = declareQueue(right);
      if (q) queues.set(name, q);
    } else if (kind === 'Producer' || kind === 'Publisher') {
      // Publisher(queue=q): the queue's exchange and key; Producer(ch, exchange=ex, routing_key=k)
      const qn = keyword(right, 'queue');
      const q = qn ? queueOf(qn) : undefined;
      const exchange = q ? (q.exchange ?? '') : exchangeOf(keyword(right, 'exchange') ?? positional(right)[1]);
      const key = q ? (q.exchange ? q.key : q.name) : str(keyword(right, 'routing_key'));
      producers.set(name, { ...(exchange !== undefined ? { exchange } : {}), ...(key !== undefined ? { key } : {}) });
    }
  }

  function onCall(call: Node): void {
    if (!mentionsKombu(call)) return;
    const fn = call.childForFieldName('function');
    const name = lastName(fn);
    // Declarations not assigned anywhere (inline arguments) are declared where they are read.
    if (name === 'Consumer' || name === 'SimpleQueue') {
      const qs = keyword(call, 'queues') ?? (name === 'Consumer' ? positional(call)[1] : undefined);
      const first = positional(call)[0];
      // conn.Consumer(q) / Consumer(channel, [q1, q2]) / Consumer(queues=q)
      const list = qs ?? (fn?.type === 'attribute' ? first : undefined);
      for (const q of list?.type === 'list' ? list.namedChildren : list ? [list] : []) {
        const v = q ? queueOf(q) : undefined;
        if (v) sink.consume('rabbitmq', v.name, loc(call));
      }
      return;
    }
    if (fn?.type !== 'attribute' || !name) return;
    const recv = fn.childForFieldName('object');
    // nameko: `self.publish(body, routing_key=…)` with `publish = Publisher(exchange=…)` on the class;
    // kombu: `producer.publish(body, routing_key=…)` of a held `Producer(…)`, or of any producer given the names.
    const p =
      recv?.text === 'self'
        ? producers.get(name)
        : name === 'publish'
          ? producers.get(lastName(recv) ?? '')
          : undefined;
    if (!p && name !== 'publish') return;
    const exNode = keyword(call, 'exchange');
    const keyNode = keyword(call, 'routing_key');
    if (!p && !keyNode) return;
    // A producer without an exchange publishes to the default exchange ('').
    const exchange = exNode ? exchangeOf(exNode) : (p?.exchange ?? '');
    const key = keyNode ? str(keyNode) : p?.key;
    if (exchange === undefined || key === undefined) return;
    sink.publish('rabbitmq', exchange, key, loc(call));
  }

  function onDecorated(d: Node): void {
    if (!mentionsKombu(d)) return;
    for (const dec of d.namedChildren) {
      const call = dec?.type === 'decorator' ? dec.namedChild(0) : undefined;
      if (call?.type !== 'call' || lastName(call.childForFieldName('function')) !== 'consume') continue;
      const q = positional(call)[0] ?? keyword(call, 'queue');
      const v = q ? queueOf(q) : undefined;
      if (v) sink.consume('rabbitmq', v.name, loc(dec));
    }
  }

  return [
    { on: ['assignment'], each: onAssign },
    { on: ['decorated_definition'], each: onDecorated },
    { on: ['call'], each: onCall },
  ];
}
