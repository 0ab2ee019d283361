import type { Node } from '../parsers';
import type { GoBrokerUse, GoRef, Part } from '../model';
import { SERVER_NAMED_QUEUE, type Sink, lineOf, literal } from './common';
import type { NodeRule } from './driver';

/**
 * Go functional options of a messaging package (issue 20 item 1: option/builder patterns):
 * `func ExchangeName(name string) Option { return func(p *publisher) { p.exchangeName = name } }` sets a field,
 * the package's methods hand that field to amqp091 (`ch.PublishWithContext(ctx, p.exchangeName, p.bindingKey,
 * …)`), and a service configures its instance (`pub.Configure(publisher.ExchangeName("orders"), …)`): the
 * broker sees the service's values, reported at its configuring call (instantiated at link time).
 */

/** amqp091 channel methods and the arguments that name the broker's objects. */
const AMQP: Record<
  string,
  { kind: GoBrokerUse['kind']; exchange?: number; key?: number; queue?: number; type?: number }
> = {
  PublishWithContext: { kind: 'publish', exchange: 1, key: 2 },
  Publish: { kind: 'publish', exchange: 0, key: 1 },
  Consume: { kind: 'consume', queue: 0 },
  QueueBind: { kind: 'bind', queue: 0, key: 1, exchange: 2 },
  ExchangeDeclare: { kind: 'exchange', exchange: 0, type: 1 },
};

/** A block's statements (tree-sitter-go wraps them in a `statement_list`). */
const statements = (block: Node | null | undefined): Node[] =>
  (block?.namedChildren ?? [])
    .flatMap((s) => (s?.type === 'statement_list' ? s.namedChildren : [s]))
    .filter((s): s is Node => s !== null && s.type !== 'comment');

const argsOf = (call: Node): Node[] =>
  (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (x): x is Node => x !== null && x.type !== 'comment',
  );

