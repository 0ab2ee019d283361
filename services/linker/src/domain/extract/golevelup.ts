import type { ExchangeType, Loc } from '../model';
import type { Sink } from './common';
import { valueOf } from './channels';

/**
 * @golevelup/nestjs-rabbitmq. A handler method under `@RabbitSubscribe({ exchange, routingKey, queue })` or
 * `@RabbitRPC({…})` consumes `queue`, bound to `exchange` with each `routingKey` (a string or a list); only
 * messages whose key matches its own pattern reach that handler (`Consume.routingKeys`). The module's
 * `RabbitMQModule.forRoot[Async]({ exchanges: [{ name, type }], queues: [{ name, exchange, routingKey }] })`
 * declares exchanges (type `topic` when left out, the library's default) and bindings. The publish side,
 * `amqpConnection.publish(exchange, routingKey, message)`, is the shared AMQP publish rule.
 */
export function golevelupRabbit(text: string, path: string, sink: Sink, line: (index: number) => number): void {
  if (!/@golevelup\/nestjs-rabbitmq|@Rabbit(?:Subscribe|RPC)\b|RabbitMQModule\b/.test(text)) return;
  const loc = (index: number): Loc => ({ file: path, line: line(index) });
  const name = (expr: string | undefined): string | undefined => {
    if (expr === undefined) return undefined;
    const v = valueOf(expr, text);
    return v === '' ? undefined : v;
  };
  for (const m of text.matchAll(/@Rabbit(?:Subscribe|RPC)\s*\(\s*\{/g)) {
    const body = objectBody(text, m.index + m[0].length - 1);
    if (body === undefined) continue;
    const exchange = name(prop(body, 'exchange'));
    const queue = name(prop(body, 'queue'));
    const keys = list(prop(body, 'routingKey')).map((k) => valueOf(k, text));
    const at = loc(m.index);
    // A handler without a named queue gets a server-named one: nothing to link by name.
    if (!queue) continue;
    sink.facts.consumes.push({
      broker: 'rabbitmq',
      queue,
      loc: at,
      ...(keys.length ? { routingKeys: keys } : {}),
    });
    if (exchange) {
      sink.exchange(exchange, 'topic', at);
      for (const k of keys.length ? keys : ['#']) sink.binding(exchange, queue, k, at);
    }
  }
  for (const m of text.matchAll(/\bRabbitMQModule\s*\.\s*forRoot(?:Async)?\s*\(/g)) {
    const start = text.indexOf('{', m.index);
    const body = start === -1 ? undefined : objectBody(text, start);
    if (body === undefined) continue;
    const base = start + 1;
    for (const [field, handle] of [
      ['exchanges', exchangeEntry],
      ['queues', queueEntry],
    ] as const) {
      const f = new RegExp(String.raw`\b${field}\s*:\s*\[`).exec(body);
      if (!f) continue;
      for (const e of entries(body, f.index + f[0].length)) handle(e.text, loc(base + e.index));
    }
  }

  function exchangeEntry(entry: string, at: Loc): void {
    const n = name(prop(entry, 'name'));
    const type = name(prop(entry, 'type')) ?? 'topic';
    if (n && /^(?:direct|topic|fanout|headers)$/.test(type)) sink.exchange(n, type as ExchangeType, at);
  }
  function queueEntry(entry: string, at: Loc): void {
    const n = name(prop(entry, 'name'));
    const exchange = name(prop(entry, 'exchange'));
    if (!n) return;
    sink.queue(n, at);
    if (exchange) for (const k of list(prop(entry, 'routingKey'))) sink.binding(exchange, n, valueOf(k, text), at);
  }
}

/** The text inside the braces opening at `open` (quotes skipped), or undefined when they never close. */
function objectBody(text: string, open: number): string | undefined {
  let depth = 0;
  let quote = '';
  for (let i = open; i < text.length && i < open + 20000; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === "'" || ch === '"' || ch === '`') quote = ch;
    else if (ch === '{' || ch === '[' || ch === '(') depth++;
    else if (ch === '}' || ch === ']' || ch === ')') {
      depth--;
      if (depth === 0) return text.slice(open + 1, i);
    }
  }
  return undefined;
}

/** The `{…}` entries of the list starting at `from` in `body` (up to its closing bracket). */
function entries(body: string, from: number): { text: string; index: number }[] {
  const out: { text: string; index: number }[] = [];
  for (let i = from; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === ']') break;
    if (ch !== '{') continue;
    const inner = objectBody(body, i);
    if (inner === undefined) break;
    out.push({ text: inner, index: i });
    i += inner.length + 1;
  }
  return out;
}

/** The expression of `key: …` at the top of an object literal's text (a string, a name or a `[…]` list). */
function prop(body: string, key: string): string | undefined {
  const m = new RegExp(
    String.raw`(?:^|[,{\s])${key}\s*:\s*('[^'\n]*'|"[^"\n]*"|\x60[^\x60\n]*\x60|\[[^\]]*\]|[\w$.]+)`,
  ).exec(body);
  return m?.[1];
}

/** A routing key expression as its items: a `[…]` list's, or the one value. */
function list(expr: string | undefined): string[] {
  if (expr === undefined) return [];
  if (!expr.startsWith('[')) return [expr];
  return [...expr.slice(1, -1).matchAll(/'[^'\n]*'|"[^"\n]*"|\x60[^\x60\n]*\x60|[\w$.]+/g)].map((x) => x[0]);
}
