import { posix } from 'node:path';
import type { Node } from '../parsers';
import type { HttpMethod, Part } from '../model';
import { joinPath } from '../routes';
import {
  HOLE_PART,
  LIST_SEP,
  type CallSite,
  concat,
  conditionalValue,
  declaredQueueName,
  httpMethod,
  lineOf,
  lit,
  literal,
  nameOf,
  type HttpWrapper,
  sharedCallRules,
  sharedRuleName,
  withBase,
  paramPart,
  summarisable,
  returnStatements,
  type Within,
} from './common';
import { type LanguageRules, extractorOf, sqlStringRule } from './driver';
import { JS_GRPC } from './grpc';
import { JS_MODULE_TYPES } from './js-modules';
import { scanNest } from './nest-micro';
import { FUNCTIONS } from './scope';

const VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'del', 'all', 'head', 'options']);
/** Callee names this file's rules look at (besides the shared ones). */
/** httpdispatcher's route registrations (`dispatcher.onGet(path | regex, handler)`). */
const DISPATCHER_VERBS: Record<string, HttpMethod> = {
  onGet: 'GET',
  onPost: 'POST',
  onPut: 'PUT',
  onDelete: 'DELETE',
  onPatch: 'PATCH',
};

/**
 * A route given as an anchored regular expression (`/^\/ratings\/[0-9]*$/`): its literal segments, and a
 * parameter for each segment that is a pattern; undefined when a segment mixes both or uses alternation.
 */
function regexRoutePath(node: Node | undefined): string | undefined {
  if (node?.type !== 'regex') return undefined;
  const body = node.childForFieldName('pattern')?.text ?? '';
  if (!body.startsWith('^') || body.includes('|')) return undefined;
  const segments = body
    .slice(1)
    .replace(/\$$/, '')
    .replace(/\\\/\??$/, '')
    .split('\\/');
  if (segments[0] !== '') return undefined;
  const out: string[] = [];
  for (const seg of segments.slice(1)) {
    if (/^[\w-]+$/.test(seg) || (seg.includes('\\.') && /^[\w\\.-]+$/.test(seg))) out.push(seg.replace(/\\\./g, '.'));
    else if (/^\(?(\[[^\]/]+\]|\\[dw]|\.)[*+]\)?$/.test(seg)) out.push(`{p${out.length}}`);
    else return undefined;
  }
  return '/' + out.join('/');
}

const JS_NAMES = new Set([
  ...Object.keys(DISPATCHER_VERBS),
  ...VERBS,
  'fetch',
  'axios',
  'got',
  'ky',
  '$http',
  'request',
  'route',
  'knex',
  'model',
  'setGlobalPrefix',
  'enableVersioning',
  'ajax',
  'getJSON',
  'jsonp',
]);
/** Libraries whose call on a base URL returns an agent that makes requests under it (`supertest(url).post(path)`). */
const AGENT_LIBS = new Set(['supertest']);
const CLIENT_LIBS = new Set(['axios', 'got', 'ky', 'superagent', 'request', 'needle']);
const SERVER_NAMES = /^(app|router|server|fastify|api|routes|r)$/i;
/** The client of a call on an instance imported from another module, until the source says it is one. */
export const IMPORTED_CLIENT = 'imported instance';
/** `clientBases` key of the HTTP client instance a module creates (its path without extension follows). */
export const MODULE_BASE = 'jsmodule:';
/** Between a module's key and the key to use when that module creates no client (`clientClass`). */
export const MODULE_ELSE = '|else|';
const CLIENT_RECEIVER = /(^|\.)(\$?http|httpclient|client|apiclient|axios|got)$/i;
/** jQuery's `$` / `jQuery`: `$.ajax`, `$.get`, `$.post`, `$.getJSON`. */
const JQUERY = /^(\$|jQuery)$/;

const unquote = (s: string): string => s.slice(1, -1);

/** The module graph's nodes, and the returns `returnStatements` reads for each summarised function. */
const CAPTURED: ReadonlySet<string> = new Set([...JS_MODULE_TYPES, 'return_statement']);

