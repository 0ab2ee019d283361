import type { Part } from '../model';
import type { Node } from '../parsers';
import { type Sink, lineOf, nameOf } from './common';
import type { NodeRule } from './driver';

/**
 * nameko (Python services on RabbitMQ), as the broker sees it (nameko's own conventions, `nameko/rpc.py`
 * and `nameko/events.py`):
 *
 * - RPC: a proxy of service `S` (`RpcProxy('S')`, `ServiceRpc('S')`, the standalone `ServiceRpcProxy`/
 *   `ServiceRpcClient`, or a cluster proxy `ClusterRpcProxy`/`ClusterRpc`/`ClusterRpcClient` as `rpc.S`)
 *   calling `m` publishes to the topic exchange `nameko-rpc` with routing key `S.m` and waits for the
 *   reply. The service `name = 'S'` consumes queue `rpc-S`, bound with `S.*`; each `@rpc` method answers
 *   the key `S.<method>` only (an RPC entrypoint of the queue, `Consume.rpcKeys`).
 * - Events: an `EventDispatcher()` of service `S` (or the standalone `event_dispatcher(config)` given `S`)
 *   publishes event type `T` to the topic exchange `S.events` with routing key `T`;
 *   `@event_handler('S', 'T')` in service `R`, method `m` consumes queue `evt-S-T--R.m` bound with `T`
 *   (`SINGLETON`: `evt-S-T`; `BROADCAST`: one queue per instance, `evt-S-T--R.m-<broadcast-id>`).
 *
 * The RPC exchange is the service's `rpc_exchange` setting (its `config.yml`, resolved when linking), else
 * nameko's default `nameko-rpc`.
 */

export const NAMEKO_RPC_EXCHANGE = '${rpc_exchange:nameko-rpc}';

const SERVICE_PROXIES = /^(RpcProxy|ServiceRpc|ServiceRpcProxy|ServiceRpcClient)$/;
const CLUSTER_PROXIES =
  /^(ClusterRpcProxy|ClusterRpc|ClusterRpcClient|PooledClusterRpcProxy|FlaskPooledClusterRpcProxy)$/;

type Holder =
  | { readonly kind: 'service'; readonly service: string }
  | { readonly kind: 'cluster' }
  | { readonly kind: 'dispatcher' }
  /** `event_dispatcher(config)`: the service is the call's first argument. */
  | { readonly kind: 'standalone' };

/** Whether the file of a node mentions a library (its text tested once per file). */
export function fileMentions(library: RegExp): (n: Node) => boolean {
  const files = new WeakMap<object, boolean>();
  return (n) => {
    const tree = n.tree as object;
    let v = files.get(tree);
    if (v === undefined) files.set(tree, (v = library.test(n.tree.rootNode.text)));
    return v;
  };
}
/** nameko's services, proxies, or a Flask extension of it. */
const mentionsNameko = fileMentions(/\bnameko\b/);

const lastName = (n: Node | null | undefined): string | undefined =>
  n?.type === 'identifier'
    ? n.text
    : n?.type === 'attribute'
      ? n.childForFieldName('attribute')?.text
      : n?.type === 'call'
        ? lastName(n.childForFieldName('function'))
        : undefined;

/** `a.b.c` as its names (`self`/`cls` first left out); undefined when a link is not a plain name. */
function chain(n: Node): string[] | undefined {
  const out: string[] = [];
  let cur: Node | null = n;
  while (cur?.type === 'attribute') {
    const attr = cur.childForFieldName('attribute')?.text;
    if (!attr) return undefined;
    out.unshift(attr);
    cur = cur.childForFieldName('object');
  }
  if (cur?.type !== 'identifier') return undefined;
  if (cur.text !== 'self' && cur.text !== 'cls') out.unshift(cur.text);
  return out;
}

export const positional = (call: Node): Node[] =>
  (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (x): x is Node => x !== null && x.type !== 'keyword_argument' && x.type !== 'comment',
  );
export const keyword = (call: Node, name: string): Node | undefined =>
  (call.childForFieldName('arguments')?.namedChildren ?? [])
    .find((a) => a?.type === 'keyword_argument' && a.childForFieldName('name')?.text === name)
    ?.childForFieldName('value') ?? undefined;

