import type { Node } from '../parsers';
import type { ExchangeType, ObjClass, ObjEffect, ObjMethod, ObjValue, Part } from '../model';
import { FIELD_REF, type FieldUse, HOLE_PART, concat, fieldUseParts, isFieldRef, lit } from './common';

/**
 * Object summaries (ADR 0062): a class is summarised as what its constructors and methods do, in order,
 * over symbolic values of their parameters, the object's fields and the application's configuration
 * (`model.ts` `ObjValue`): fields set, methods of the class called, objects created, and messaging calls.
 * `domain/objects.ts` runs the summaries at each call site of any source, so a library method whose
 * exchange comes from a field its constructor set from `config.GetSection(section)["Exchange"]`, with the
 * section a parameter of a registration method, publishes to the exchange the calling service configures.
 */

export const PARAM_REF = '\u0003p:';
export { FIELD_REF };
export const CONFIG_REF = '\u0003cfg';
export const CONFIG_ROOT: Part = { ref: CONFIG_REF };
/** Effects kept per method, and nesting followed per value: a generated file stays cheap. */
const MAX_EFFECTS = 200;
const MAX_DEPTH = 16;
/** Parts a value may hold: `a = a + a` repeated doubles it (review 22's blow-ups). */
export const MAX_VALUE_PARTS = 64;
export const capped = (v: readonly Part[]): Part[] => (v.length > MAX_VALUE_PARTS ? [HOLE_PART] : [...v]);
/** Broker calls of RabbitMQ.Client (sync and async) and the argument each name sits in. */
const BROKER: Record<string, { op: 'publish' | 'bind' | 'consume' | 'exchange'; args: readonly string[] }> = {
  BasicPublish: { op: 'publish', args: ['exchange', 'routingKey'] },
  BasicPublishAsync: { op: 'publish', args: ['exchange', 'routingKey'] },
  QueueBind: { op: 'bind', args: ['queue', 'exchange', 'routingKey'] },
  QueueBindAsync: { op: 'bind', args: ['queue', 'exchange', 'routingKey'] },
  BasicConsume: { op: 'consume', args: ['queue'] },
  BasicConsumeAsync: { op: 'consume', args: ['queue'] },
  ExchangeDeclare: { op: 'exchange', args: ['exchange', 'type'] },
  ExchangeDeclareAsync: { op: 'exchange', args: ['exchange', 'type'] },
};
const EXCHANGE_TYPES = new Set(['direct', 'topic', 'fanout', 'headers']);
/** Parameters whose value is the application's configuration itself (one per process under DI). */
const CONFIG_TYPE = /^(Microsoft\.Extensions\.Configuration\.)?IConfiguration(Root|Manager)?$|^ConfigurationManager$/;

const named = (n: Node | null | undefined): Node[] =>
  (n?.namedChildren ?? []).filter((x): x is Node => x !== null && x.type !== 'comment');

function argOf(arg: Node): { name?: string; expr: Node } {
  const label = arg.childForFieldName('name');
  const kids = named(arg);
  const expr = kids[kids.length - 1] ?? arg;
  return label && label.id !== expr.id ? { name: label.text, expr } : { expr };
}

const isRef = (p: Part | undefined, prefix: string): p is { ref: string } =>
  p !== undefined && 'ref' in p && p.ref.startsWith(prefix);

/** A configuration path one level deeper: `section["Key"]`, `section.GetSection("Key")`. */
function child(base: ObjValue, key: ObjValue): ObjValue {
  const head = base[0];
  if (head && 'ref' in head && head.ref === CONFIG_REF)
    return capped(base.length === 1 ? concat(base, key) : concat(base, lit(':'), key));
  // A parameter holding a section (`IConfigurationSection configSection`): bound at the call.
  if (base.length === 1 && isRef(head, PARAM_REF)) return capped(concat(base, lit(':'), key));
  return [HOLE_PART];
}

/**
 * Whether a class's text holds what can make its summary `interesting` below: a broker call, a parameter of a
 * configuration type (the only source of `CONFIG_ROOT`), or an object created in a static class or an
 * extension method. The others (most classes) are not walked: visiting every node of every method body and
 * evaluating its locals cost more than the file's parse.
 */