export function goOptionRules(file: string, sink: Sink, evaluate: (n: Node) => Part[]): NodeRule[] {
  let pkg = '';
  /** Import name → the package's own name (its path's last segment). */
  const imports = new Map<string, string>();
  const facts = sink.facts;

  /** `func X(v T) Option { return func(p *S) { p.f = v } }` → option X of this package sets field f. */
  function optionFunc(fn: Node): void {
    const name = fn.childForFieldName('name')?.text;
    const params = fn.childForFieldName('parameters')?.namedChildren ?? [];
    const param = params.length === 1 ? params[0]?.childForFieldName('name')?.text : undefined;
    const body = fn.childForFieldName('body');
    const ret = statements(body).find((s) => s.type === 'return_statement');
    const lambda =
      ret?.namedChild(0)?.type === 'expression_list' ? ret.namedChild(0)?.namedChild(0) : ret?.namedChild(0);
    if (!name || !param || !pkg || lambda?.type !== 'func_literal') return;
    const stmts = statements(lambda.childForFieldName('body'));
    const assign = stmts.length === 1 && stmts[0]?.type === 'assignment_statement' ? stmts[0] : undefined;
    const left = assign?.childForFieldName('left')?.namedChild(0);
    const right = assign?.childForFieldName('right')?.namedChild(0);
    const field = left?.type === 'selector_expression' ? left.childForFieldName('field')?.text : undefined;
    if (field && right?.type === 'identifier' && right.text === param)
      (facts.goOptions ??= []).push({ pkg, name, field });
  }

  /** A method's amqp091 calls whose names come from the receiver's fields (or constants). */
  function brokerUses(method: Node): void {
    const recv = method.childForFieldName('receiver')?.namedChild(0)?.childForFieldName('name')?.text;
    if (!recv || !pkg) return;
    /** `queue, err := ch.QueueDeclare(c.queueName, …)`: `queue.Name` is that field. */
    const declared = new Map<string, { arg: Node; line: number }>();
    const ref = (n: Node | undefined): GoBrokerUse['exchange'] => {
      if (!n) return undefined;
      if (n.type === 'selector_expression') {
        const operand = n.childForFieldName('operand')?.text ?? '';
        const field = n.childForFieldName('field')?.text ?? '';
        if (operand === recv) return { field };
        const decl = field === 'Name' ? declared.get(operand) : undefined;
        // `QueueDeclare("", …)`: the broker names it, one queue per declaration.
        if (decl && decl.arg.text === '""') return { lit: `${SERVER_NAMED_QUEUE}${file}:${decl.line}` };
        if (decl) return ref(decl.arg);
        return undefined;
      }
      const v = literal(evaluate(n));
      return v !== undefined ? { lit: v } : undefined;
    };
    const uses: GoBrokerUse[] = [];
    for (const call of method.descendantsOfType('call_expression')) {
      if (!call) continue;
      const fn = call.childForFieldName('function');
      const name = fn?.type === 'selector_expression' ? fn.childForFieldName('field')?.text : undefined;
      const args = argsOf(call);
      if (name === 'QueueDeclare' && args[0]) {
        const holder = call.parent?.parent;
        const v =
          holder?.type === 'short_var_declaration' || holder?.type === 'assignment_statement'
            ? holder.childForFieldName('left')?.namedChild(0)?.text
            : undefined;
        if (v) declared.set(v, { arg: args[0], line: lineOf(call) });
        continue;
      }
      const shape = name ? AMQP[name] : undefined;
      if (!shape || (name === 'Publish' && args.length < 5)) continue;
      const pick = (i: number | undefined) => (i === undefined ? undefined : ref(args[i]));
      const use: GoBrokerUse = {
        pkg,
        kind: shape.kind,
        ...(shape.exchange !== undefined ? { exchange: pick(shape.exchange) } : {}),
        ...(shape.key !== undefined ? { key: pick(shape.key) } : {}),
        ...(shape.queue !== undefined ? { queue: pick(shape.queue) } : {}),
        ...(shape.type !== undefined ? { type: literal(evaluate(args[shape.type]!)) } : {}),
        loc: { file, line: lineOf(call) },
      };
      uses.push(use);
    }
    // Only uses naming a receiver field are instance-configured; fully literal ones are read as usual. A queue the
    // broker names in a configured method is each instance's own: its consume and bind go with the configured ones.
    const configured = uses.filter((u) => [u.exchange, u.key, u.queue].some((r) => r && 'field' in r));
    if (configured.length === 0) return;
    const own = (r: GoRef | undefined): boolean =>
      r !== undefined && 'lit' in r && r.lit.startsWith(SERVER_NAMED_QUEUE);
    (facts.goBrokerUses ??= []).push(...uses.filter((u) => configured.includes(u) || own(u.queue)));
  }

  /** `x.Configure(pkg.A("v"), pkg.B("w"))`, `pkg.New(conn, pkg.A("v"))`: one configuration of an instance. */
  function optionSite(call: Node): void {
    const values: { pkg: string; name: string; value: string }[] = [];
    for (const a of argsOf(call)) {
      if (a.type !== 'call_expression') continue;
      const fn = a.childForFieldName('function');
      const operand = fn?.type === 'selector_expression' ? fn.childForFieldName('operand')?.text : undefined;
      const name = fn?.childForFieldName('field')?.text;
      const inner = argsOf(a);
      const target = operand ? imports.get(operand) : undefined;
      const v = inner.length === 1 ? literal(evaluate(inner[0]!)) : undefined;
      if (target && name && /^[A-Z]/.test(name) && v !== undefined) values.push({ pkg: target, name, value: v });
    }
    const pkgs = new Set(values.map((v) => v.pkg));
    if (values.length && pkgs.size === 1)
      (facts.goOptionSites ??= []).push({
        pkg: values[0]!.pkg,
        values: values.map(({ name, value }) => ({ name, value })),
        loc: { file, line: lineOf(call) },
      });
  }

  return [
    {
      on: ['package_clause', 'import_spec'],
      each(node) {
        if (node.type === 'package_clause') pkg = node.namedChild(0)?.text ?? '';
        else {
          const path = node.childForFieldName('path')?.text.slice(1, -1) ?? '';
          const last = path.split('/').pop() ?? '';
          if (path.includes('.') && last) imports.set(node.childForFieldName('name')?.text ?? last, last);
        }
      },
    },
    { on: ['function_declaration'], each: optionFunc },
    { on: ['method_declaration'], each: brokerUses },
    { on: ['call_expression'], each: optionSite },
  ];
}
