import type { Node } from '../parsers';
import type { GoRpcFact, Part, SourceFacts } from '../model';
import { HOLE_PART, type Sink, captured, concat, lineOf, lit, literal } from './common';
import type { NodeRule } from './driver';
import type { Scope } from './scope';

/**
 * Go net/rpc (standard library): a server registers a receiver (`rpc.Register(obj)`, `rpc.RegisterName("Name",
 * obj)`, also on a `rpc.NewServer()`) and serves it (`ServeConn`, `Accept`, `HandleHTTP`); each exported method
 * of the receiver's type with net/rpc's signature (`func (t *T) M(args A, reply *R) error`) answers `T.M` (or
 * `Name.M`). A client dials an address (`rpc.Dial("tcp", addr)`, `DialHTTP`, `jsonrpc.Dial`) and calls
 * `client.Call("T.M", args, &reply)` or `client.Go(…)`, the method string literal or a constant/local. Both are
 * reported as method `RPC`, path `/T.M`: served where the method is declared, called at the `Call`; the host is
 * the one address the source dials (else a run-time value, the path alone then names the server). A source
 * none of whose files imports `net/rpc` has no net/rpc facts (other clients have `Call` methods too).
 */

/** Facts kept per file, at most. */
const MAX_FACTS = 2_000;
const RPC_METHOD = /^[A-Z]\w*\.[A-Z]\w*$/;

const argsOf = (call: Node): Node[] =>
  (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (x): x is Node => x !== null && x.type !== 'comment',
  );

/** A type's own name: `*pkg.T` → `T`. */
const typeName = (t: Node | null | undefined): string | undefined => {
  const q = t?.type === 'pointer_type' ? t.namedChild(0) : t;
  if (q?.type === 'type_identifier') return q.text;
  if (q?.type === 'qualified_type') return q.childForFieldName('name')?.text;
  return undefined;
};

