import type { Node } from '../parsers';
import type { Part } from '../model';
import { type Sink, type Within, lineOf, literal } from './common';
import type { NodeRule } from './driver';

/**
 * NATS in Go (nats.go, its `jetstream` package, stan.go) and Python (nats-py), read from the parse tree so a
 * subject goes through the language's evaluator: literals, formatting, constants of another file or package of
 * the source (`events.OrderCreated`, `settings.SUBJECT`, resolved once the source is read with the Kafka topics
 * of other files), the environment and configuration. Only in files importing a NATS client: the verbs are
 * common words. JavaScript/TypeScript NATS is read by `js-modules.ts`, other languages by `channels.ts`.
 */

/** Go methods whose first argument (after a context) is the subject; the index of a queue group or durable. */
const GO_OPS: Record<string, { side: 'publish' | 'consume'; group?: number; durable?: number }> = {
  Publish: { side: 'publish' },
  PublishAsync: { side: 'publish' },
  Request: { side: 'publish' },
  RequestWithContext: { side: 'publish' },
  Subscribe: { side: 'consume' },
  SubscribeSync: { side: 'consume' },
  ChanSubscribe: { side: 'consume' },
  QueueSubscribe: { side: 'consume', group: 1 },
  QueueSubscribeSync: { side: 'consume', group: 1 },
  ChanQueueSubscribe: { side: 'consume', group: 1 },
  PullSubscribe: { side: 'consume', durable: 1 },
  // A message built with its subject (`nc.PublishMsg(&nats.Msg{Subject: subject, Header: h, Data: data})`).
  PublishMsg: { side: 'publish' },
  RequestMsg: { side: 'publish' },
};

/** The parameter names of the Go function or method around a node (function literals are skipped over). */
function goParams(node: Node): string[] {
  let n: Node | null = node.parent;
  while (n && n.type !== 'function_declaration' && n.type !== 'method_declaration') n = n.parent;
  return (n?.childForFieldName('parameters')?.namedChildren ?? []).flatMap((d) =>
    (d?.namedChildren ?? []).filter((x) => x?.type === 'identifier').map((x) => x.text),
  );
}

/** `&nats.Msg{Subject: s}` (or `nats.Msg{…}`): the subject's expression. */
function msgSubject(arg: Node): Node | undefined {
  const lit = arg.type === 'unary_expression' ? arg.childForFieldName('operand') : arg;
  if (lit?.type !== 'composite_literal' || !/(?:^|\.)Msg$/.test(lit.childForFieldName('type')?.text ?? '')) return;
  for (const el of lit.childForFieldName('body')?.namedChildren ?? []) {
    if (el?.type !== 'keyed_element') continue;
    const [k, v] = el.namedChildren;
    if (k?.text === 'Subject' && v) return v.namedChild(0) ?? v;
  }
  return undefined;
}

/** A leading context argument (`ctx`, `r.Context()`, `context.Background()`): the subject comes after it. */
const GO_CONTEXT = /^(?:\w*[cC]tx|context\.\w+\(\)|\w+\.Context\(\))$/;
/** Receivers that are another pub/sub client in a file that also speaks NATS. */
const OTHER_CLIENT = /redis|rdb|pubsub|kafka|rabbit|amqp/i;

/** A constant worth keeping for other sources: a short dotted name, as subjects and topics are. */
const SUBJECT_LIKE = /^[\w.*>:-]{1,200}$/;

const goArgs = (call: Node): Node[] =>
  (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (x): x is Node => x !== null && x.type !== 'comment',
  );