/** The rules of one Python file: holders first (every assignment and `with`), then services, then calls. */
export function namekoRules(file: string, sink: Sink, evaluate: (n: Node) => Part[]): NodeRule[] {
  const holders = new Map<string, Holder>();
  /** Each class's service name (`name = 'orders'`), by the class node's id. */
  const serviceNames = new Map<number, string | undefined>();
  const text = (n: Node | undefined): string => (n ? (nameOf(evaluate(n)) ?? '{}') : '{}');

  /** What a constructor call makes, unwrapping `ClusterRpcProxy(config).start()`. */
  function holderOf(value: Node | null | undefined): Holder | undefined {
    if (value?.type !== 'call') return undefined;
    const fn = value.childForFieldName('function');
    if (fn?.type === 'attribute' && fn.childForFieldName('attribute')?.text === 'start')
      return holderOf(fn.childForFieldName('object'));
    const name = lastName(fn);
    if (!name) return undefined;
    if (SERVICE_PROXIES.test(name)) {
      const svc = positional(value)[0] ?? keyword(value, 'service_name') ?? keyword(value, 'target_service');
      return svc ? { kind: 'service', service: text(svc) } : undefined;
    }
    if (CLUSTER_PROXIES.test(name)) return { kind: 'cluster' };
    if (name === 'EventDispatcher') return { kind: 'dispatcher' };
    if (name === 'event_dispatcher') return { kind: 'standalone' };
    return undefined;
  }

  function onHolder(n: Node): void {
    if (!mentionsNameko(n)) return;
    if (n.type === 'assignment') {
      const h = holderOf(n.childForFieldName('right'));
      const name = lastName(n.childForFieldName('left'));
      if (h && name) holders.set(name, h);
    } else {
      // with ClusterRpcProxy(config) as rpc:
      const v = n.childForFieldName('value');
      if (v?.type !== 'as_pattern') return;
      const h = holderOf(v.namedChild(0));
      const alias = v.childForFieldName('alias')?.namedChild(0);
      if (h && alias?.type === 'identifier') holders.set(alias.text, h);
    }
  }

  /** The service a class is (`name = 'orders'` in its body), for its entrypoints and dispatchers. */
  function serviceOf(cls: Node): string | undefined {
    if (serviceNames.has(cls.id)) return serviceNames.get(cls.id);
    let out: string | undefined;
    for (const st of cls.childForFieldName('body')?.namedChildren ?? []) {
      const asg = st?.type === 'expression_statement' ? st.namedChild(0) : undefined;
      if (asg?.type !== 'assignment' || asg.childForFieldName('left')?.text !== 'name') continue;
      const right = asg.childForFieldName('right');
      if (right) out = text(right);
    }
    serviceNames.set(cls.id, out);
    return out;
  }

  function onClass(cls: Node): void {
    if (!mentionsNameko(cls)) return;
    const service = serviceOf(cls);
    if (service === undefined) return;
    let bound = false;
    for (const m of cls.childForFieldName('body')?.namedChildren ?? []) {
      if (m?.type !== 'decorated_definition') continue;
      const method = m.childForFieldName('definition')?.childForFieldName('name')?.text;
      if (!method) continue;
      for (const dec of m.namedChildren) {
        if (dec?.type !== 'decorator') continue;
        const expr = dec.namedChild(0);
        const kind = lastName(expr);
        const loc = { file, line: lineOf(dec) };
        if (kind === 'rpc') {
          const queue = `rpc-${service}`;
          sink.exchange(NAMEKO_RPC_EXCHANGE, 'topic', loc);
          sink.queue(queue, loc);
          // One binding per service (`S.*`), made by its first entrypoint.
          if (!bound) sink.binding(NAMEKO_RPC_EXCHANGE, queue, `${service}.*`, loc);
          bound = true;
          sink.facts.consumes.push({ broker: 'rabbitmq', queue, loc, rpcKeys: [`${service}.${method}`] });
        } else if (kind === 'event_handler' && expr?.type === 'call') {
          const args = positional(expr);
          const source = text(args[0] ?? keyword(expr, 'source_service'));
          const type = text(args[1] ?? keyword(expr, 'event_type'));
          const handler = lastName(args[2] ?? keyword(expr, 'handler_type'))?.toLowerCase();
          const literalHandler = (args[2] ?? keyword(expr, 'handler_type'))?.type === 'string';
          const mode = literalHandler ? text(args[2] ?? keyword(expr, 'handler_type')) : handler;
          const queue =
            mode === 'singleton'
              ? `evt-${source}-${type}`
              : mode === 'broadcast'
                ? `evt-${source}-${type}--${service}.${method}-<broadcast-id>`
                : `evt-${source}-${type}--${service}.${method}`;
          const exchange = `${source}.events`;
          sink.exchange(exchange, 'topic', loc);
          sink.queue(queue, loc);
          sink.binding(exchange, queue, type, loc);
          sink.consume('rabbitmq', queue, loc);
        }
      }
    }
  }

  function enclosingService(n: Node): string | undefined {
    for (let p = n.parent; p; p = p.parent) if (p.type === 'class_definition') return serviceOf(p);
    return undefined;
  }

  function onCall(call: Node): void {
    if (holders.size === 0) return;
    const fn = call.childForFieldName('function');
    const names = fn && (fn.type === 'attribute' || fn.type === 'identifier') ? chain(fn) : undefined;
    if (!names || names.length === 0) return;
    // `proxy.method.call_async(…)`: the same request, its reply awaited later.
    if (names.length > 1 && names[names.length - 1] === 'call_async') names.pop();
    const h = holders.get(names[0]!);
    if (!h) return;
    const loc = { file, line: lineOf(call) };
    const rpc = (service: string, method: string): void => {
      sink.exchange(NAMEKO_RPC_EXCHANGE, 'topic', loc);
      sink.publish('rabbitmq', NAMEKO_RPC_EXCHANGE, `${service}.${method}`, loc);
    };
    const event = (service: string | undefined, typeNode: Node | undefined): void => {
      const exchange = `${service ?? '{}'}.events`;
      sink.exchange(exchange, 'topic', loc);
      sink.publish('rabbitmq', exchange, text(typeNode), loc);
    };
    if (h.kind === 'service' && names.length === 2) rpc(h.service, names[1]!);
    else if (h.kind === 'cluster' && names.length === 3) rpc(names[1]!, names[2]!);
    else if (h.kind === 'dispatcher' && names.length === 1)
      event(enclosingService(call), positional(call)[0] ?? keyword(call, 'event_type'));
    else if (h.kind === 'standalone' && names.length === 1) {
      const args = positional(call);
      event(text(args[0] ?? keyword(call, 'service_name')), args[1] ?? keyword(call, 'event_type'));
    }
  }

  return [
    { on: ['assignment', 'with_item'], each: onHolder },
    { on: ['class_definition'], each: onClass },
    { on: ['call'], each: onCall },
  ];
}