export function goNetRpcRules(file: string, sink: Sink, evaluate: (n: Node) => Part[], scope: Scope): NodeRule[] {
  let importsRpc = false;
  const push = (f: GoRpcFact): void => {
    if ((sink.facts.goRpc?.length ?? 0) < MAX_FACTS) (sink.facts.goRpc ??= []).push(f);
  };
  const loc = (n: Node): { file: string; line: number } => ({ file, line: lineOf(n) });

  /** The type a registered value has: `&T{…}`, `T{…}`, `new(T)`, a local bound to one, or a constructor's. */
  const valueType = (v: Node | null | undefined, at: Node, depth = 0): { type?: string; ctor?: string } => {
    if (!v || depth > 3) return {};
    if (v.type === 'unary_expression') return valueType(v.childForFieldName('operand'), at, depth + 1);
    if (v.type === 'parenthesized_expression') return valueType(v.namedChild(0), at, depth + 1);
    if (v.type === 'composite_literal') {
      const t = typeName(v.childForFieldName('type'));
      return t ? { type: t } : {};
    }
    if (v.type === 'call_expression') {
      const fn = v.childForFieldName('function');
      if (fn?.text === 'new') {
        const t = typeName(argsOf(v)[0]);
        return t ? { type: t } : {};
      }
      const name = fn?.type === 'selector_expression' ? fn.childForFieldName('field')?.text : fn?.text;
      return name && /^\w+$/.test(name) ? { ctor: name } : {};
    }
    if (v.type === 'identifier') return valueType(scope.node(v.text, at), at, depth + 1);
    return {};
  };

  /** The function or method declaration around a node. */
  const enclosing = (n: Node): Node | undefined => {
    for (let p = n.parent; p; p = p.parent) {
      if (p.type === 'func_literal') return undefined;
      if (p.type === 'function_declaration' || p.type === 'method_declaration') return p;
    }
    return undefined;
  };

  /** The addresses a dial's argument stands for: a parameter of its function is each call's argument there. */
  const addresses = (arg: Node): Part[][] => {
    const fn = arg.type === 'identifier' ? enclosing(arg) : undefined;
    const params = (fn?.childForFieldName('parameters')?.namedChildren ?? []).flatMap((d) =>
      (d?.namedChildren ?? []).flatMap((x) => (x?.type === 'identifier' ? [x.text] : [])),
    );
    const index = params.indexOf(arg.text);
    const name = fn?.type === 'function_declaration' ? fn.childForFieldName('name')?.text : undefined;
    if (index < 0 || !name) return [evaluate(arg)];
    let root: Node = arg;
    while (root.parent) root = root.parent;
    const out: Part[][] = [];
    // The calls of the file rules' walk (a descent of its own only when it kept none).
    for (const c of captured(root, 'call_expression') ?? root.descendantsOfType('call_expression')) {
      if (c?.childForFieldName('function')?.text !== name) continue;
      const a = argsOf(c)[index];
      if (a) out.push(evaluate(a));
    }
    return out;
  };

  return [
    {
      on: ['import_spec'],
      each(node) {
        const path = node.childForFieldName('path')?.text.slice(1, -1) ?? '';
        if (/^net\/rpc(\/jsonrpc)?$/.test(path) && !importsRpc) {
          importsRpc = true;
          push({ kind: 'import' });
        }
      },
    },
    {
      on: ['method_declaration', 'function_declaration'],
      each(node) {
        const name = node.childForFieldName('name')?.text;
        if (!name) return;
        const result = node.childForFieldName('result');
        if (node.type === 'function_declaration') {
          // A constructor's result type: `func NewServer(…) *Server`.
          const t = /^[Nn]ew/.test(name) ? typeName(result) : undefined;
          if (t) push({ kind: 'ctor', name, type: t });
          return;
        }
        if (!/^[A-Z]/.test(name) || result?.text !== 'error') return;
        const recv = typeName(node.childForFieldName('receiver')?.namedChildren[0]?.childForFieldName('type'));
        const params = (node.childForFieldName('parameters')?.namedChildren ?? []).flatMap((d) => {
          if (d?.type !== 'parameter_declaration') return [];
          const ids = d.namedChildren.filter((x) => x?.type === 'identifier').length;
          return Array.from({ length: Math.max(1, ids) }, () => d.childForFieldName('type'));
        });
        if (recv && params.length === 2 && params[1]?.type === 'pointer_type')
          push({ kind: 'method', recv, name, loc: loc(node) });
      },
    },
    {
      on: ['call_expression'],
      each(call) {
        const fn = call.childForFieldName('function');
        if (fn?.type !== 'selector_expression') return;
        const name = fn.childForFieldName('field')?.text ?? '';
        const operand = fn.childForFieldName('operand')?.text ?? '';
        const a = argsOf(call);
        if ((name === 'Call' && a.length === 3) || (name === 'Go' && a.length === 4)) {
          const method = literal(evaluate(a[0]!));
          if (method && RPC_METHOD.test(method)) push({ kind: 'call', method, loc: loc(call) });
          return;
        }
        if (!importsRpc) return;
        if (/^(rpc|jsonrpc)$/.test(operand) && /^Dial(HTTP|HTTPPath)?$/.test(name) && a[1]) {
          for (const address of addresses(a[1])) push({ kind: 'dial', address });
          return;
        }
        const server =
          operand === 'rpc' || /^rpc\.NewServer\s*\(/.test(scope.node(operand, call)?.text ?? '') ? operand : '';
        if (!server) return;
        if ((name === 'Register' && a.length === 1) || (name === 'RegisterName' && a.length === 2)) {
          const registered = name === 'RegisterName' ? literal(evaluate(a[0]!)) : undefined;
          if (name === 'RegisterName' && !registered) return;
          const t = valueType(a[a.length - 1], call);
          if (t.type || t.ctor)
            push({ kind: 'server', ...t, ...(registered ? { name: registered } : {}), loc: loc(call) });
        }
      },
    },
  ];
}

/**
 * Once the source is read: each registered receiver's net/rpc methods are endpoints `RPC /<Name>.<Method>` (at
 * the method), and each `Call("T.M", …)` a call `RPC <address>/T.M`, the address the one the source dials.
 */
export function applyGoNetRpc(facts: SourceFacts, sink: Sink): void {
  const list = facts.goRpc;
  if (!list) return;
  delete facts.goRpc;
  if (!list.some((f) => f.kind === 'import')) return;
  const ctors = new Map<string, string | null>();
  const methods = new Map<string, { name: string; loc: { file: string; line: number } }[]>();
  const dials = new Map<string, Part[]>();
  for (const f of list) {
    if (f.kind === 'ctor') {
      const prev = ctors.get(f.name);
      ctors.set(f.name, prev === undefined || prev === f.type ? f.type : null);
    } else if (f.kind === 'method') methods.set(f.recv, [...(methods.get(f.recv) ?? []), f]);
    else if (f.kind === 'dial') dials.set(JSON.stringify(f.address), f.address);
  }
  for (const f of list) {
    if (f.kind !== 'server') continue;
    const type = f.type ?? (f.ctor ? ctors.get(f.ctor) : undefined);
    if (!type) continue;
    for (const m of methods.get(type) ?? []) sink.endpoint('RPC', `/${f.name ?? type}.${m.name}`, 'go-net/rpc', m.loc);
  }
  const address = dials.size === 1 ? [...dials.values()][0]! : undefined;
  for (const f of list) {
    if (f.kind !== 'call') continue;
    const url = address ? concat(lit('tcp://'), address, lit(`/${f.method}`)) : [HOLE_PART, ...lit(`/${f.method}`)];
    sink.call('RPC', url, 'go-net/rpc', f.loc);
  }
}