/** nats.go / stan.go / jetstream: publishes, requests, subscriptions and JetStream consumer configurations. */
export function goNatsRules(file: string, sink: Sink, evaluate: (n: Node) => Part[]): NodeRule[] {
  let natsFile = false;
  let pkg = '';
  return [
    {
      // The package's exported string constants as `pkg.Name`: a subject another source names through an
      // import of this package (a shared `events` module of its own folder) is resolved with them at link time.
      on: ['package_clause', 'const_spec'],
      each(node) {
        if (node.type === 'package_clause') {
          pkg = node.namedChild(0)?.text ?? '';
          return;
        }
        const name = node.childForFieldName('name')?.text;
        const value = node.childForFieldName('value')?.namedChild(0);
        if (!pkg || !name || !/^[A-Z]/.test(name) || value?.type !== 'interpreted_string_literal') return;
        const v = literal(evaluate(value));
        if (v !== undefined && SUBJECT_LIKE.test(v)) (sink.facts.channelConstants ??= {})[`${pkg}.${name}`] = v;
      },
    },
    {
      on: ['import_spec'],
      each(node) {
        if (/^"github\.com\/nats-io\//.test(node.childForFieldName('path')?.text ?? '')) natsFile = true;
      },
    },
    {
      on: ['call_expression'],
      each(call) {
        if (!natsFile) return;
        const fn = call.childForFieldName('function');
        if (fn?.type !== 'selector_expression') return;
        const op = GO_OPS[fn.childForFieldName('field')?.text ?? ''];
        const receiver = fn.childForFieldName('operand')?.text ?? '';
        if (!op || OTHER_CLIENT.test(receiver)) return;
        let a = goArgs(call);
        if (a[0] && GO_CONTEXT.test(a[0].text)) a = a.slice(1);
        const name = fn.childForFieldName('field')?.text ?? '';
        const subject = /Msg$/.test(name) ? (a[0] ? msgSubject(a[0]) : undefined) : a[0];
        if (!subject) return;
        const loc = { file, line: lineOf(call) };
        const ref: Sink['topicRefs'][number] = { side: op.side, parts: evaluate(subject), loc, broker: 'nats' };
        if (op.side === 'consume') {
          if (op.group !== undefined && a[op.group]) ref.group = evaluate(a[op.group]!);
          if (op.durable !== undefined && a[op.durable]) ref.durable = evaluate(a[op.durable]!);
          // Subscription options: nats.Durable("d"), stan.DurableName("d"), nats.BindStream("S"), nats.Bind("S", "d").
          for (const o of a.slice(1)) {
            if (o.type !== 'call_expression') continue;
            const name = o.childForFieldName('function')?.text.replace(/^\w+\./, '');
            const [x, y] = goArgs(o);
            if (!x) continue;
            if (name === 'Durable' || name === 'DurableName') ref.durable = evaluate(x);
            else if (name === 'BindStream') ref.stream = evaluate(x);
            else if (name === 'Bind') {
              ref.stream = evaluate(x);
              if (y) ref.durable = evaluate(y);
            }
          }
        }
        sink.topicRefs.push(ref);
        // A subject that is the function's parameter (`func (b *Broker) Publish(ctx, subject string, …)`): a
        // wrapper whose callers, in this package or another source importing it, name the subject.
        const only = ref.parts.length === 1 ? ref.parts[0]! : undefined;
        if (only && 'ref' in only && /^\w+$/.test(only.ref) && goParams(call).includes(only.ref))
          (sink.facts.goMessageUses ??= []).push({
            side: op.side,
            broker: 'nats',
            subject: ref.parts,
            ...((ref.group ?? ref.durable) ? { group: (ref.group ?? ref.durable)! } : {}),
            loc,
          });
      },
    },
    {
      // A JetStream consumer configuration (`jetstream.ConsumerConfig{Durable, FilterSubject(s)}`, nats.go's
      // `nats.ConsumerConfig` given to `AddConsumer`), given to a call naming its stream, consumes its subjects.
      on: ['composite_literal'],
      each(lit) {
        if (!natsFile || !/(?:^|\.)ConsumerConfig$/.test(lit.childForFieldName('type')?.text ?? '')) return;
        let durable: Part[] | undefined;
        const subjects: Node[] = [];
        for (const el of lit.childForFieldName('body')?.namedChildren ?? []) {
          if (el?.type !== 'keyed_element') continue;
          const [k, v] = el.namedChildren;
          const value = v?.namedChild(0) ?? v;
          if (!k || !value) continue;
          if (k.text === 'Durable' || k.text === 'Name') durable ??= evaluate(value);
          else if (k.text === 'FilterSubject') subjects.push(value);
          else if (k.text === 'FilterSubjects')
            for (const item of value.childForFieldName('body')?.namedChildren ?? [])
              if (item) subjects.push(item.namedChild(0) ?? item);
        }
        // `js.CreateOrUpdateConsumer(ctx, "ORDERS", cfg)` / `js.AddConsumer("ORDERS", &cfg)`: the stream before it.
        let call: Node | null = lit.parent;
        if (call?.type === 'unary_expression') call = call.parent;
        const stream =
          call?.type === 'argument_list'
            ? call.namedChildren.filter((x): x is Node => x !== null && !GO_CONTEXT.test(x.text))[0]
            : undefined;
        const streamParts = stream && stream.id !== lit.id && stream.text !== `&${lit.text}` ? evaluate(stream) : [];
        for (const s of subjects)
          sink.topicRefs.push({
            side: 'consume',
            parts: evaluate(s),
            loc: { file, line: lineOf(lit) },
            broker: 'nats',
            ...(durable ? { durable } : {}),
            ...(streamParts.length ? { stream: streamParts } : {}),
          });
      },
    },
  ];
}

/** nats-py methods: the subject is the first argument or `subject=`; the keyword naming a group or durable. */
const PY_OPS: Record<string, 'publish' | 'consume'> = {
  publish: 'publish',
  request: 'publish',
  subscribe: 'consume',
  pull_subscribe: 'consume',
};

export const PY_NATS_METHODS: ReadonlySet<string> = new Set(Object.keys(PY_OPS));

/**
 * nats-py (`nc.publish/request/subscribe`, JetStream `js.publish/subscribe/pull_subscribe` with `queue=`,
 * `durable=`, `stream=`) in files importing `nats`. A subject that is a parameter of the function around the
 * call makes that function a wrapper: each call of it names the subject.
 */
export function pyNatsCall(
  call: Node,
  name: string,
  receiver: string,
  args: readonly Part[][],
  named: ReadonlyMap<string, Part[]>,
  within: Within | undefined,
  file: string,
  sink: Sink,
): void {
  const side = PY_OPS[name];
  if (!side || OTHER_CLIENT.test(receiver)) return;
  const subject = named.get('subject') ?? args[0];
  if (!subject) return;
  const loc = { file, line: lineOf(call) };
  const ref: Sink['topicRefs'][number] = { side, parts: subject, loc, broker: 'nats' };
  if (side === 'consume') {
    const group = named.get('queue') ?? (name === 'subscribe' && !named.has('subject') ? args[1] : undefined);
    const durable = named.get('durable') ?? (name === 'pull_subscribe' ? args[1] : undefined);
    const stream = named.get('stream');
    if (group) ref.group = group;
    if (durable) ref.durable = durable;
    if (stream) ref.stream = stream;
  }
  sink.topicRefs.push(ref);
  if (within && subject.some((p) => 'ref' in p && within.params.includes(p.ref)))
    sink.messageWrappers.push(
      side === 'publish'
        ? { within, broker: 'nats', exchange: [], key: subject, loc }
        : { within, kind: 'consume', broker: 'nats', exchange: [], key: [], queue: subject, loc },
    );
}

/** Whether a Python module imports a NATS client (`import nats`, `from nats.aio.client import Client`). */
export const PY_NATS_IMPORT = /^nats(?:\.|$)/;