function mayBeInteresting(text: string): boolean {
  return (
    /BasicPublish|QueueBind|BasicConsume|ExchangeDeclare|IConfiguration|ConfigurationManager/.test(text) ||
    (/\bnew\b/.test(text) && /\b(static|this)\s/.test(text))
  );
}

/**
 * Summarises a C# class declaration, or returns undefined when it does nothing a call site could
 * instantiate (no messaging call, no object created, no field set from configuration).
 * `evaluate` is the file's own evaluator, used for what is not a parameter, field or configuration.
 */
export function summariseCsharpClass(cls: Node, file: string, evaluate: (n: Node) => Part[]): ObjClass | undefined {
  const name = cls.childForFieldName('name')?.text;
  const body = cls.childForFieldName('body');
  if (!name || !body || !mayBeInteresting(cls.text)) return undefined;
  const fields = new Set<string>();
  const consts = new Map<string, Node>();
  for (const m of named(body)) {
    if (m.type !== 'field_declaration' && m.type !== 'property_declaration') continue;
    const isConst = named(m).some((x) => x.type === 'modifier' && x.text === 'const');
    if (m.type === 'property_declaration') {
      const n = m.childForFieldName('name')?.text;
      if (n) fields.add(n);
      continue;
    }
    const decl = named(m).find((x) => x.type === 'variable_declaration');
    for (const v of named(decl).filter((x) => x.type === 'variable_declarator')) {
      const n = v.childForFieldName('name')?.text;
      const init = named(v).filter((x) => x.id !== v.childForFieldName('name')?.id)[0];
      if (!n) continue;
      if (isConst && init) consts.set(n, init);
      else fields.add(n);
    }
  }
  let interesting = false;
  const isStatic = named(cls).some((x) => x.type === 'modifier' && x.text === 'static');

  function method(decl: Node): ObjMethod {
    const params: string[] = [];
    const extension = named(decl.childForFieldName('parameters')).some((p) => /^this\s/.test(p.text));
    const locals = new Map<string, ObjValue>();
    for (const p of named(decl.childForFieldName('parameters'))) {
      if (p.type !== 'parameter') continue;
      const pn = p.childForFieldName('name')?.text.replace(/^@/, '');
      if (!pn) continue;
      // An extension method's `this` parameter is the call's receiver, not an argument.
      if (/^this\s/.test(p.text)) continue;
      params.push(pn);
      if (CONFIG_TYPE.test(p.childForFieldName('type')?.text ?? '')) locals.set(pn, [CONFIG_ROOT]);
    }
    const effects: ObjEffect[] = [];
    const push = (e: ObjEffect): void => {
      if (effects.length < MAX_EFFECTS) effects.push(e);
    };

    const value = (n: Node | null | undefined, depth = 0): ObjValue => {
      if (!n || depth > MAX_DEPTH) return [HOLE_PART];
      switch (n.type) {
        case 'identifier': {
          const t = n.text;
          const local = locals.get(t);
          if (local) return local;
          if (params.includes(t)) return [{ ref: `${PARAM_REF}${t}` }];
          if (fields.has(t)) return [{ ref: `${FIELD_REF}${t}` }];
          const c = consts.get(t);
          return c ? value(c, depth + 1) : evaluate(n);
        }
        case 'member_access_expression': {
          const obj = n.childForFieldName('expression');
          const m = n.childForFieldName('name')?.text ?? '';
          // `this._exchange`, `Configuration._exchange`: the field.
          if ((!obj || obj.type === 'this_expression' || obj.text === 'this' || obj.text === name) && fields.has(m))
            return [{ ref: `${FIELD_REF}${m}` }];
          // `config.GetSection("A").Value`: the section's own value.
          if (m === 'Value' && obj) {
            const v = value(obj, depth + 1);
            if (v[0] && 'ref' in v[0] && v[0].ref === CONFIG_REF) return v;
          }
          return evaluate(n);
        }
        case 'parenthesized_expression':
        case 'postfix_unary_expression':
        case 'await_expression':
        case 'cast_expression': {
          const kids = named(n);
          return value(kids[kids.length - 1], depth + 1);
        }
        case 'binary_expression': {
          const op = n.childForFieldName('operator')?.text;
          const l = value(n.childForFieldName('left'), depth + 1);
          if (op === '+') return capped(concat(l, value(n.childForFieldName('right'), depth + 1)));
          if (op === '??') {
            const r = value(n.childForFieldName('right'), depth + 1);
            // `section["Key"] ?? ""`: the setting with its default, once bound (see `fallbackOf`).
            return r.length === 1 && 'lit' in r[0]! ? concat(l, [{ ref: `${FALLBACK}${r[0].lit}` }]) : l;
          }
          return [HOLE_PART];
        }
        case 'element_access_expression': {
          const base = value(n.childForFieldName('expression'), depth + 1);
          const arg = named(n.childForFieldName('subscript') ?? named(n)[1])[0];
          return arg ? child(base, value(argOf(arg).expr, depth + 1)) : [HOLE_PART];
        }
        case 'invocation_expression': {
          const fn = n.childForFieldName('function');
          const args = named(n.childForFieldName('arguments')).map((a) => argOf(a).expr);
          if (fn?.type === 'member_access_expression') {
            const nameNode = fn.childForFieldName('name');
            const m = (nameNode?.type === 'generic_name' ? named(nameNode)[0]?.text : nameNode?.text) ?? '';
            const obj = fn.childForFieldName('expression');
            if ((m === 'GetSection' || m === 'GetRequiredSection' || m === 'GetValue') && obj && args[0]) {
              const base = value(obj, depth + 1);
              if ((base[0] && 'ref' in base[0] && base[0].ref === CONFIG_REF) || isRef(base[0], PARAM_REF))
                return child(base, value(args[0], depth + 1));
            }
          }
          return evaluate(n);
        }
        default:
          return evaluate(n);
      }
    };

    const visit = (n: Node, depth: number): void => {
      if (depth > 64) return;
      switch (n.type) {
        case 'local_function_statement':
        case 'class_declaration':
          return;
        case 'variable_declarator': {
          const vn = n.childForFieldName('name')?.text;
          const init = named(n).filter((x) => x.id !== n.childForFieldName('name')?.id)[0];
          if (init) visit(init, depth + 1);
          if (vn && init) locals.set(vn, value(init));
          return;
        }
        case 'assignment_expression': {
          const left = n.childForFieldName('left');
          const right = n.childForFieldName('right');
          if (right) visit(right, depth + 1);
          if (!left || !right || n.childForFieldName('operator')?.text !== '=') return;
          let target: string | undefined;
          if (left.type === 'identifier') target = left.text;
          else if (left.type === 'member_access_expression') {
            const obj = left.childForFieldName('expression');
            if (!obj || obj.type === 'this_expression' || obj.text === 'this' || obj.text === name)
              target = left.childForFieldName('name')?.text;
          }
          if (!target) return;
          if (locals.has(target) || !fields.has(target)) {
            locals.set(target, value(right));
            return;
          }
          const v = value(right);
          if (v.some((p) => 'ref' in p && p.ref === CONFIG_REF)) interesting = true;
          const created = right.type === 'object_creation_expression' ? creation(right) : undefined;
          if (created) push({ ...created, field: target });
          else push({ op: 'set', field: target, value: v });
          return;
        }
        case 'object_creation_expression': {
          for (const c of named(n)) visit(c, depth + 1);
          const created = creation(n);
          if (created) push(created);
          return;
        }
        case 'invocation_expression': {
          for (const c of named(n)) visit(c, depth + 1);
          invocation(n);
          return;
        }
        default:
          for (const c of named(n)) visit(c, depth + 1);
      }
    };

    const creation = (n: Node): Extract<ObjEffect, { op: 'new' }> | undefined => {
      const type = n.childForFieldName('type');
      const cls = (type?.type === 'generic_name' ? named(type)[0]?.text : type?.text)?.replace(/^.*\./, '');
      const args = named(n.childForFieldName('arguments')).map((a) => value(argOf(a).expr));
      if (!cls || !/^[A-Z]/.test(cls) || args.length === 0) return undefined;
      // Objects created by a registration helper (an extension method, a static class) are what services get.
      if (extension || isStatic) interesting = true;
      return { op: 'new', cls, args };
    };

    const invocation = (n: Node): void => {
      const fn = n.childForFieldName('function');
      const nameNode = fn?.type === 'member_access_expression' ? fn.childForFieldName('name') : fn;
      const callee = (nameNode?.type === 'generic_name' ? named(nameNode)[0]?.text : nameNode?.text) ?? '';
      const argNodes = named(n.childForFieldName('arguments')).map(argOf);
      const broker = BROKER[callee];
      if (broker) {
        // Named arguments first (`routingKey: key`), else by position.
        const at = (label: string): ObjValue => {
          const byName = argNodes.find((a) => a.name === label);
          const i = broker.args.indexOf(label);
          const a = byName ?? (argNodes[i]?.name === undefined ? argNodes[i] : undefined);
          return a ? value(a.expr) : [HOLE_PART];
        };
        const line = n.startPosition.row + 1;
        interesting = true;
        if (broker.op === 'publish') push({ op: 'publish', exchange: at('exchange'), key: at('routingKey'), line });
        else if (broker.op === 'bind')
          push({ op: 'bind', queue: at('queue'), exchange: at('exchange'), key: at('routingKey'), line });
        else if (broker.op === 'consume') push({ op: 'consume', queue: at('queue'), line });
        else {
          const t = at('type');
          const type = t.length === 1 && 'lit' in t[0]! ? t[0].lit.toLowerCase() : undefined;
          // `ExchangeType.Fanout`: the constant's name.
          const constant = /ExchangeType\.(\w+)$/.exec(argNodes[1]?.expr.text ?? '')?.[1]?.toLowerCase();
          const kind = type ?? constant;
          if (kind && EXCHANGE_TYPES.has(kind))
            push({ op: 'exchange', name: at('exchange'), type: kind as ExchangeType, line });
        }
        return;
      }
      // A method of the class itself: `Helper(x)`, `this.Helper(x)`, `Configuration.Helper(x)`.
      const obj = fn?.type === 'member_access_expression' ? fn.childForFieldName('expression') : undefined;
      const own = !obj || obj.type === 'this_expression' || obj.text === 'this' || obj.text === name;
      if (own && callee && methodNames.has(callee))
        push({ op: 'call', method: callee, args: argNodes.map((a) => value(a.expr)) });
    };

    // `: this(…)` runs first.
    const init = named(decl).find((x) => x.type === 'constructor_initializer');
    if (init && /^:\s*this\b/.test(init.text))
      push({
        op: 'call',
        method: '.ctor',
        args: named(named(init).find((x) => x.type === 'argument_list')).map((a) => value(argOf(a).expr)),
      });
    const b = decl.childForFieldName('body') ?? named(decl).find((x) => x.type === 'arrow_expression_clause');
    if (b) visit(b, 0);
    const isStaticMethod = extension || named(decl).some((x) => x.type === 'modifier' && x.text === 'static');
    return {
      name: decl.childForFieldName('name')?.text ?? '',
      params,
      ...(isStaticMethod ? { static: true } : {}),
      effects,
    };
  }

  const methodNames = new Set(
    named(body)
      .filter((m) => m.type === 'method_declaration')
      .map((m) => m.childForFieldName('name')?.text ?? ''),
  );
  const ctors: ObjMethod[] = [];
  const methods: ObjMethod[] = [];
  for (const m of named(body)) {
    if (m.type === 'constructor_declaration') ctors.push({ ...method(m), name: '.ctor' });
    else if (m.type === 'method_declaration') methods.push(method(m));
  }
  if (!interesting) return undefined;
  const kept = (list: ObjMethod[]): ObjMethod[] => list.filter((m) => m.effects.length > 0 || list === ctors);
  return { name, file, ctors, methods: kept(methods) };
}

