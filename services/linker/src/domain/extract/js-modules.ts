import type { JsClass, JsEffect, JsFunction, JsModule, JsPackage, JsSite, JsVal } from '../js-values';
import type { Node } from '../parsers';
import { walk } from './common';

/**
 * One JavaScript/TypeScript file as a module (`js-values.ts`): its imports, re-exports, top-level constants,
 * functions and classes with their NATS operations, and the calls inside them, all symbolic. Values are
 * linked across files and packages once every source is read (`js-flows.ts`), not here.
 */

const UNKNOWN: JsVal = { unknown: true };
/** Files that speak NATS: their publish/subscribe calls and consumer configurations are operations. */
const NATS_FILE = /['"](?:nats|nats\.ws|node-nats-streaming|@nats-io\/[\w-]+)['"]/;
const PUBLISH = new Set(['publish', 'request']);
const SUBSCRIBE = new Set(['subscribe', 'pullSubscribe', 'queueSubscribe']);
/** Calls that read messages from a JetStream consumer. */
const FETCH = new Set(['fetch', 'consume', 'next', 'pull']);
const FUNCTION_TYPES = new Set([
  'function_declaration',
  'generator_function_declaration',
  'function_expression',
  'function',
  'arrow_function',
  'method_definition',
]);
/** The nodes the module's walk visits (the file's rules capture them too, so that walk reuses theirs). */
export const JS_MODULE_TYPES: ReadonlySet<string> = new Set([
  'variable_declarator',
  'call_expression',
  'new_expression',
  'assignment_expression',
  'pair',
  'return_statement',
]);
/** Bounds: nesting of one value, values per file. */
const MAX_DEPTH = 10;
const MAX_NODES = 20_000;

type Scope = Map<string, JsVal>;

interface Span {
  readonly start: number;
  readonly end: number;
  readonly node: Node;
  readonly name: string;
  readonly scope: Scope;
  readonly effects: JsEffect[];
  readonly sets?: Record<string, JsVal>;
  readonly isCtor: boolean;
  readonly params: number;
}

const stringText = (n: Node): string =>
  n.namedChildren
    .filter((c) => c !== null)
    .map((c) => (c.type === 'escape_sequence' ? JSON.parse(`"${c.text}"`) : c.text) as string)
    .join('');

function moduleSpec(n: Node | null): string | undefined {
  return n?.type === 'string' ? stringText(n) : undefined;
}

/** Extracts the module facts of one parsed JavaScript/TypeScript file. */
export function jsModule(root: Node, file: string, text: string): JsModule {
  const nats = NATS_FILE.test(text);
  const imports: Record<string, { from: string; name: string }> = {};
  const reexports: { from: string; names?: Record<string, string> }[] = [];
  const values: Record<string, JsVal> = {};
  const classes: JsClass[] = [];
  const spans: Span[] = [];
  const sites: JsSite[] = [];
  const moduleEffects: JsEffect[] = [];
  /** The functions (null: the module's top level) that fetch from a JetStream consumer or subscribe. */
  const fetching = new Set<Span | null>();
  let budget = MAX_NODES;

  const evaluate = (n: Node | null | undefined, scope: Scope, depth = 0): JsVal => {
    if (!n || depth > MAX_DEPTH || --budget < 0) return UNKNOWN;
    const sub = (x: Node | null | undefined): JsVal => evaluate(x, scope, depth + 1);
    switch (n.type) {
      case 'string':
        return { s: stringText(n) };
      case 'number':
        return { s: n.text };
      case 'template_string': {
        const parts: JsVal[] = [];
        for (const c of n.namedChildren) {
          if (!c) continue;
          if (c.type === 'string_fragment') parts.push({ s: c.text });
          else if (c.type === 'template_substitution') parts.push(sub(c.namedChildren[0]));
        }
        return { cat: parts };
      }
      case 'identifier':
      case 'shorthand_property_identifier':
        return n.text === 'undefined' ? UNKNOWN : (scope.get(n.text) ?? { id: n.text });
      case 'this':
        return { id: 'this' };
      case 'member_expression':
      case 'subscript_expression': {
        const prop =
          n.type === 'member_expression'
            ? n.childForFieldName('property')?.text
            : (() => {
                const i = n.childForFieldName('index');
                return i?.type === 'string' ? stringText(i) : undefined;
              })();
        if (prop === undefined) return UNKNOWN;
        const obj = n.childForFieldName('object');
        if (obj?.type === 'member_expression' && obj.text === 'process.env') return { env: prop };
        return member(sub(obj), prop);
      }
      case 'call_expression': {
        const fn = n.childForFieldName('function');
        if (fn?.type === 'import') return UNKNOWN;
        return { call: sub(fn), args: args(n.childForFieldName('arguments'), scope, depth) };
      }
      case 'new_expression':
        return {
          new: sub(n.childForFieldName('constructor')),
          args: args(n.childForFieldName('arguments'), scope, depth),
        };
      case 'object': {
        const obj: Record<string, JsVal> = {};
        const spreads: JsVal[] = [];
        for (const c of n.namedChildren) {
          if (!c) continue;
          if (c.type === 'pair') {
            const k = c.childForFieldName('key');
            const key =
              k?.type === 'string' ? stringText(k) : k?.type === 'computed_property_name' ? undefined : k?.text;
            if (key !== undefined && key !== '__proto__') obj[key] = sub(c.childForFieldName('value'));
          } else if (c.type === 'shorthand_property_identifier') obj[c.text] = sub(c);
          else if (c.type === 'spread_element') spreads.push(sub(c.namedChildren[0]));
        }
        return spreads.length ? { obj, spreads } : { obj };
      }
      case 'array':
        return { arr: n.namedChildren.filter((c) => c !== null).map((c) => sub(c)) };
      case 'ternary_expression':
        return { alt: [sub(n.childForFieldName('consequence')), sub(n.childForFieldName('alternative'))] };
      case 'binary_expression': {
        const op = n.childForFieldName('operator')?.text;
        const l = sub(n.childForFieldName('left'));
        const r = sub(n.childForFieldName('right'));
        if (op === '??' || op === '||') return { alt: [l, r] };
        if (op === '+') return { cat: [l, r] };
        return op === '&&' ? r : UNKNOWN;
      }
      case 'parenthesized_expression':
      case 'as_expression':
      case 'satisfies_expression':
      case 'non_null_expression':
      case 'await_expression':
      case 'type_assertion':
        return sub(n.namedChildren.find((c) => c !== null && !/type|predefined/.test(c.type)) ?? null);
      default:
        return UNKNOWN;
    }
  };
  const args = (a: Node | null, scope: Scope, depth: number): JsVal[] =>
    (a?.namedChildren ?? []).filter((c) => c !== null).map((c) => evaluate(c, scope, depth + 1));

  const fileScope: Scope = new Map();
  const functions: JsFunction[] = [];
  const returns = new Map<Span, Node[]>();

  /** A function's span with its parameters in its scope (`$0`…; destructured ones as members of `$i`). */
  const addFunction = (name: string, fn: Node, isCtor = false): void => {
    const scope: Scope = new Map();
    const sets: Record<string, JsVal> = {};
    const params = fn.childForFieldName('parameters') ?? fn.childForFieldName('parameter');
    const list = params?.type === 'formal_parameters' ? params.namedChildren : params ? [params] : [];
    let i = 0;
    for (const p of list) {
      if (!p || p.type === 'comment') continue;
      const id = `$${i++}`;
      const pattern = p.type === 'identifier' ? p : (p.childForFieldName('pattern') ?? p);
      if (pattern.type === 'identifier') {
        scope.set(pattern.text, { id });
        if (isCtor && p.namedChildren.some((c) => c?.type === 'accessibility_modifier' || c?.text === 'readonly'))
          sets[pattern.text] = { id };
      } else if (pattern.type === 'object_pattern')
        for (const c of pattern.namedChildren) {
          if (c?.type === 'shorthand_property_identifier_pattern') scope.set(c.text, { id, path: [c.text] });
          else if (c?.type === 'pair_pattern') {
            const v = c.childForFieldName('value');
            if (v?.type === 'identifier') scope.set(v.text, { id, path: [c.childForFieldName('key')?.text ?? ''] });
          }
        }
    }
    const span: Span = {
      start: fn.startIndex,
      end: fn.endIndex,
      node: fn,
      name,
      scope,
      effects: [],
      isCtor,
      params: i,
      ...(isCtor ? { sets } : {}),
    };
    spans.push(span);
    const body = fn.childForFieldName('body');
    if (fn.type === 'arrow_function' && body && body.type !== 'statement_block') returns.set(span, [body]);
  };

  const topLevel = (st: Node): void => {
    switch (st.type) {
      case 'import_statement': {
        const from = moduleSpec(st.childForFieldName('source'));
        if (!from) return;
        const clause = st.namedChildren.find((c) => c?.type === 'import_clause');
        for (const c of clause?.namedChildren ?? []) {
          if (!c) continue;
          if (c.type === 'identifier') imports[c.text] = { from, name: 'default' };
          else if (c.type === 'namespace_import') {
            const id = c.namedChildren.find((x) => x?.type === 'identifier');
            if (id) imports[id.text] = { from, name: '*' };
          } else if (c.type === 'named_imports')
            for (const s of c.namedChildren) {
              if (s?.type !== 'import_specifier') continue;
              const name = s.childForFieldName('name')?.text;
              const alias = s.childForFieldName('alias')?.text ?? name;
              if (name && alias) imports[alias] = { from, name };
            }
        }
        return;
      }
      case 'export_statement': {
        const from = moduleSpec(st.childForFieldName('source'));
        const clause = st.namedChildren.find((c) => c?.type === 'export_clause');
        if (from !== undefined) {
          if (!clause) {
            reexports.push({ from });
            return;
          }
          const names: Record<string, string> = {};
          for (const s of clause.namedChildren) {
            const name = s?.childForFieldName('name')?.text;
            if (name) names[s.childForFieldName('alias')?.text ?? name] = name;
          }
          reexports.push({ from, names });
          return;
        }
        if (clause) {
          for (const s of clause.namedChildren) {
            const name = s?.childForFieldName('name')?.text;
            const alias = s?.childForFieldName('alias')?.text;
            if (name && alias && alias !== name) values[alias] = { id: name };
          }
          return;
        }
        const decl = st.childForFieldName('declaration');
        if (decl) return topLevel(decl);
        const value = st.childForFieldName('value');
        if (value && FUNCTION_TYPES.has(value.type)) addFunction('default', value);
        else if (value) values.default = evaluate(value, fileScope);
        return;
      }
      case 'lexical_declaration':
      case 'variable_declaration':
        for (const d of st.namedChildren) {
          if (d?.type !== 'variable_declarator') continue;
          const name = d.childForFieldName('name');
          const value = d.childForFieldName('value');
          if (!name || !value) continue;
          const required = value.type === 'call_expression' && value.childForFieldName('function')?.text === 'require';
          const from = required
            ? moduleSpec(value.childForFieldName('arguments')?.namedChildren[0] ?? null)
            : undefined;
          if (from !== undefined) {
            if (name.type === 'identifier') imports[name.text] = { from, name: '*' };
            else if (name.type === 'object_pattern')
              for (const c of name.namedChildren)
                if (c?.type === 'shorthand_property_identifier_pattern') imports[c.text] = { from, name: c.text };
          } else if (name.type === 'identifier') {
            if (FUNCTION_TYPES.has(value.type)) addFunction(name.text, value);
            else values[name.text] = evaluate(value, fileScope);
          }
        }
        return;
      case 'function_declaration':
      case 'generator_function_declaration': {
        const name = st.childForFieldName('name')?.text;
        if (name) addFunction(name, st);
        return;
      }
      case 'class_declaration':
      case 'abstract_class_declaration':
      case 'class': {
        const name = st.childForFieldName('name')?.text;
        if (!name) return;
        const heritage = st.namedChildren.find((c) => c?.type === 'class_heritage');
        const ext = heritage?.namedChildren.find((c) => c?.type === 'extends_clause')?.childForFieldName('value');
        const fields: Record<string, JsVal> = {};
        for (const m of st.childForFieldName('body')?.namedChildren ?? []) {
          if (!m) continue;
          const mname = m.childForFieldName('name')?.text;
          if (!mname) continue;
          if (m.type === 'public_field_definition' || m.type === 'field_definition') {
            const v = m.childForFieldName('value');
            if (v && !FUNCTION_TYPES.has(v.type)) fields[mname] = evaluate(v, fileScope);
            else if (v) addFunction(`${name}.${mname}`, v);
          } else if (m.type === 'method_definition') addFunction(`${name}.${mname}`, m, mname === 'constructor');
        }
        classes.push({ name, ...(ext ? { extends: ext.text.replace(/<.*$/s, '') } : {}), fields });
        return;
      }
      case 'enum_declaration': {
        const name = st.childForFieldName('name')?.text;
        if (!name) return;
        const obj: Record<string, JsVal> = {};
        for (const m of st.childForFieldName('body')?.namedChildren ?? []) {
          if (m?.type === 'enum_assignment') {
            const k = m.childForFieldName('name');
            const key = k?.type === 'string' ? stringText(k) : k?.text;
            if (key) obj[key] = evaluate(m.childForFieldName('value'), fileScope);
          } else if (m?.type === 'property_identifier') obj[m.text] = { s: m.text };
        }
        values[name] = { obj };
        return;
      }
      default:
    }
  };
  for (const st of root.namedChildren) if (st) topLevel(st);
  spans.sort((a, b) => a.start - b.start);

  // The innermost function (of those above) holding a position: nested callbacks count as their function's.
  const spanAt = (index: number): Span | undefined => {
    let found: Span | undefined;
    for (const s of spans) {
      if (s.start > index) break;
      if (index < s.end) found = s;
    }
    return found;
  };
  const enclosingFunction = (n: Node): Node | null => {
    for (let p = n.parent; p; p = p.parent) if (FUNCTION_TYPES.has(p.type)) return p;
    return null;
  };
  const topScope: Scope = new Map();
  // A call worth keeping starts from a name of the module (an import, a constant, a function, a class).
  const known = new Set([
    ...Object.keys(imports),
    ...Object.keys(values),
    ...spans.map((s) => s.name.split('.')[0]!),
    ...classes.map((c) => c.name),
  ]);
  const relevant = (v: JsVal): boolean => {
    const r = rootId(v);
    return r !== undefined && known.has(r);
  };

  walk(root, JS_MODULE_TYPES, (n, type) => {
    const span = spanAt(n.startIndex);
    const scope = span?.scope ?? topScope;
    const line = n.startPosition.row + 1;
    switch (type) {
      case 'variable_declarator': {
        // Locals of a function, first assignment wins (a module's own constants are `values`).
        const name = n.childForFieldName('name');
        const value = n.childForFieldName('value');
        if (span && name?.type === 'identifier' && value && !scope.has(name.text) && !FUNCTION_TYPES.has(value.type))
          scope.set(name.text, evaluate(value, scope));
        return;
      }
      case 'assignment_expression': {
        const left = n.childForFieldName('left');
        if (span?.sets && left?.type === 'member_expression' && left.childForFieldName('object')?.type === 'this') {
          const field = left.childForFieldName('property')?.text;
          if (field && !(field in span.sets)) span.sets[field] = evaluate(n.childForFieldName('right'), scope);
        }
        return;
      }
      case 'return_statement':
        if (span && enclosingFunction(n)?.id === span.node.id && n.namedChildren[0])
          returns.set(span, [...(returns.get(span) ?? []), n.namedChildren[0]]);
        return;
      case 'pair': {
        // A JetStream consumer configuration (`{ durable_name, filter_subject(s) }`) consumes its subjects.
        const key = n.childForFieldName('key')?.text.replace(/['"]/g, '');
        if (!nats || (key !== 'filter_subject' && key !== 'filter_subjects')) return;
        const cfg = evaluate(n.parent, scope);
        if (!('obj' in cfg)) return;
        const call = n.parent?.parent?.type === 'arguments' ? n.parent.parent.parent : null;
        const streamArg =
          call?.type === 'call_expression' && n.parent?.parent?.namedChildren[0]?.id !== n.parent?.id
            ? evaluate(n.parent!.parent!.namedChildren[0], scope)
            : undefined;
        const stream = cfg.obj.stream ?? streamArg;
        const durable = cfg.obj.durable_name ?? cfg.obj.durable ?? cfg.obj.name;
        (span?.effects ?? moduleEffects).push({
          op: 'declare',
          broker: 'nats',
          subject: cfg.obj[key]!,
          ...(stream ? { stream } : {}),
          ...(durable ? { durable } : {}),
          line: (call ?? n).startPosition.row + 1,
        });
        return;
      }
      default:
    }
    // Calls: a NATS operation, or a site where a summary may be instantiated.
    const fn = n.childForFieldName(type === 'new_expression' ? 'constructor' : 'function');
    if (!fn) return;
    const argNodes = (n.childForFieldName('arguments')?.namedChildren ?? []).filter((c) => c !== null);
    if (fn.type === 'member_expression') {
      const method = fn.childForFieldName('property')?.text ?? '';
      // A call on an object of the project: a site where that object's summary may be instantiated.
      const siteOn = (target: ReturnType<typeof evaluate>): void => {
        if (relevant(target))
          sites.push({
            ...(span ? { fn: span.name } : {}),
            callee: target,
            method,
            args: argNodes.map((a) => evaluate(a, scope)),
            line,
          });
      };
      if (nats && type === 'call_expression' && (PUBLISH.has(method) || SUBSCRIBE.has(method)) && argNodes[0]) {
        if (SUBSCRIBE.has(method)) fetching.add(span ?? null);
        const subject = evaluate(argNodes[0], scope);
        const opts = argNodes[1] ? evaluate(argNodes[1], scope) : undefined;
        // node-nats-streaming: subscribe(subject, queueGroup, options); nats.js: subscribe(subject, { queue }).
        const group =
          opts && 'obj' in opts ? opts.obj.queue : argNodes[2] && opts && !('obj' in opts) ? opts : undefined;
        (span?.effects ?? moduleEffects).push({
          op: PUBLISH.has(method) ? 'publish' : 'consume',
          broker: 'nats',
          subject,
          ...(group && !PUBLISH.has(method) ? { group } : {}),
          line,
        });
        // A call on an object of the project (`new TicketUpdatedPublisher(client).publish(data)`, a file that
        // imports the client library only for a type) is also a site: its own summary says what it does.
        siteOn(evaluate(fn.childForFieldName('object'), scope));
        return;
      }
      const obj = fn.childForFieldName('object');
      const consumers = obj?.type === 'member_expression' && obj.childForFieldName('property')?.text === 'consumers';
      if (nats && type === 'call_expression' && (FETCH.has(method) || (method === 'get' && consumers))) {
        fetching.add(span ?? null);
        // `js.consumers.get(stream, durable)`: the durable consumer, whatever declared its subjects.
        if (method === 'get')
          (span?.effects ?? moduleEffects).push({
            op: 'attach',
            broker: 'nats',
            subject: UNKNOWN,
            ...(argNodes[0] ? { stream: evaluate(argNodes[0], scope) } : {}),
            ...(argNodes[1] ? { durable: evaluate(argNodes[1], scope) } : {}),
            line,
          });
      }
      siteOn(evaluate(obj, scope));
      return;
    }
    // An HTTP call whose URL is built from the function's parameters: a wrapper, summarised for its callers.
    if (span && type === 'call_expression' && fn.type === 'identifier' && fn.text === 'fetch' && argNodes[0]) {
      const url = evaluate(argNodes[0], scope);
      const init = argNodes[1] ? evaluate(argNodes[1], scope) : undefined;
      // Its URL from the parameters, or its method from a helper's returned options: followed at link time.
      if (JSON.stringify(url).includes('"id":"$') || (init !== undefined && 'call' in init)) {
        span.effects.push({
          op: 'http',
          broker: 'http',
          subject: url,
          method: init ? member(init, 'method') : { s: 'GET' },
          line,
        });
      }
    }
    const callee = evaluate(fn, scope);
    if (type === 'new_expression' || !relevant(callee)) return;
    sites.push({ ...(span ? { fn: span.name } : {}), callee, args: argNodes.map((a) => evaluate(a, scope)), line });
  });

  // A consumer configuration in a function that also fetches (a worker) is that function's consumer.
  const consuming = (effects: JsEffect[], fetches: boolean): JsEffect[] =>
    fetches ? effects.map((e) => (e.op === 'declare' ? { ...e, op: 'consume' } : e)) : effects;
  for (const s of spans) {
    s.effects.splice(0, s.effects.length, ...consuming(s.effects, fetching.has(s)));
    const rs = returns.get(s);
    functions.push({
      name: s.name,
      params: s.params,
      ...(rs?.length === 1 ? { returns: evaluate(rs[0], s.scope) } : {}),
      effects: s.effects,
      ...(s.sets && Object.keys(s.sets).length ? { sets: s.sets } : {}),
    });
  }
  if (moduleEffects.length)
    functions.push({ name: '', params: 0, effects: consuming(moduleEffects, fetching.has(null)) });
  return { file, imports, reexports, values, functions, classes, sites };
}

/** The name a callee starts from (`X` of `new X(c).publish`, `f` of `f(a)(b)`). */
function rootId(v: JsVal): string | undefined {
  if ('id' in v) return v.id;
  if ('new' in v) return rootId(v.new);
  if ('call' in v) return rootId(v.call);
  return undefined;
}

/** `v.prop`: a member of an object literal, or a longer path on a name. */
function member(v: JsVal, prop: string): JsVal {
  if ('id' in v) return { id: v.id, path: [...(v.path ?? []), prop] };
  if ('obj' in v && Object.prototype.hasOwnProperty.call(v.obj, prop)) return v.obj[prop]!;
  // `{ ...options, headers }`: the member comes from a spread (the last that has it, at link time).
  if ('obj' in v && v.spreads?.length) return { alt: [...v.spreads].reverse().map((x) => member(x, prop)) };
  if ('call' in v) return { call: v.call, args: v.args, path: [...(v.path ?? []), prop] };
  return UNKNOWN;
}

/** A package.json's npm name and entry (`exports["."]` source condition, `module`, `main`), for imports of it. */
export function jsPackage(path: string, text: string): JsPackage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!json || typeof json !== 'object') return undefined;
  const pkg = json as { name?: unknown; main?: unknown; module?: unknown; exports?: unknown };
  if (typeof pkg.name !== 'string' || !pkg.name) return undefined;
  const dot =
    pkg.exports && typeof pkg.exports === 'object' ? (pkg.exports as Record<string, unknown>)['.'] : pkg.exports;
  // A source condition (`"@org/source": "./src/index.ts"`, `"development"`) points at code the linker reads.
  const conditions = dot && typeof dot === 'object' ? Object.values(dot as Record<string, unknown>) : [dot];
  const entries = [...conditions, pkg.module, pkg.main].filter((x): x is string => typeof x === 'string');
  const entry = entries.find((e) => /\.[cm]?tsx?$/.test(e)) ?? entries[0];
  return { dir: path.slice(0, Math.max(0, path.lastIndexOf('/'))), name: pkg.name, ...(entry ? { entry } : {}) };
}