const javaScriptRules: LanguageRules = ({ file, sink, scope }) => {
  /**
   * TypeScript: the declared type of a class member by its name (a constructor parameter property
   * `private readonly amqp: AmqpConnection` or a field with a modifier), read once per file.
   */
  let memberTypes: Map<string, string> | undefined;
  const declaredTypeOf = (node: Node, receiver: string): string | undefined => {
    memberTypes ??= new Map(
      [
        ...node.tree.rootNode.text.matchAll(
          /\b(?:private|public|protected|readonly)\s+(?:readonly\s+)?([A-Za-z_$][\w$]*)\s*[?!]?\s*:\s*([A-Z][\w$]*)/g,
        ),
      ].map((m) => [m[1]!, m[2]!] as const),
    );
    return memberTypes.get(receiver.replace(/^this\./, ''));
  };
  const servers = new Map<string, string>(); // var → framework
  const clients = new Map<string, Part[]>(); // var → base URL
  const mounts = new Map<string, string>(); // router var → prefix
  const routers = new Set<string>(); // vars holding an express.Router()
  const imports = new Map<string, string>(); // local name → module specifier
  const defaultImports = new Set<string>(); // local names of a module's default export (`import x from`, `require`)

  /** Local names of the environment object (`const env = process.env`). */
  const envAliases = new Set<string>();
  function evaluate(node: Node): Part[] {
    switch (node.type) {
      case 'string':
        return lit(unquote(node.text));
      case 'template_string': {
        const parts: Part[][] = [];
        for (const c of node.namedChildren) {
          if (!c) continue;
          if (c.type === 'template_substitution')
            parts.push(c.namedChild(0) ? evaluate(c.namedChild(0)!) : [HOLE_PART]);
          else parts.push(lit(c.text));
        }
        return concat(...parts);
      }
      case 'binary_expression': {
        const op = node.childForFieldName('operator')?.text;
        const l = node.childForFieldName('left');
        const r = node.childForFieldName('right');
        if (!l || !r) return [HOLE_PART];
        if (op === '+') return concat(evaluate(l), evaluate(r));
        if (op === '??' || op === '||') return withFallback(evaluate(l), evaluate(r));
        return [HOLE_PART];
      }
      case 'member_expression': {
        const obj = node.childForFieldName('object');
        const prop = node.childForFieldName('property')?.text ?? '';
        if (obj && (ENV_OBJECT.test(obj.text) || (obj.type === 'identifier' && envAliases.has(obj.text))))
          return [{ env: prop }];
        return (
          scope.lookup(node.text, node) ??
          constructorParam(node) ??
          injected(/^this\.(\w+)$/.exec(node.text)?.[1], node, false) ?? [{ ref: node.text }]
        );
      }
      case 'subscript_expression': {
        const obj = node.childForFieldName('object');
        const idx = node.childForFieldName('index');
        if (obj && (ENV_OBJECT.test(obj.text) || envAliases.has(obj.text)) && idx?.type === 'string')
          return [{ env: unquote(idx.text) }];
        return [HOLE_PART];
      }
      case 'identifier':
      case 'shorthand_property_identifier':
        return (
          scope.param(node.text) ??
          scope.lookup(node.text, node) ??
          injected(node.text, node, true) ?? [{ ref: node.text }]
        );
      case 'ternary_expression': {
        const a = node.childForFieldName('consequence');
        const b = node.childForFieldName('alternative');
        if (!a || !b) return [HOLE_PART];
        const [va, vb] = [evaluate(a), evaluate(b)];
        const v = conditionalValue(va, vb);
        // An optional base (`env.url ? env.url : ""`): both values; the empty one is the page's own origin.
        const empty = (x: Part[]): boolean => literal(x) === '';
        if (v.length === 1 && 'hole' in v[0]! && empty(va) !== empty(vb)) return [{ hole: true, alts: [va, vb] }];
        // A base per build (`production ? '//shop.example.com' : '//localhost:8000'`): both addresses.
        const address = (x: Part[]): boolean => /^(?:[a-z][\w+.-]*:)?\/\/[^/\s]/i.test(literal(x) ?? '');
        if (v.length === 1 && 'hole' in v[0]! && address(va) && address(vb)) return [{ hole: true, alts: [va, vb] }];
        return v;
      }
      case 'parenthesized_expression':
      case 'as_expression':
      case 'non_null_expression':
      case 'satisfies_expression':
      case 'await_expression':
        return node.namedChild(0) ? evaluate(node.namedChild(0)!) : [HOLE_PART];
      case 'call_expression': {
        // util.format('http://%s/orders/%d', host, id)
        const fnText = node.childForFieldName('function')?.text ?? '';
        const format = /^(util\.)?format$/.test(fnText);
        const dotted = /^[A-Za-z_$][\w$.]*$/.test(fnText);
        // The arguments are read only for the calls that use them: most (`items.filter(…).map(…)`) do not.
        if (!format && !dotted) return [HOLE_PART];
        const a = node.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => x !== null) ?? [];
        // amqplib `ch.assertQueue(name)`: its `queue` is the name, or the broker's for `""` (see `declaredQueue`).
        if (/\.assertQueue$/.test(fnText)) {
          const named = a[0] && a[0].type !== 'null' && a[0].text !== 'undefined' ? evaluate(a[0]) : undefined;
          return declaredQueueName(named, file, lineOf(node));
        }
        if (format && a[0]) {
          const tpl = literal(evaluate(a[0]));
          if (tpl === undefined) return [HOLE_PART];
          const pieces = tpl.split(/%[sdifjoO]/);
          return concat(
            ...pieces.flatMap((p, i) =>
              i < pieces.length - 1 ? [lit(p), a[i + 1] ? evaluate(a[i + 1]!) : [HOLE_PART]] : [lit(p)],
            ),
          );
        }
        // A query-string builder (`this.getQueryFromObject(params)`, `toQueryString(p)`) appended to a URL: a query.
        if (dotted && QUERY_BUILDER.test(fnText.replace(/^.*\./, ''))) return concat(lit('?'), [HOLE_PART]);
        // A function of another module, object or class (`urls.orderUrl(base, id)`): its return summary.
        if (dotted && !a.some((x) => x.type === 'spread_element'))
          return sink.callValue(
            fnText.replace(/^this\./, ''),
            a.map((x) => evaluate(x)),
          );
        return [HOLE_PART];
      }
      case 'new_expression': {
        const ctor = node.childForFieldName('constructor')?.text;
        const args = node.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => x !== null) ?? [];
        if (ctor === 'URL' && args[0])
          return args[1] ? concat(evaluate(args[1]), lit('/'), evaluate(args[0])) : evaluate(args[0]);
        return [HOLE_PART];
      }
      case 'array': {
        const items = node.namedChildren.filter((x): x is Node => x !== null).map((x) => nameOf(evaluate(x)) ?? '');
        return lit(items.join(LIST_SEP));
      }
      default:
        return [HOLE_PART];
    }
  }

  // ---- during the walk: declarations, servers, clients, imports
  const declarations: Record<string, (node: Node) => void> = {
    enum_declaration(node) {
      // `enum Queues { ORDERS = 'orders_q' }`: each initialised member a constant `Queues.ORDERS` of the source.
      const name = node.childForFieldName('name')?.text;
      for (const m of node.childForFieldName('body')?.namedChildren ?? []) {
        const key = m?.type === 'enum_assignment' ? m.childForFieldName('name')?.text : undefined;
        const value = m?.childForFieldName('value');
        if (name && key && value) scope.add(`${name}.${key}`, value);
      }
    },
    new_expression(node) {
      // `new Proxy({ baseUrl: process.env.X || "…" })`: the constructor's arguments (and the properties of an
      // object argument), for the class's own file (`${options.baseUrl}/restaurants` there).
      const ctor = node.childForFieldName('constructor')?.text ?? '';
      const args = node.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => x !== null) ?? [];
      if (!/^[A-Z]\w*$/.test(ctor) || args.length > 8) return;
      args.forEach((a, i) => {
        if (a.type !== 'object') return scope.add(`new ${ctor}#${i}`, a);
        for (const pair of a.namedChildren) {
          const key =
            pair?.type === 'pair' ? pair.childForFieldName('key')?.text.replace(/^["']|["']$/g, '') : undefined;
          const value = pair?.childForFieldName('value');
          if (key && value) scope.add(`new ${ctor}#${i}.${key}`, value);
        }
      });
    },
    variable_declarator(node) {
      const name = node.childForFieldName('name');
      const value = node.childForFieldName('value');
      // `const { ORDERS_URL, PORT = '80', STOCK: stockUrl = 'http://stock' } = process.env`: each name a setting;
      // `const env = process.env`: `env.X` is the setting X.
      if (value && ENV_OBJECT.test(value.text)) {
        if (name?.type === 'identifier') envAliases.add(name.text);
        for (const p of name?.type === 'object_pattern' ? name.namedChildren : []) {
          const key =
            p?.type === 'pair_pattern'
              ? p.childForFieldName('key')?.text.replace(/^["']|["']$/g, '')
              : p?.type === 'object_assignment_pattern'
                ? p.childForFieldName('left')?.text
                : p?.type === 'shorthand_property_identifier_pattern'
                  ? p.text
                  : undefined;
          if (!key || !p) continue;
          const target = p.type === 'pair_pattern' ? p.childForFieldName('value') : p;
          const local = target?.type === 'assignment_pattern' ? target.childForFieldName('left') : target;
          const dflt =
            target?.type === 'assignment_pattern' || target?.type === 'object_assignment_pattern'
              ? target.childForFieldName('right')
              : null;
          const fb = dflt ? literal(evaluate(dflt)) : undefined;
          const as = local?.type === 'object_assignment_pattern' ? local.childForFieldName('left') : local;
          if (as) scope.set(as.text, [fb !== undefined ? { env: key, fallback: fb } : { env: key }]);
        }
        return;
      }
      if (name?.type === 'identifier' && value) {
        scope.add(name.text, value, true);
        if (value.type === 'object') addObject(name.text, value, true);
        classifyInit(name.text, value);
        if (declaresQueue(value)) scope.add(`${name.text}.queue`, value, true);
      } else if (name?.type === 'identifier') scope.declare(name.text, node);
      else if (name?.type === 'object_pattern' && value && declaresQueue(value)) {
        // `const { queue } = await ch.assertQueue("", { exclusive: true })`, `{ queue: q }`: the declared queue.
        for (const p of name.namedChildren) {
          const local =
            p?.type === 'shorthand_property_identifier_pattern' && p.text === 'queue'
              ? p
              : p?.type === 'pair_pattern' && p.childForFieldName('key')?.text === 'queue'
                ? p.childForFieldName('value')
                : null;
          if (local?.type === 'identifier' || local?.type === 'shorthand_property_identifier_pattern')
            scope.add(local.text, value, true);
        }
      }
    },
    call_expression(node) {
      // amqplib's callback API `ch.assertQueue("", opts, (err, q) => …)` and `ch.assertQueue("").then((q) => …)`:
      // the callback's `q.queue` is the declared queue.
      const fn = node.childForFieldName('function');
      if (fn?.type !== 'member_expression') return;
      const prop = fn.childForFieldName('property')?.text;
      const object = fn.childForFieldName('object');
      const args = node.childForFieldName('arguments')?.namedChildren ?? [];
      const [decl, cb, index] =
        prop === 'assertQueue'
          ? [node, args[args.length - 1], 1]
          : prop === 'then' && object && declaresQueue(object)
            ? [object, args[0], 0]
            : [];
      if (!decl || !cb || !/^(arrow_function|function_expression|function)$/.test(cb.type)) return;
      const params = cb.childForFieldName('parameters')?.namedChildren ?? [cb.childForFieldName('parameter')];
      const reply = params.filter((x) => x?.type !== 'comment')[index!];
      if (reply?.type === 'identifier') scope.add(`${reply.text}.queue`, decl, true);
    },
    public_field_definition(node) {
      const name = node.childForFieldName('name');
      const value = node.childForFieldName('value');
      if (name && value) {
        scope.add(`this.${name.text}`, value);
        classifyInit(`this.${name.text}`, value);
      }
    },
    assignment_expression(node) {
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      // `path = …` to a local of an enclosing function: a definition reaching the uses after it.
      if (left?.type === 'identifier' && right) scope.assign(left.text, right, false);
      if (left?.type === 'member_expression' && left.text.startsWith('this.') && right) {
        scope.add(left.text, right);
        classifyInit(left.text, right);
      } else if (
        left?.type === 'member_expression' &&
        right &&
        left.childForFieldName('object')?.type === 'identifier' &&
        !/^(module|exports|window|document|process)$/.test(left.childForFieldName('object')!.text)
      )
        // `$scope.url = '/api/…'` then `$http({ url: $scope.url })`: a property of a parameter or local set
        // in a function is that function's value (its callbacks see it, other functions do not).
        scope.addMember(left.text, right);
      // module.exports = { ordersUrl: '…' } / exports.ordersUrl = '…': constants other files read as
      // `config.ordersUrl` (the source's constants, by member name).
      if (left && right && /^(module\.)?exports$/.test(left.text) && right.type === 'object') addObject('', right);
      const exported = left ? /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(left.text) : null;
      if (exported && right) scope.add(exported[1]!, right);
    },
    import_statement(node) {
      const spec = node.childForFieldName('source');
      const clause = node.namedChildren.find((c) => c?.type === 'import_clause');
      if (spec && clause) {
        for (const c of clause.namedChildren) {
          if (c?.type === 'identifier') {
            imports.set(c.text, unquote(spec.text));
            defaultImports.add(c.text);
          }
          if (c?.type === 'named_imports')
            for (const sp of c.namedChildren) {
              const local = sp?.childForFieldName('alias') ?? sp?.childForFieldName('name');
              if (local) imports.set(local.text, unquote(spec.text));
            }
        }
      }
    },
  };

  /** `ch.assertQueue(…)` (awaited): amqplib's queue declaration, whose reply names the queue (`.queue`). */
  function declaresQueue(value: Node): boolean {
    let v = value;
    while (v.type === 'await_expression' || v.type === 'parenthesized_expression') v = v.namedChild(0) ?? v;
    const fn = v.type === 'call_expression' ? v.childForFieldName('function') : null;
    return fn?.type === 'member_expression' && fn.childForFieldName('property')?.text === 'assertQueue';
  }

  /** An object literal's members as names (`options.uri`); `local`: a function's variable, scoped like it. */
  function addObject(prefix: string, obj: Node, local = false): void {
    for (const pair of obj.namedChildren) {
      if (pair?.type !== 'pair') continue;
      const key = pair.childForFieldName('key');
      const value = pair.childForFieldName('value');
      if (!key || !value) continue;
      const k = key.type === 'string' ? unquote(key.text) : key.text;
      const name = prefix ? `${prefix}.${k}` : k;
      scope.add(name, value, local);
      if (value.type === 'object') addObject(name, value, local);
    }
  }

  /**
   * An argument that is an object literal, written inline or held by a variable declared once in the
   * function (`var options = { uri, method }; request(options, cb)`).
   */
  function objectArg(a: Node | undefined): Node | undefined {
    if (!a) return undefined;
    if (a.type === 'object') return a;
    if (a.type !== 'identifier') return undefined;
    const d = scope.node(a.text, a);
    return d?.type === 'object' ? d : undefined;
  }

  function classifyInit(name: string, value: Node): void {
    let v = value;
    while (v.type === 'await_expression' || v.type === 'parenthesized_expression') v = v.namedChild(0) ?? v;
    if (v.type !== 'call_expression' && v.type !== 'new_expression') return;
    const fn = (v.childForFieldName('function') ?? v.childForFieldName('constructor'))?.text ?? '';
    if (/^(express\.Router|Router|koaRouter|KoaRouter|require\(\s*['"]express['"]\s*\)\.Router)$/.test(fn)) {
      servers.set(name, 'express');
      routers.add(name);
      // Koa: new Router({ prefix: '/api' })
      const prefix = literal(objectProps(v.childForFieldName('arguments')?.namedChild(0) ?? null).get('prefix'));
      if (prefix !== undefined) mounts.set(name, prefix);
    } else if (/^express$/.test(fn)) servers.set(name, 'express');
    else if (fn === 'require' && v.type === 'call_expression') {
      const spec = v.childForFieldName('arguments')?.namedChild(0);
      if (spec?.type === 'string') {
        imports.set(name, unquote(spec.text));
        defaultImports.add(name);
      }
    } else if (/^(fastify|Fastify)$|require\(['"]fastify['"]\)/.test(fn)) servers.set(name, 'fastify');
    else if (/^(axios\.create|got\.extend|ky\.create|ky\.extend)$/.test(fn)) {
      const props = objectProps(v.childForFieldName('arguments')?.namedChild(0) ?? null);
      const base = props.get('baseURL') ?? props.get('prefixUrl') ?? props.get('prefixURL') ?? [];
      clients.set(name, base);
      // The instance imported by other modules (`export const HTTP = axios.create({ baseURL })`): its base
      // applies to their calls (two modules' instances of one name with different bases: none).
      const key = `js:${name}`;
      const prev = Object.prototype.hasOwnProperty.call(sink.facts.clientBases, key)
        ? sink.facts.clientBases[key]
        : undefined;
      if (base.length && name !== '__proto__')
        sink.facts.clientBases[key] = prev && JSON.stringify(prev) !== JSON.stringify(base) ? [] : base;
      // The module's instance, for modules importing it under any name (two instances in one module: none).
      const mod = `${MODULE_BASE}${file.replace(/\.[^./]+$/, '')}`;
      const own = Object.prototype.hasOwnProperty.call(sink.facts.clientBases, mod);
      if (base.length) sink.facts.clientBases[mod] = own ? [] : base;
    }
  }

  /** The value nodes of an object literal's pairs, by key. */
  function objectNodes(obj: Node): Map<string, Node> {
    const out = new Map<string, Node>();
    for (const pair of obj.namedChildren) {
      const key = pair?.type === 'pair' ? pair.childForFieldName('key') : null;
      const value = pair?.childForFieldName('value');
      if (key && value) out.set(key.type === 'string' ? unquote(key.text) : key.text, value);
    }
    return out;
  }

  function objectProps(obj: Node | null): Map<string, Part[]> {
    const out = new Map<string, Part[]>();
    if (obj?.type !== 'object') return out;
    for (const pair of obj.namedChildren) {
      if (pair?.type === 'pair') {
        const key = pair.childForFieldName('key');
        const value = pair.childForFieldName('value');
        if (key && value) out.set(key.type === 'string' ? unquote(key.text) : key.text, evaluate(value));
      } else if (pair?.type === 'shorthand_property_identifier') out.set(pair.text, evaluate(pair));
    }
    return out;
  }

  /** The `prefix` of a Fastify `register(plugin, { prefix })` call, when literal. */
  function registerPrefix(call: Node | null | undefined): string | undefined {
    const fn = call?.type === 'call_expression' ? call.childForFieldName('function') : null;
    if (fn?.type !== 'member_expression' || fn.childForFieldName('property')?.text !== 'register') return undefined;
    const opts = call!.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => x !== null)[1];
    return opts?.type === 'object' ? literal(objectProps(opts).get('prefix')) : undefined;
  }

  /**
   * Routes declared on a function's first parameter are a plugin's (Fastify `async function (fastify, opts)`,
   * `module.exports = (app) => …`): inline in `register(fn, { prefix })` they take its prefix (nested ones
   * joined); in a plugin of its own file they take the prefix of the file's registration (a mount).
   */
  function pluginOf(call: Node, receiver: string): { prefix: string } | { file: string } | undefined {
    const fns = ['arrow_function', 'function_expression', 'function', 'function_declaration'];
    let owner: Node | undefined;
    for (let n: Node | null = call.parent; n; n = n.parent) {
      if (!fns.includes(n.type)) continue;
      const params = n.childForFieldName('parameters')?.namedChildren ?? [n.childForFieldName('parameter')];
      const first = params[0];
      const firstName = first?.type === 'identifier' ? first.text : first?.childForFieldName('pattern')?.text;
      if (firstName === receiver) owner = n;
      break;
    }
    if (!owner) return undefined;
    const prefixes: string[] = [];
    for (let n: Node | null = owner; n; n = n.parent) {
      if (!fns.includes(n.type) || n.parent?.type !== 'arguments') continue;
      const p = registerPrefix(n.parent.parent);
      if (p !== undefined) prefixes.unshift(p);
    }
    return prefixes.length ? { prefix: joinPath(...prefixes) } : { file };
  }

  // ---- after the walk: mounts, app.use('/prefix', router), fastify.register(plugin, { prefix })
  function onMount(call: Node): void {
    const fn = call.childForFieldName('function');
    // Both forms are `x.register(…)`/`x.use(…)`: every other call stops here, before its arguments are read.
    const property = fn?.type === 'member_expression' ? fn.childForFieldName('property')?.text : undefined;
    if (property !== 'register' && property !== 'use') return;
    const args = call.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => x !== null) ?? [];
    const registered = registerPrefix(call);
    if (registered !== undefined && args[0]) {
      // fastify.register(require('./routes/search'), { prefix }) or an imported plugin
      const t = args[0];
      const req =
        t.type === 'call_expression' && /^(require|import)$/.test(t.childForFieldName('function')?.text ?? '');
      const spec = req
        ? unquote(t.childForFieldName('arguments')?.namedChild(0)?.text ?? '')
        : t.type === 'identifier'
          ? imports.get(t.text)
          : undefined;
      if (spec?.startsWith('.'))
        sink.facts.mounts.push({
          prefix: registered,
          target: joinModule(file, spec),
          loc: { file, line: lineOf(call) },
        });
      return;
    }
    if (fn?.type === 'member_expression' && fn.childForFieldName('property')?.text === 'use' && args.length >= 2) {
      const prefix = literal(evaluate(args[0]!));
      const target = args[args.length - 1]!;
      // app.use('/api', require('./routes/orders'))
      const required =
        target.type === 'call_expression' && target.childForFieldName('function')?.text === 'require'
          ? target.childForFieldName('arguments')?.namedChild(0)
          : undefined;
      if (prefix !== undefined && required?.type === 'string' && unquote(required.text).startsWith('.'))
        sink.facts.mounts.push({
          prefix,
          target: joinModule(file, unquote(required.text)),
          loc: { file, line: lineOf(call) },
        });
      if (prefix !== undefined && target.type === 'identifier') {
        mounts.set(target.text, prefix);
        const spec = imports.get(target.text);
        if (spec?.startsWith('.'))
          sink.facts.mounts.push({ prefix, target: joinModule(file, spec), loc: { file, line: lineOf(call) } });
      }
    } else if (property === 'use' && args.length === 1 && args[0]!.type === 'identifier') {
      // router.use(ordersRouter): a router of another file composed without a prefix of its own; the prefix
      // under which this file's router is mounted applies to it (`applyPrefixes` follows the chain).
      const spec = imports.get(args[0]!.text);
      if (spec?.startsWith('.'))
        sink.facts.mounts.push({ prefix: '', target: joinModule(file, spec), loc: { file, line: lineOf(call) } });
    }
  }

  // ---- call sites
  function onCall(call: Node): void {
    const fn = call.childForFieldName('function');
    const argsNode = call.childForFieldName('arguments');
    if (!fn || !argsNode || argsNode.type !== 'arguments') return;
    if (fn.type === 'subscript_expression') return computedCall(call, fn, argsNode);
    const callee = fn.type === 'member_expression' ? (fn.childForFieldName('property')?.text ?? '') : fn.text;
    if (!JS_NAMES.has(callee) && !sharedRuleName(callee)) {
      wrapperSite(callee, argsNode, call);
      return;
    }
    const argNodes = argsNode.namedChildren.filter((x): x is Node => x !== null && x.type !== 'comment');
    const args = argNodes.map((a) => evaluate(a));
    const named = new Map<string, Part[]>();
    for (const a of argNodes) for (const [k, v] of objectProps(objectArg(a) ?? null)) named.set(k, v);
    const loc = { file, line: lineOf(call) };
    const name = fn.type === 'member_expression' ? (fn.childForFieldName('property')?.text ?? '') : fn.text;
    const receiver = fn.type === 'member_expression' ? (fn.childForFieldName('object')?.text ?? '') : '';
    const within = withinOf(call);
    const receiverType = receiver ? declaredTypeOf(call, receiver) : undefined;
    const site: CallSite = { name, receiver, args, named, loc, within, ...(receiverType ? { receiverType } : {}) };
    sharedCallRules(site, sink);

    // httpdispatcher: var dispatcher = require('httpdispatcher'); dispatcher.onGet(/^\/ratings\/[0-9]*/, h)
    const dispatcherVerb = DISPATCHER_VERBS[name];
    if (dispatcherVerb && imports.get(receiver) === 'httpdispatcher' && argNodes.length >= 2) {
      const path = literal(args[0]) ?? regexRoutePath(argNodes[0]);
      if (path?.startsWith('/')) sink.endpoint(dispatcherVerb, path, 'httpdispatcher', loc);
      return;
    }
    if (name === 'setGlobalPrefix' && args[0] && literal(args[0]) !== undefined)
      sink.facts.globalPrefixes.push({ framework: 'nestjs', prefix: literal(args[0])! });
    // app.enableVersioning({ type: VersioningType.URI, prefix?, defaultVersion? }); URI is the default type.
    if (name === 'enableVersioning') {
      const opts = argNodes[0]?.type === 'object' ? argNodes[0] : undefined;
      const type = opts ? objectNodes(opts).get('type')?.text : undefined;
      if (type === undefined || /(^|\.)URI$/.test(type)) {
        const p = opts ? objectNodes(opts).get('prefix') : undefined;
        const vPrefix = p?.type === 'false' ? '' : (literal(named.get('prefix')) ?? 'v');
        sink.facts.globalPrefixes.push({ framework: 'nestjs-uri-version', prefix: vPrefix });
        const def = literal(named.get('defaultVersion'));
        if (def !== undefined)
          sink.facts.globalPrefixes.push({
            framework: 'nestjs-default-version',
            prefix: def.split(LIST_SEP).filter(Boolean).join(','),
          });
      }
    }
    // knex('orders'), mongoose.model('Order', schema)
    if (name === 'knex' && args[0] && literal(args[0])) sink.data('table', literal(args[0])!, loc);
    if (name === 'model' && receiver === 'mongoose' && args[0] && literal(args[0]))
      sink.data('collection', literal(args[0])!.toLowerCase() + 's', loc);

    // ---- HTTP calls
    const emit = (
      method: HttpMethod,
      url: Part[],
      client: string,
      at: typeof loc,
      extra: { clientClass?: string } = {},
    ): void => {
      sink.call(method, url, client, at, extra);
      const w = wrapperOf(call, url);
      if (w) sink.wrappers.push({ ...w, method, client, loc: at });
    };
    // jQuery: $.ajax({ url, type|method }), $.ajax(url, { type }), $.get(url), $.post(url), $.getJSON(url)
    if (JQUERY.test(receiver) && (name === 'ajax' || name === 'get' || name === 'post' || name === 'getJSON')) {
      const first = argNodes[0];
      if (!first) return;
      if (name === 'ajax') {
        const opts = objectProps(first.type === 'object' ? first : (argNodes[1] ?? null));
        const url = first.type === 'object' ? opts.get('url') : args[0];
        const verb = literal(opts.get('type') ?? opts.get('method'));
        if (url) emit(httpMethod(verb) ?? 'GET', url, 'jquery', loc);
      } else if (first.type === 'object') {
        const url = named.get('url');
        if (url) emit(name === 'post' ? 'POST' : 'GET', url, 'jquery', loc);
      } else emit(name === 'post' ? 'POST' : 'GET', args[0]!, 'jquery', loc);
      return;
    }
    if (!receiver && name === 'fetch' && args[0]) {
      const opts = objectProps(objectArg(argNodes[1]) ?? null);
      emit(httpMethod(literal(opts.get('method'))) ?? 'GET', args[0], 'fetch', loc);
      return;
    }
    // request('http://…', cb), request({ uri, method }, cb): only with a URL-looking argument
    // (supertest's `request(app)` is not an outbound call).
    if (!receiver && name === 'request' && args[0]) {
      const options = objectArg(argNodes[0]) !== undefined;
      const url = options ? (named.get('uri') ?? named.get('url')) : args[0];
      // An options object's `uri` is a URL whatever it holds; a bare argument must look like one.
      if (url && (options || looksLikeUrl(url)))
        emit(httpMethod(literal(named.get('method'))) ?? 'GET', url, 'request', loc);
      return;
    }
    // axios(config), got(url, opts), AngularJS $http({ url, method })
    if (!receiver && (name === 'axios' || name === 'got' || name === 'ky' || name === '$http') && args[0]) {
      if (objectArg(argNodes[0])) {
        const url = named.get('url');
        if (url) emit(httpMethod(literal(named.get('method'))) ?? 'GET', url, name, loc);
      } else {
        const opts = objectProps(objectArg(argNodes[1]) ?? null);
        emit(httpMethod(literal(opts.get('method'))) ?? 'GET', args[0], name, loc);
      }
      return;
    }
    if (
      receiver &&
      name === 'request' &&
      (CLIENT_LIBS.has(receiver) || clients.has(receiver)) &&
      objectArg(argNodes[0])
    ) {
      const url = named.get('url');
      if (url)
        emit(httpMethod(literal(named.get('method'))) ?? 'GET', withBase(clients.get(receiver), url), receiver, loc);
      return;
    }
    // app.route('/books/:id').get(h).put(h)
    const chained =
      fn.type === 'member_expression' && VERBS.has(name) ? routeChainPath(fn.childForFieldName('object')) : undefined;
    if (chained) {
      const path = literal(evaluate(chained.path));
      const base = chained.receiver;
      if (path !== undefined) {
        const mountedHere = mounts.get(base);
        const routerFile = routers.has(base) && mountedHere === undefined ? file : undefined;
        // Evidence on the `.post` of the chain, not on the chain's first line.
        const at = { file, line: lineOf(fn.childForFieldName('property') ?? call) };
        sink.endpoint(
          httpMethod(name === 'del' ? 'delete' : name) ?? 'ANY',
          joinPath(mountedHere ?? '', path),
          servers.get(base) ?? 'express',
          at,
          routerFile,
        );
      }
      return;
    }
    // supertest('https://gateway:8080').post('/payment/makePurchase'): an agent on a base URL (not on an app
    // object, which is a test of the app itself), the verb's path under it.
    const agent = fn.type === 'member_expression' ? fn.childForFieldName('object') : null;
    if (agent?.type === 'call_expression' && VERBS.has(name) && args[0]) {
      const lib = agent.childForFieldName('function')?.text ?? '';
      const baseNode = agent.childForFieldName('arguments')?.namedChildren.find((x) => x && x.type !== 'comment');
      if (baseNode && AGENT_LIBS.has(imports.get(lib) ?? lib)) {
        const base = evaluate(baseNode);
        if (looksLikeUrl(base))
          emit(httpMethod(name === 'del' ? 'delete' : name) ?? 'GET', concat(base, args[0]), 'supertest', loc);
        return;
      }
    }
    if (receiver && VERBS.has(name) && args[0]) {
      const plugin =
        servers.has(receiver) || clients.has(receiver) || CLIENT_LIBS.has(receiver) || argNodes.length < 2
          ? undefined
          : pluginOf(call, receiver);
      // A route on the parameter of an inline `register(async (admin) => …, { prefix })` plugin, whatever its name.
      const isServer =
        servers.has(receiver) ||
        (plugin !== undefined && 'prefix' in plugin) ||
        (!clients.has(receiver) && !CLIENT_LIBS.has(receiver) && SERVER_NAMES.test(receiver) && argNodes.length >= 2);
      if (isServer && argNodes.length >= 2) {
        const path = literal(args[0]) ?? regexRoutePath(argNodes[0]);
        if (path !== undefined) {
          const method: HttpMethod = httpMethod(name === 'del' ? 'delete' : name) ?? 'ANY';
          const mountedHere = mounts.get(receiver) ?? (plugin && 'prefix' in plugin ? plugin.prefix : undefined);
          const routerFile =
            routers.has(receiver) && mountedHere === undefined ? file : plugin && 'file' in plugin ? file : undefined;
          sink.endpoint(
            method,
            joinPath(mountedHere ?? '', path),
            servers.get(receiver) ??
              (/fastify/i.test(receiver) || (plugin && 'prefix' in plugin) ? 'fastify' : 'express'),
            loc,
            routerFile,
          );
        }
        return;
      }
      const fromModule = /^\.{1,2}\//.test(imports.get(receiver) ?? '')
        ? `${MODULE_BASE}${posix.normalize(posix.join(posix.dirname(file), imports.get(receiver)!)).replace(/\.[jt]sx?$/, '')}`
        : undefined;
      if (clients.has(receiver) || CLIENT_LIBS.has(receiver) || CLIENT_RECEIVER.test(receiver)) {
        const method: HttpMethod = httpMethod(name === 'del' ? 'delete' : name) ?? 'GET';
        // request.post({ uri, json }, cb), axios.get(url, config): the URL of an options object
        const url = objectArg(argNodes[0]) ? (named.get('uri') ?? named.get('url')) : args[0];
        if (!url) return;
        emit(
          method,
          withBase(clients.get(receiver), url),
          CLIENT_LIBS.has(receiver) ? receiver : clients.has(receiver) ? 'axios' : 'http client',
          loc,
          // An imported client instance: the base its module gave it (that module's instance, else the
          // source's instance of the name, resolved at link time).
          !clients.has(receiver) && imports.has(receiver)
            ? { clientClass: `${fromModule ? `${fromModule}${MODULE_ELSE}` : ''}js:${receiver}` }
            : {},
        );
      } else if (fromModule && /^(get|post|put|patch|delete|head)$/.test(name)) {
        // An instance another module of the source creates (`export default axios.create({ baseURL })`,
        // imported as `service`): kept once the source is read only if that module made a client.
        const url = args[0];
        if (url) emit(httpMethod(name) ?? 'GET', url, IMPORTED_CLIENT, loc, { clientClass: fromModule });
      }
      return;
    }
    // fastify.route({ method, url, handler })
    if (receiver && name === 'route' && argNodes[0]?.type === 'object') {
      const url = literal(named.get('url') ?? named.get('path'));
      if (url !== undefined)
        sink.endpoint(httpMethod(literal(named.get('method'))) ?? 'ANY', url, servers.get(receiver) ?? 'fastify', loc);
    }
  }

  // ---- wrappers: functions whose HTTP call takes its URL from a parameter, and their callers
  /** The name callers use for a function: its own, its variable's, the member or key it is assigned to. */
  function functionName(fnNode: Node): string | undefined {
    const own = fnNode.childForFieldName('name');
    if (own) return own.text;
    const p = fnNode.parent;
    if (p?.type === 'variable_declarator') return p.childForFieldName('name')?.text;
    if (p?.type === 'pair') return p.childForFieldName('key')?.text.replace(/^['"]|['"]$/g, '');
    if (p?.type === 'assignment_expression') {
      const left = p.childForFieldName('left');
      // `module.exports = (…) => …`: the module's default, called by whatever name its importers give it.
      if (left?.text === 'module.exports') return `${DEFAULT_EXPORT}${moduleKey(file)}`;
      return left?.type === 'member_expression' ? left.childForFieldName('property')?.text : left?.text;
    }
    // `export default ({ url, method }) => …`: likewise.
    if (p?.type === 'export_statement' && p.children.some((c) => c?.type === 'default'))
      return `${DEFAULT_EXPORT}${moduleKey(file)}`;
    return undefined;
  }

  /**
   * The names a call of a default import may reach a wrapper by (`import useRequest from '../hooks/use-request'`
   * → the default export of `hooks/use-request`); `@/x` and `~/x` as the project's `src/x` or `x`.
   */
  function defaultExportNames(callee: string): string[] {
    const spec = defaultImports.has(callee) ? imports.get(callee) : undefined;
    if (!spec) return [];
    if (spec.startsWith('.')) return [`${DEFAULT_EXPORT}${moduleKey(joinModule(file, spec))}`];
    const alias = /^[@~]\/(.+)$/.exec(spec);
    return alias ? [`src/${alias[1]!}`, alias[1]!].map((m) => `${DEFAULT_EXPORT}${moduleKey(m)}`) : [];
  }

  /**
   * `options.baseUrl` / `baseUrl` where `options` is a parameter of the class's constructor: what the
   * constructions of the class pass (`new X#0.baseUrl`), resolved across the source's files.
   */
  /**
   * Angular DI: a constructor parameter `@Inject(TOKEN) private apiUrl: string` is the value provided for TOKEN
   * (`{ provide: TOKEN, useValue: … }`, index.ts), as `this.apiUrl` in the class (a parameter property), or as
   * `apiUrl` inside the constructor (`local`). The reference names the decorator, `@Inject('API_URL')`.
   */
  let injectFile: boolean | undefined;
  function injected(name: string | undefined, node: Node, local: boolean): Part[] | undefined {
    if (!name || !(injectFile ??= node.tree.rootNode.text.includes('@Inject('))) return undefined;
    let cls: Node | null = node.parent;
    let inCtor = false;
    for (; cls && cls.type !== 'class_declaration' && cls.type !== 'class'; cls = cls.parent)
      if (cls.type === 'method_definition' && cls.childForFieldName('name')?.text === 'constructor') inCtor = true;
    if (!cls || (local && !inCtor)) return undefined;
    const ctor = cls
      .childForFieldName('body')
      ?.namedChildren.find(
        (m) => m?.type === 'method_definition' && m.childForFieldName('name')?.text === 'constructor',
      );
    for (const p of ctor?.childForFieldName('parameters')?.namedChildren ?? []) {
      if (p?.childForFieldName('pattern')?.text !== name) continue;
      // Only a parameter property (`private`, `readonly`) is a field the class's other methods read.
      if (!local && !p.namedChildren.some((c) => c?.type === 'accessibility_modifier' || c?.text === 'readonly'))
        return undefined;
      const token = p.namedChildren
        .filter((c): c is Node => c?.type === 'decorator')
        .map((d) => /^@Inject\(\s*([\s\S]*?)\s*\)$/.exec(d.text)?.[1])
        .find((t) => t !== undefined);
      return token ? [{ ref: `@Inject(${injectionToken(token)})` }] : undefined;
    }
    return undefined;
  }

  /**
   * `{ provide: TOKEN, useValue: V }` (or `useFactory: () => V`) of an Angular provider: V for `@Inject(TOKEN)`
   * parameters of every file of the source (index.ts), when it is a value (a literal, a setting, a constant).
   */
  let providerFile: boolean | undefined;
  function onProvider(pair: Node): void {
    if (!(providerFile ??= /\bprovide\s*:/.test(pair.tree.rootNode.text))) return;
    if (pair.childForFieldName('key')?.text !== 'provide') return;
    const token = pair.childForFieldName('value')?.text;
    const obj = pair.parent;
    if (!token || obj?.type !== 'object') return;
    for (const other of obj.namedChildren) {
      if (other?.type !== 'pair') continue;
      const key = other.childForFieldName('key')?.text;
      let v = other.childForFieldName('value');
      if (key === 'useFactory' && v?.type === 'arrow_function') {
        const body = v.childForFieldName('body');
        v = body && body.type !== 'statement_block' ? body : null;
      } else if (key !== 'useValue') continue;
      const value = v ? evaluate(v) : undefined;
      if (value && summarisable(value))
        (sink.facts.injectionValues ??= []).push({ token: injectionToken(token), value });
    }
  }

  function constructorParam(node: Node): Part[] | undefined {
    const base = node.text.split('.')[0]!;
    for (let p = node.parent; p; p = p.parent) {
      if (p.type !== 'method_definition') continue;
      if (p.childForFieldName('name')?.text !== 'constructor') return undefined;
      const i = parameterNames(p).indexOf(base);
      const cls = p.parent?.parent;
      const name = cls?.childForFieldName('name')?.text;
      if (i < 0 || !name) return undefined;
      return [{ ref: `new ${name}#${i}${node.text.slice(base.length)}` }];
    }
    return undefined;
  }

  function parameterNames(fnNode: Node): string[] {
    const single = fnNode.childForFieldName('parameter');
    if (single) return [single.text];
    return (fnNode.childForFieldName('parameters')?.namedChildren ?? []).map((p) => {
      if (!p) return '';
      if (p.type === 'identifier') return p.text;
      const inner = p.childForFieldName('pattern') ?? p.childForFieldName('left');
      return inner?.type === 'identifier' ? inner.text : '';
    });
  }

  /**
   * The locals a function's destructured parameters bind (`({ url, method: verb = 'get' }, opts)`), each to
   * the property of the argument at its position.
   */
  function parameterFields(fnNode: Node): Map<string, { index: number; field: string }> {
    const out = new Map<string, { index: number; field: string }>();
    const list = (fnNode.childForFieldName('parameters')?.namedChildren ?? []).filter(
      (x): x is Node => x !== null && x.type !== 'comment',
    );
    list.forEach((p, index) => {
      let pattern: Node | null = p.type === 'object_pattern' ? p : (p.childForFieldName('pattern') ?? p);
      if (pattern?.type === 'assignment_pattern') pattern = pattern.childForFieldName('left');
      if (pattern?.type !== 'object_pattern') return;
      for (const c of pattern.namedChildren) {
        let local: Node | null | undefined;
        let key: string | undefined;
        if (c?.type === 'shorthand_property_identifier_pattern') [local, key] = [c, c.text];
        else if (c?.type === 'object_assignment_pattern') {
          local = c.childForFieldName('left');
          key = local?.text;
        } else if (c?.type === 'pair_pattern') {
          local = c.childForFieldName('value');
          if (local?.type === 'assignment_pattern') local = local.childForFieldName('left');
          key = c.childForFieldName('key')?.text.replace(/^['"]|['"]$/g, '');
        }
        if (local && key && /^(identifier|shorthand_property_identifier_pattern)$/.test(local.type))
          out.set(local.text, { index, field: key });
      }
    });
    return out;
  }

  /**
   * The call's URL built from exactly one parameter of a function around it (the nearest whose parameters it
   * uses: a callback's call belongs to the function that hands it the URL, `doRequest` inside a hook), and that
   * function's name; the parameter may be a property of an object argument (`({ url })`, `opts.url`). `method`:
   * the computed method of `client[method](…)`, when a parameter of the same function too.
   */
  function wrapperOf(
    call: Node,
    url: readonly Part[],
    method?: readonly Part[],
  ): Omit<HttpWrapper, 'method' | 'client' | 'loc'> | undefined {
    let fnNode: Node | null = call.parent;
    for (let level = 0; level < 4; level++) {
      while (fnNode && !FUNCTIONS.has(fnNode.type)) fnNode = fnNode.parent;
      if (!fnNode) return undefined;
      const name = functionName(fnNode);
      const params = parameterNames(fnNode);
      const fields = parameterFields(fnNode);
      const bound = (p: Part | undefined): { index: number; field?: string; param?: string } | undefined => {
        if (!p || !('ref' in p)) return undefined;
        if (params.includes(p.ref)) return { index: params.indexOf(p.ref), param: p.ref };
        const f = fields.get(p.ref);
        if (f) return f;
        const m = /^([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*)$/.exec(p.ref);
        return m && params.includes(m[1]!) ? { index: params.indexOf(m[1]!), field: m[2]! } : undefined;
      };
      const at = url.flatMap((p, i) => (bound(p) ? [i] : []));
      if (at.length === 0) {
        // Nothing of this function's: a callback's URL may come from the function around it.
        fnNode = fnNode.parent;
        continue;
      }
      // A library's own names (`get`, `request`, `fetch`) are called everywhere: no wrapper by that name.
      if (at.length !== 1 || !name || JS_NAMES.has(name) || sharedRuleName(name)) return undefined;
      const k = at[0]!;
      const b = bound(url[k])!;
      const m = method?.length === 1 ? bound(method[0]) : undefined;
      return {
        name,
        index: b.index,
        ...(b.param !== undefined ? { param: b.param } : {}),
        ...(b.field !== undefined ? { field: b.field } : {}),
        ...(m ? { methodFrom: { index: m.index, ...(m.field !== undefined ? { field: m.field } : {}) } } : {}),
        before: url.slice(0, k),
        after: url.slice(k + 1),
      };
    }
    return undefined;
  }

  /**
   * `axios[method](url, body)`, `this.http['post'](url)`: a client's method chosen by a value. A literal verb is
   * that method; a parameter of a wrapper is the caller's (`useRequest({ url, method: 'post' })`); anything else
   * is `ANY`, and then only on a receiver that is certainly an HTTP client (a library or an instance of one).
   */
  function computedCall(call: Node, fn: Node, argsNode: Node): void {
    const receiver = fn.childForFieldName('object')?.text ?? '';
    const index = fn.childForFieldName('index');
    const certain = CLIENT_LIBS.has(receiver) || clients.has(receiver);
    if (!index || (!certain && !CLIENT_RECEIVER.test(receiver))) return;
    const key = evaluate(index);
    const verb = literal(key)?.toLowerCase();
    if (verb !== undefined && !/^(get|post|put|patch|delete|head|options)$/.test(verb)) return;
    const argNodes = argsNode.namedChildren.filter((x): x is Node => x !== null && x.type !== 'comment');
    const options = objectArg(argNodes[0]);
    const url = options ? objectProps(options).get('url') : argNodes[0] ? evaluate(argNodes[0]) : undefined;
    if (!url) return;
    const full = withBase(clients.get(receiver), url);
    const w = wrapperOf(call, full, verb === undefined ? key : undefined);
    if (verb === undefined && !certain && !w?.methodFrom) return;
    const method: HttpMethod = httpMethod(verb) ?? 'ANY';
    const client = CLIENT_LIBS.has(receiver) ? receiver : clients.has(receiver) ? 'axios' : 'http client';
    const loc = { file, line: lineOf(call) };
    // On a receiver only named like a client, the method its callers name says whether it is HTTP at all.
    if (verb !== undefined || certain)
      sink.call(
        method,
        full,
        client,
        loc,
        !clients.has(receiver) && imports.has(receiver) ? { clientClass: `js:${receiver}` } : {},
      );
    // On a receiver only named like a client, only a caller's literal verb says the call is HTTP.
    const from = w?.methodFrom && !certain ? { ...w.methodFrom, literalOnly: true } : w?.methodFrom;
    if (w) sink.wrappers.push({ ...w, ...(from ? { methodFrom: from } : {}), method, client, loc });
  }

  /**
   * A call by name with arguments: kept in case a wrapper of the source has that name, with the function
   * around it (a call passing that function's parameters on to a publish wrapper makes it a wrapper too).
   * Only one whose arguments look like a URL is a site of an HTTP wrapper.
   */
  function wrapperSite(name: string, argsNode: Node, call: Node): void {
    const argNodes = argsNode.namedChildren.filter((x): x is Node => x !== null && x.type !== 'comment');
    if (argNodes.length === 0 || !name || argNodes.some((a) => a.type === 'spread_element')) return;
    const http = /ur[il]|endpoint|path|host|http|["'`]\//i.test(argsNode.text);
    // A function passed as an argument (a callback) is no name or key.
    const args = argNodes.map((a) => (FUNCTIONS.has(a.type) ? [HOLE_PART] : evaluate(a)));
    const within = withinOf(call);
    // An object literal's properties (`useRequest({ url: '/api/x', method: 'post' })`), for wrappers taking one.
    const objects = http
      ? argNodes.map((a) => {
          const o = objectArg(a);
          return o ? Object.fromEntries(objectProps(o)) : null;
        })
      : [];
    const site = {
      args,
      loc: { file, line: lineOf(call) },
      ...(within ? { within } : {}),
      ...(http ? {} : { messageOnly: true }),
      ...(objects.some((o) => o !== null) ? { fields: objects } : {}),
    };
    for (const n of [name, ...defaultExportNames(name)]) sink.sites.push({ name: n, ...site });
  }

  /** The named function around a node and its parameters' names, once per function (a wrapper of other calls). */
  const withins = new Map<number, Within | undefined>();
  function withinOf(n: Node): Within | undefined {
    let f: Node | null = n.parent;
    while (f && !FUNCTIONS.has(f.type)) f = f.parent;
    if (!f) return undefined;
    if (withins.has(f.id)) return withins.get(f.id);
    const name = functionName(f);
    // A library's own names (`publish`, `send`) are called everywhere: no wrapper by that name.
    const w = name && !JS_NAMES.has(name) && !sharedRuleName(name) ? { name, params: parameterNames(f) } : undefined;
    withins.set(f.id, w);
    return w;
  }

  // ---- NestJS controllers, TypeORM entities
  function onClass(cls: Node): void {
    const decorators = [
      ...cls.namedChildren,
      ...(cls.parent?.type === 'export_statement' ? cls.parent.namedChildren : []),
    ].filter((x): x is Node => x?.type === 'decorator');
    let prefix: string | undefined;
    let versions: string[] | undefined;
    for (const d of decorators) {
      const { name, args, props } = decorator(d);
      if (name === 'Controller') {
        prefix = literal(args[0]) ?? literal(props.get('path')) ?? '';
        versions = versionList(props.get('version'));
      }
      if (name === 'Entity') {
        const table =
          literal(args[0]) ?? literal(props.get('name')) ?? cls.childForFieldName('name')?.text.toLowerCase();
        if (table) sink.data('table', table, { file, line: lineOf(d) });
      }
    }
    if (prefix === undefined) return;
    const body = cls.childForFieldName('body');
    // Decorators of one method precede it; `@Version('2')` among them overrides the controller's version.
    let pending: { method: HttpMethod; sub: string; line: number }[] = [];
    let methodVersions: string[] | undefined;
    const flush = (): void => {
      for (const p of pending)
        sink.endpoint(
          p.method,
          joinPath(prefix, p.sub),
          'nestjs',
          { file, line: p.line },
          undefined,
          undefined,
          methodVersions ?? versions,
        );
      pending = [];
      methodVersions = undefined;
    };
    for (const member of body?.namedChildren ?? []) {
      if (member?.type !== 'decorator') {
        flush();
        continue;
      }
      const { name, args, props } = decorator(member);
      if (name === 'Version') {
        methodVersions = versionList(args[0]) ?? [];
        continue;
      }
      const method = httpMethod(name === 'All' ? 'ANY' : name);
      if (!method) continue;
      const sub = literal(args[0]) ?? literal(props.get('path')) ?? '';
      pending.push({ method, sub, line: lineOf(member) });
    }
    flush();
  }

  /** `'1'` or `['1', '2']`; `VERSION_NEUTRAL` (not literal) is no version. */
  function versionList(v: Part[] | undefined): string[] | undefined {
    const text = literal(v);
    if (text === undefined) return undefined;
    return text.split(LIST_SEP).filter(Boolean);
  }

  function decorator(d: Node): { name: string; args: Part[][]; props: Map<string, Part[]> } {
    const expr = d.namedChild(0);
    if (expr?.type === 'call_expression') {
      const argNodes = expr.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => x !== null) ?? [];
      return {
        name: expr.childForFieldName('function')?.text ?? '',
        args: argNodes.map((a) => evaluate(a)),
        props: objectProps(argNodes[0] ?? null),
      };
    }
    return { name: expr?.text ?? '', args: [], props: new Map() };
  }

  /**
   * A function whose returned string is built from its parameters (`export const orderUrl = (base, id) =>
   * `${base}/orders/${id}``, a function declaration, a class method, an object's method), summarised for
   * its callers in other modules, named by its class or object (`Urls.orderUrl`, `api.orderUrl`).
   */
  function summariseFunction(fn: Node): void {
    const holder = fn.parent;
    const name =
      fn.childForFieldName('name')?.text ??
      (holder?.type === 'variable_declarator' || holder?.type === 'pair'
        ? holder.childForFieldName(holder.type === 'pair' ? 'key' : 'name')?.text
        : undefined);
    const body = fn.childForFieldName('body');
    if (!name || !body || !/^[A-Za-z_$][\w$]*$/.test(name)) return;
    const owner: string[] = [];
    if (fn.type === 'method_definition') {
      const cls = fn.parent?.parent;
      const c = cls?.childForFieldName('name')?.text;
      if (c) owner.push(c);
    } else if (holder?.type === 'pair') {
      const obj = holder.parent?.parent;
      const o = obj?.type === 'variable_declarator' ? obj.childForFieldName('name')?.text : undefined;
      if (!o) return;
      owner.push(o);
    }
    const params = (fn.childForFieldName('parameters')?.namedChildren ?? []).filter(
      (x): x is Node => x !== null && x.type !== 'comment',
    );
    const single = fn.childForFieldName('parameter');
    if (single) params.push(single);
    const names: string[] = [];
    for (const p of params) {
      const id = p.type === 'identifier' ? p : (p.childForFieldName('pattern') ?? p.childForFieldName('left'));
      if (id?.type !== 'identifier') return;
      names.push(id.text);
    }
    const returned: Node[] = [];
    if (body.type === 'statement_block') {
      for (const r of returnStatements(body, (t) => FUNCTIONS.has(t) || t === 'class_declaration')) {
        const v = r.namedChild(0);
        if (v) returned.push(v);
      }
    } else returned.push(body);
    if (returned.length === 0 || scope.depth > 0) return;
    const value = scope.inline(new Map(names.map((n, i) => [n, [paramPart(i)]])), returned);
    if (!summarisable(value)) return;
    sink.returnSummaries.push({
      name: [...owner, name].join('.'),
      params: names.length,
      required: params.filter((x) => x.type === 'identifier' || x.type === 'required_parameter').length,
      value,
    });
  }

  return {
    grpc: JS_GRPC,
    scan: (root, lookup) => scanNest(root, file, sink, lookup),
    captureAlso: CAPTURED,
    evaluate,
    declarations,
    rules: [
      {
        on: ['function_declaration', 'arrow_function', 'function_expression', 'function', 'method_definition'],
        each: summariseFunction,
      },
      { on: ['call_expression'], each: onMount },
      { on: ['call_expression'], each: onCall },
      { on: ['class_declaration', 'abstract_class_declaration'], each: onClass },
      { on: ['pair'], each: onProvider },
      sqlStringRule(sink, file, ['string', 'template_string'], (s) =>
        s.parent?.type === 'template_string'
          ? undefined
          : s.type === 'string'
            ? unquote(s.text)
            : (literal(evaluate(s)) ?? s.text),
      ),
    ],
  };
};

/** Functions that build a URL's query string from an object (`getQueryFromObject`, `toQueryString`, `buildQueryParams`). */
const QUERY_BUILDER =
  /^(?:(?:get|build|to|make|create|serialize|format|encode)Query(?:String|Params)?(?:From\w+)?|query(?:String|Params)(?:From\w+)?)$/i;

/** An injection token as its key: a string token by its value in single quotes, any other as written. */
function injectionToken(text: string): string {
  const s = /^(['"`])([^'"`]*)\1$/.exec(text.trim());
  return s ? `'${s[2]!}'` : text.trim();
}

/** TypeScript and JavaScript: Express, Fastify, NestJS; fetch, axios, got; amqplib, kafkajs, redis, mongo. */
export const extractJavaScript = extractorOf(javaScriptRules);

/** A bare `request(x)` argument that looks like a URL: a literal with `/` or `:`, a URL-named value, the env or config. */
function looksLikeUrl(url: readonly Part[]): boolean {
  return url.some(
    (p) =>
      ('lit' in p && /[/:]/.test(p.lit)) ||
      'env' in p ||
      'config' in p ||
      ('ref' in p && /(ur[il]|endpoint|host|base|address)$/i.test(p.ref)),
  );
}

/** The name of a module's default export as a wrapper (`default:hooks/use-request`; `x/index` is `x`). */
const DEFAULT_EXPORT = 'default:';

/** A source-relative module path without its extension and `/index` (what importers name). */
function moduleKey(path: string): string {
  return path.replace(/\.(ts|tsx|js|mjs|cjs|jsx)$/, '').replace(/\/index$/, '');
}

/** The process environment as JavaScript reads it. */
const ENV_OBJECT = /^(process\.env|import\.meta\.env)$/;

function withFallback(left: Part[], right: Part[]): Part[] {
  const fb = literal(right);
  const only = left.length === 1 ? left[0]! : undefined;
  if (only && fb !== undefined && 'env' in only) return [{ env: only.env, fallback: fb }];
  if (only && fb !== undefined && 'config' in only) return [{ config: only.config, fallback: fb }];
  if (only && 'ref' in only) return right;
  return left;
}

/** `./routes/orders` imported from `src/app.ts` → `src/routes/orders` (source-relative, no extension). */
export function joinModule(fromFile: string, spec: string): string {
  const parts = fromFile.split('/').slice(0, -1);
  for (const seg of spec.split('/')) {
    if (seg === '.' || seg === '') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/').replace(/\.(ts|tsx|js|mjs|cjs|jsx)$/, '');
}

/** The `route('/x')` call at the start of an Express route chain, and the router it is called on. */
function routeChainPath(node: Node | null): { path: Node; receiver: string } | undefined {
  let n = node;
  while (n?.type === 'call_expression') {
    const fn = n.childForFieldName('function');
    if (fn?.type !== 'member_expression') return undefined;
    const prop = fn.childForFieldName('property')?.text ?? '';
    if (prop === 'route') {
      const first = n.childForFieldName('arguments')?.namedChild(0);
      return first ? { path: first, receiver: fn.childForFieldName('object')?.text ?? '' } : undefined;
    }
    if (!VERBS.has(prop)) return undefined;
    n = fn.childForFieldName('object');
  }
  return undefined;
}