/** `x ?? "d"` after a configuration path: the default it takes when the setting is absent. */
export const FALLBACK = '\u0003d:';

/** Sites kept per file: a generated file with thousands of calls stays cheap. */
export const MAX_SITES_PER_FILE = 400;

/**
 * An argument at a call site as an object summary sees it: the configuration (`builder.Configuration`,
 * `hostContext.Configuration`) and its sections (`configuration.GetSection("Bus")`) as configuration
 * paths, anything else through the file's evaluator.
 */
export function siteValue(n: Node, evaluate: (n: Node) => Part[], depth = 0): ObjValue {
  if (depth > MAX_DEPTH) return [HOLE_PART];
  if ((n.type === 'identifier' || n.type === 'member_access_expression') && /(^|\.)[Cc]onfig(uration)?$/.test(n.text))
    return [CONFIG_ROOT];
  if (n.type === 'invocation_expression') {
    const fn = n.childForFieldName('function');
    const m = fn?.type === 'member_access_expression' ? fn.childForFieldName('name')?.text : undefined;
    const obj = fn?.type === 'member_access_expression' ? fn.childForFieldName('expression') : null;
    const arg = named(n.childForFieldName('arguments'))[0];
    if ((m === 'GetSection' || m === 'GetRequiredSection') && obj && arg) {
      const base = siteValue(obj, evaluate, depth + 1);
      if (base[0] && 'ref' in base[0] && base[0].ref === CONFIG_REF) return child(base, evaluate(argOf(arg).expr));
    }
  }
  return evaluate(n);
}

/** A method of a class as a front-end reads it: its parameters, defaults and line span. */
export interface MethodSpan {
  readonly name: string;
  readonly params: readonly string[];
  readonly defaults?: readonly (Part[] | null)[];
  readonly start: number;
  readonly end: number;
}

/**
 * A class summarised from what its file's rules found (Java, Python): the constructor sets each field the
 * front-end read from its arguments (`self.base_url = base_url`), and each other method's HTTP calls and
 * publishes whose names use those fields (`Sink.fieldUses`, made by the same rules as every other fact)
 * are its effects, the method's own parameters left to its callers. Undefined when no method uses a field.
 */
export function summariseFromUses(
  name: string,
  file: string,
  ctor: { params: readonly string[]; defaults?: readonly (Part[] | null)[]; sets: readonly [string, Part[]][] },
  methods: readonly MethodSpan[],
  uses: readonly FieldUse[],
): ObjClass | undefined {
  const fields = new Set(ctor.sets.map(([f]) => f));
  const symbolic = (v: readonly Part[], params: readonly string[]): Part[] =>
    capped(
      v.map((p) => {
        if (!('ref' in p)) return p;
        if (params.includes(p.ref)) return { ref: `${PARAM_REF}${p.ref}` };
        return isFieldRef(p) && fields.has(p.ref.slice(FIELD_REF.length)) ? p : isFieldRef(p) ? HOLE_PART : p;
      }),
    );
  const out: ObjMethod[] = [];
  for (const m of methods) {
    const effects: ObjEffect[] = [];
    for (const u of uses) {
      if (u.loc.line < m.start || u.loc.line > m.end || effects.length >= MAX_EFFECTS) continue;
      const refs = fieldUseParts(u).filter(isFieldRef);
      if (!refs.every((r) => 'ref' in r && fields.has(r.ref.slice(FIELD_REF.length)))) continue;
      if (u.kind === 'http')
        effects.push({
          op: 'http',
          method: u.method,
          url: symbolic(u.url, m.params),
          client: u.client,
          line: u.loc.line,
        });
      else if (u.kind === 'consume')
        effects.push({ op: 'consume', queue: symbolic(u.queue, m.params), line: u.loc.line });
      else
        effects.push({
          op: 'publish',
          broker: u.broker,
          exchange: symbolic(u.exchange, m.params),
          key: symbolic(u.key, m.params),
          line: u.loc.line,
        });
    }
    if (effects.length)
      out.push({
        name: m.name,
        params: m.params,
        ...(m.defaults ? { defaults: m.defaults.map((d) => (d ? symbolic(d, []) : null)) } : {}),
        effects,
      });
  }
  if (out.length === 0) return undefined;
  const init: ObjMethod = {
    name: '.ctor',
    params: ctor.params,
    ...(ctor.defaults ? { defaults: ctor.defaults.map((d) => (d ? symbolic(d, []) : null)) } : {}),
    effects: ctor.sets.map(([field, v]) => ({ op: 'set', field, value: symbolic(v, ctor.params) })),
  };
  return { name, file, ctors: [init], methods: out };
}
