import type { Node } from '../parsers';
import type { GoCtorCall, GoFunc, HttpMethod, Loc, Part } from '../model';
import { CATCH_ALL, joinPath } from '../routes';
import {
  HOLE_PART,
  LIST_SEP,
  MESSAGING_HELPER_NAME,
  captured,
  concat,
  declaredQueueName,
  httpMethod,
  lineOf,
  lit,
  literal,
  nameOf,
  routePath,
  sharedCallRules,
  sharedRuleName,
  paramPart,
  paramSetting,
  isParamPart,
  summarisable,
} from './common';
import type { MessageWrapper, Within } from './common';
import { type LanguageRules, extractorOf, sqlStringRule } from './driver';
import { GO_GRPC } from './grpc';
import { goOptionRules } from './go-options';
import { goNatsRules } from './nats';
import { goNetRpcRules } from './go-net-rpc';

const GIN_VERBS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'Any']);
const CHI_VERBS = new Set(['Get', 'Post', 'Put', 'Patch', 'Delete', 'Head', 'Options']);
const GO_NAMES = new Set([
  ...GIN_VERBS,
  ...CHI_VERBS,
  'HandleFunc',
  'Handle',
  'Handler',
  'HandlerFunc',
  'Method',
  'MethodFunc',
  'PostForm',
  'NewRequest',
  'NewRequestWithContext',
  'NewClient',
  'SubscribeTopics',
]);

/** Standard-library import paths: their calls are never another source's package. */
const STDLIB =
  /^(archive|bufio|bytes|cmp|compress|container|context|crypto|database|debug|embed|encoding|errors|expvar|flag|fmt|go|hash|html|image|index|io|iter|log|maps|math|mime|net|os|path|plugin|reflect|regexp|runtime|slices|sort|strconv|strings|sync|syscall|testing|text|time|unicode|unique|unsafe)(\/|$)/;

/** Receivers of standard-library and logging calls: never a publish helper of the source. */
const GO_LIBRARY_RECEIVER =
  /^(fmt|log|slog|errors|strings|strconv|json|http|os|time|context|sync|bytes|io|sort|math|url|filepath|regexp|reflect|zap|logrus|logger|log\.\w+|t|b)$/;

/** Go's predeclared functions: never a callee of the package. */
const GO_BUILTINS = new Set(
  'append cap clear close complex copy delete imag len make max min new panic print println real recover'.split(' '),
);
/** Callbacks kept per file, at most (a file of generated code passes hundreds of functions). */
const MAX_CALLBACKS = 200;
/** Calls through fields bound in another file, and the fields bound, kept per source at most. */
const MAX_FIELD_SITES = 2_000;

const args = (call: Node): Node[] =>
  (call.childForFieldName('arguments')?.namedChildren ?? []).filter(
    (x): x is Node => x !== null && x.type !== 'comment',
  );

const goRules: LanguageRules = ({ file, sink, scope }) => {
  const routers = new Map<string, { framework: string; prefix: string }>();
  /** The file's functions by name, for summaries of their returns. */
  const functions = new Map<string, Node>();
  /** The file's function and method declarations in document order (the walk's), for `enclosingFunc`. */
  const funcDecls: Node[] = [];
  const enclosing = new Map<number, { decl: Node; params: string[]; funcs: Set<string> }>();
  const summarising = new Set<string>();

  /**
   * A function without parameters summarised by its returns (`getTopic()` returning `os.Getenv("KAFKA_TOPIC")`
   * when set, else `"orders"`): one value when every return says the same, an environment lookup with the
   * literal default when the returns are that lookup and one literal; otherwise unknown.
   */
  function summary(name: string): Part[] | undefined {
    const fnNode = functions.get(name);
    if (!fnNode || summarising.has(name) || (fnNode.childForFieldName('parameters')?.namedChildren.length ?? 0) > 0)
      return undefined;
    summarising.add(name);
    try {
      const values: Part[][] = [];
      const visit = (n: Node, d: number): void => {
        if (d > 30 || n.type === 'func_literal') return;
        if (n.type === 'return_statement') {
          const e = n.namedChild(0)?.namedChild(0) ?? n.namedChild(0);
          if (e) values.push(evaluate(e));
        }
        for (const c of n.namedChildren) if (c) visit(c, d + 1);
      };
      const body = fnNode.childForFieldName('body');
      if (body) visit(body, 0);
      const distinct = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
      if (distinct.length === 1) return distinct[0];
      if (distinct.length === 2) {
        const env = distinct.find((v) => v.length === 1 && 'env' in v[0]!)?.[0] as { env: string } | undefined;
        const fb = distinct.map((v) => literal(v)).find((x) => x !== undefined);
        if (env && fb !== undefined) return [{ env: env.env, fallback: fb }];
      }
      return undefined;
    } finally {
      summarising.delete(name);
    }
  }

  /** amqp091 `ch.QueueDeclare(name, …)` (or `QueueDeclarePassive`): a queue declaration whose reply names it. */
  function declaresQueue(call: Node): boolean {
    const fn = call.type === 'call_expression' ? call.childForFieldName('function') : null;
    return (
      fn?.type === 'selector_expression' && /^QueueDeclare(Passive)?$/.test(fn.childForFieldName('field')?.text ?? '')
    );
  }

  function evaluate(node: Node): Part[] {
    switch (node.type) {
      case 'interpreted_string_literal':
      case 'raw_string_literal':
        return lit(node.text.slice(1, -1));
      case 'binary_expression': {
        const l = node.childForFieldName('left');
        const r = node.childForFieldName('right');
        if (l && r && node.childForFieldName('operator')?.text === '+') return concat(evaluate(l), evaluate(r));
        return [HOLE_PART];
      }
      case 'identifier': {
        const v = scope.param(node.text) ?? scope.lookup(node.text, node) ?? [{ ref: node.text }];
        return envDefaults.size ? withDefault(node, v) : v;
      }
      case 'selector_expression':
        return scope.param(node.text) ?? scope.lookup(node.text, node) ?? [{ ref: node.text }];
      case 'parenthesized_expression':
        return node.namedChild(0) ? evaluate(node.namedChild(0)!) : [HOLE_PART];
      case 'call_expression': {
        const fn = node.childForFieldName('function')?.text ?? '';
        const a = args(node);
        if ((fn === 'os.Getenv' || fn === 'os.LookupEnv') && a[0]) {
          const key = evaluate(a[0]);
          // `os.Getenv(key)` in a helper summarised for its callers: the setting the call's argument names.
          const only = key.length === 1 ? key[0] : undefined;
          if (only && isParamPart(only)) return [paramSetting(only)];
          return [{ env: literal(key) ?? '' }];
        }
        if (fn === 'fmt.Sprintf' && a[0]) {
          // The template's literal pieces are split at each verb; a known template part keeps its place
          // (`fmt.Sprintf("http://"+c.hostPort+"/customer?customer=%d", id)`).
          const out: Part[][] = [];
          let next = 1;
          for (const part of evaluate(a[0])) {
            if (!('lit' in part)) {
              out.push([part]);
              continue;
            }
            const pieces = part.lit.split(/%[-+# 0-9.]*[a-zA-Z]/);
            pieces.forEach((p, i) => {
              out.push(lit(p));
              if (i < pieces.length - 1) out.push(a[next] ? evaluate(a[next]!) : [HOLE_PART]);
              if (i < pieces.length - 1) next++;
            });
          }
          return concat(...out);
        }
        const fnNode = node.childForFieldName('function');
        if (declaresQueue(node)) return declaredQueueName(a[0] && evaluate(a[0]), file, lineOf(node));
        const own = fnNode?.type === 'identifier' && a.length === 0 ? summary(fn) : undefined;
        if (own) return own;
        // A function of another file or package (`urls.Order(base, id)`): its return summary.
        if (/^[A-Za-z_][\w.]*$/.test(fn))
          return sink.callValue(
            fn,
            a.map((x) => evaluate(x)),
          );
        return [HOLE_PART];
      }
      case 'composite_literal': {
        const body = node.childForFieldName('body');
        const items = (body?.namedChildren ?? [])
          .filter((x): x is Node => x !== null)
          .map((e) => (e.namedChild(0) ? (nameOf(evaluate(e.namedChild(0)!)) ?? '') : ''));
        return lit(items.join(LIST_SEP));
      }
      default:
        return [HOLE_PART];
    }
  }

  const bind = (names: Node | null, values: Node | null): void => {
    const ns = (names?.namedChildren ?? []).filter((x): x is Node => x !== null);
    const vs = (values?.namedChildren ?? []).filter((x): x is Node => x !== null);
    ns.forEach((n, i) => {
      const v = vs[i];
      if (!v || n.text === '_') return;
      scope.add(n.text, v, true);
      classify(n.text, v);
    });
    // amqp091: q, err := ch.QueueDeclare("emails", …) — `q.Name` is the declared queue's name (the broker's for "").
    const call = vs.length === 1 ? vs[0] : undefined;
    if (ns[0] && ns[0].text !== '_' && call && declaresQueue(call)) scope.add(`${ns[0].text}.Name`, call, true);
  };
  const declareSpec = (node: Node): void => {
    const name = node.childForFieldName('name');
    const value = node.childForFieldName('value');
    if (name && value) {
      const vs = value.namedChildren.filter((x): x is Node => x !== null);
      if (vs[0]) {
        scope.add(name.text, vs[0], true);
        classify(name.text, vs[0]);
      }
    }
  };
  /**
   * A helper that sets a variable or field through a pointer from an environment variable
   * (`mustMapEnv(&svc.cartAddr, "CART_ADDR")`, `envOr(&addr, "ADDR", "localhost:7070")`): that name holds
   * the setting in every file of the source.
   */
  const declareOutParameter = (call: Node): void => {
    const [target, key, fallback] = args(call);
    if (target?.type !== 'unary_expression' || !target.text.startsWith('&') || !key) return;
    const env = /^"([A-Z][A-Z0-9_]*)"$/.exec(key.text)?.[1];
    const operand = target.childForFieldName('operand');
    const name = operand?.type === 'selector_expression' ? operand.childForFieldName('field')?.text : operand?.text;
    if (!env || !name || !/^\w+$/.test(name)) return;
    const d = fallback?.type === 'interpreted_string_literal' ? fallback.text.slice(1, -1) : undefined;
    scope.set(name, [d === undefined ? { env } : { env, fallback: d }]);
  };
  const declareBinding = (node: Node): void => {
    if (node.type === 'assignment_statement' && defaultAssignment(node)) return;
    bind(node.childForFieldName('left'), node.childForFieldName('right'));
  };

  /** `if t == "" { t = "orders" }` after `t := os.Getenv("TOPIC")`: the default of `t`, by function and name. */
  const envDefaults = new Map<string, string>();
  /** The start offsets of the functions around a node, nearest first. */
  const functionStarts = (node: Node): number[] => {
    const out: number[] = [];
    for (let n: Node | null = node.parent; n; n = n.parent)
      if (n.type === 'function_declaration' || n.type === 'method_declaration' || n.type === 'func_literal')
        out.push(n.startIndex);
    return out;
  };
  /**
   * A literal assigned to a variable when it is empty (`if t == "" { t = "orders" }`, `if len(t) == 0 {…}`, the
   * only statement of the branch): the default of the setting the variable was read from, not another value.
   */
  function defaultAssignment(node: Node): boolean {
    const left = node.childForFieldName('left')?.namedChildren ?? [];
    const right = node.childForFieldName('right')?.namedChildren ?? [];
    const name = left[0];
    const value = right[0];
    if (left.length !== 1 || right.length !== 1 || name?.type !== 'identifier') return false;
    if (value?.type !== 'interpreted_string_literal' && value?.type !== 'raw_string_literal') return false;
    let block = node.parent;
    if (block?.type === 'statement_list') block = block.parent;
    const branch = block?.parent;
    if (block?.type !== 'block' || branch?.type !== 'if_statement') return false;
    if (branch.childForFieldName('consequence')?.startIndex !== block.startIndex) return false;
    if (block.descendantsOfType(['assignment_statement', 'short_var_declaration', 'call_expression']).length !== 1)
      return false;
    const cond = branch.childForFieldName('condition')?.text.replace(/\s+/g, '') ?? '';
    const n = name.text;
    if (cond !== `${n}==""` && cond !== `""==${n}` && cond !== `len(${n})==0`) return false;
    const owner = functionStarts(node)[0];
    if (owner === undefined) return false;
    envDefaults.set(`${owner}|${n}`, value.text.slice(1, -1));
    return true;
  }
  /** A variable read from a setting without a default, given one in its function (`defaultAssignment`). */
  function withDefault(node: Node, v: Part[]): Part[] {
    const only = v.length === 1 ? v[0]! : undefined;
    if (!only || !('env' in only) || only.fallback !== undefined) return v;
    for (const start of functionStarts(node)) {
      const d = envDefaults.get(`${start}|${node.text}`);
      if (d !== undefined) return [{ env: only.env, fallback: d }];
    }
    return v;
  }

  function classify(name: string, value: Node): void {
    if (value.type !== 'call_expression') return;
    const fnNode = value.childForFieldName('function');
    const fn = fnNode?.text ?? '';
    if (/^gin\.(Default|New)$/.test(fn)) routers.set(name, { framework: 'gin', prefix: '' });
    else if (/^echo\.New$/.test(fn)) routers.set(name, { framework: 'echo', prefix: '' });
    else if (/^chi\.NewRouter$/.test(fn)) routers.set(name, { framework: 'chi', prefix: '' });
    else if (/^mux\.NewRouter$/.test(fn)) routers.set(name, { framework: 'gorilla/mux', prefix: '' });
    else if (/^http\.NewServeMux$/.test(fn)) routers.set(name, { framework: 'net/http', prefix: '' });
    else if (fnNode?.type === 'selector_expression') {
      // v1 := r.Group("/v1");  api := r.PathPrefix("/api").Subrouter()
      const field = fnNode.childForFieldName('field')?.text;
      const operand = fnNode.childForFieldName('operand');
      if (field === 'Group' && operand) {
        const parent = routers.get(operand.text);
        const p = args(value)[0];
        if (parent && p)
          routers.set(name, {
            framework: parent.framework,
            prefix: joinPath(parent.prefix, literal(evaluate(p)) ?? ''),
          });
      }
      if (field === 'Subrouter' && operand?.type === 'call_expression') {
        const inner = operand.childForFieldName('function');
        const parent = routers.get(inner?.childForFieldName('operand')?.text ?? '');
        const p = args(operand)[0];
        if (inner?.childForFieldName('field')?.text === 'PathPrefix' && p)
          routers.set(name, {
            framework: parent?.framework ?? 'gorilla/mux',
            prefix: joinPath(parent?.prefix ?? '', literal(evaluate(p)) ?? ''),
          });
      }
    }
  }

  /** `"GET"`, `http.MethodGet` or a constant: the HTTP methods of a gorilla `Methods(...)` call. */
  function methodsOf(call: Node): HttpMethod[] {
    const out: HttpMethod[] = [];
    for (const a of args(call)) {
      const m = httpMethod(a.text.replace(/^http\.Method/, '')) ?? httpMethod(literal(evaluate(a)));
      if (m && !out.includes(m)) out.push(m);
    }
    return out;
  }

  /**
   * gorilla/mux and go-kit routes built as a chain ending in `Handler`/`HandlerFunc`:
   * `r.Path("/x").Methods("GET").HandlerFunc(h)`, `r.Methods("GET").Path("/x").Handler(httptransport.NewServer(…))`,
   * in any order. A chain with a `PathPrefix` and no `Path` serves everything below the prefix (`/prefix/**`).
   */
  function routeChain(call: Node, loc: { file: string; line: number }): void {
    let path: string | undefined;
    let methods: HttpMethod[] = [];
    let hasPath = false;
    let prefix = '';
    let pathArg: Node | undefined;
    let node: Node | null | undefined = call.childForFieldName('function')?.childForFieldName('operand');
    while (node?.type === 'call_expression') {
      const fn = node.childForFieldName('function');
      if (fn?.type !== 'selector_expression') return;
      const field = fn.childForFieldName('field')?.text;
      const first = args(node)[0];
      if (field === 'Path' && first) {
        hasPath = true;
        path = literal(evaluate(first));
        pathArg = first;
      } else if (field === 'PathPrefix' && first) prefix = joinPath(literal(evaluate(first)) ?? '{}', prefix);
      else if (field === 'Methods') methods = methodsOf(node);
      else if (!/^(Queries|Headers|HeadersRegexp|Schemes|Host|Name|MatcherFunc)$/.test(field ?? '')) return;
      node = fn.childForFieldName('operand');
    }
    if (node && hasPath && path === undefined && !prefix) {
      const r = node.type === 'call_expression' ? undefined : node.text;
      if (r) loopRoute(call, pathArg, r, routers.get(r)?.framework ?? 'gorilla/mux');
      return;
    }
    if (!node || (hasPath ? path === undefined : !prefix)) return;
    const router = routers.get(node.text);
    if (!router && methods.length === 0) return;
    const handler = args(call)[0]?.text ?? '';
    const framework = /^(httptransport|kithttp)\.NewServer\b/.test(handler) ? 'go-kit' : 'gorilla/mux';
    const full = joinPath(prefixOf(call, node.text), prefix, hasPath ? path! : CATCH_ALL);
    for (const m of methods.length ? methods : (['ANY'] as HttpMethod[])) sink.endpoint(m, full, framework, loc);
  }

  /** chi `r.Mount("/orders", ordersRouter())`: the routes of the function `ordersRouter` (same file) take the prefix. */
  const mountedFuncs = new Map<string, { prefix: string; at: Node }>();
  /** The handler calls chi `Mount`s (by position), with the prefix: a callback parameter's call mounted so. */
  const mountedCalls = new Map<number, string>();
  /** chi `r.Mount("/orders", orders)` of a router variable. */
  const mountedVars = new Map<string, string>();

  function onMountCall(call: Node): void {
    const fn = call.childForFieldName('function');
    if (fn?.type !== 'selector_expression' || fn.childForFieldName('field')?.text !== 'Mount') return;
    const [p, h] = args(call);
    const prefix = p ? literal(evaluate(p)) : undefined;
    if (prefix === undefined || !h) return;
    const router = routers.get(fn.childForFieldName('operand')?.text ?? '');
    const full = joinPath(router?.prefix ?? '', routePrefix(call), prefix);
    if (h.type === 'call_expression') {
      mountedCalls.set(h.startIndex, full);
      const target = h.childForFieldName('function');
      const name = target?.type === 'selector_expression' ? target.childForFieldName('field')?.text : target?.text;
      if (name && target?.type !== 'func_literal') mountedFuncs.set(name, { prefix: full, at: call });
    } else if (h.type === 'identifier' && routers.has(h.text)) mountedVars.set(h.text, full);
  }

  /** The prefix a chi `Mount` gives the function around `node` (mounts of mounts joined). */
  function mountPrefix(node: Node, depth = 0): string {
    if (depth > 8 || mountedFuncs.size === 0) return '';
    let n: Node | null = node.parent;
    while (n && n.type !== 'function_declaration' && n.type !== 'method_declaration') n = n.parent;
    const mount = n ? mountedFuncs.get(n.childForFieldName('name')?.text ?? '') : undefined;
    return mount ? joinPath(mountPrefix(mount.at, depth + 1), mount.prefix) : '';
  }

  /** The prefixes in front of a route registered on `receiver` at `call`. */
  const prefixOf = (call: Node, receiver: string): string =>
    joinPath(
      mountPrefix(call),
      mountedVars.get(receiver) ?? '',
      routers.get(receiver)?.prefix ?? '',
      routePrefix(call),
    );

  /** chi `r.Route("/orders", func(r chi.Router) { ... })` prefixes the calls inside the function. */
  function routePrefix(node: Node): string {
    const parts: string[] = [];
    for (let n: Node | null = node.parent; n; n = n.parent) {
      if (n.type !== 'func_literal') continue;
      const call = n.parent?.parent;
      if (call?.type !== 'call_expression') continue;
      const fn = call.childForFieldName('function');
      if (fn?.type === 'selector_expression' && fn.childForFieldName('field')?.text === 'Route') {
        const p = args(call)[0];
        if (p) parts.unshift(literal(evaluate(p)) ?? '');
      }
    }
    return joinPath(...parts);
  }

  /**
   * A route's path; one under a base path the enclosing function takes as a parameter or a parameter's field
   * (oapi-codegen's `r.Get(options.BaseURL+"/pets", …)` in `HandlerWithOptions`, echo's `baseURL+"/pets"`) is
   * the path below it: `HandlerFromMux` and `RegisterHandlers` leave the base empty (a caller's own base is
   * not followed).
   */
  function routeOf(value: readonly Part[], call: Node): string | undefined {
    const path = routePath([...value]);
    if (path !== undefined) return path;
    const [head, ...rest] = value;
    const tail = literal(rest);
    if (!head || !('ref' in head) || tail === undefined || !tail.startsWith('/')) return undefined;
    return enclosingFunc(call)?.params.includes(head.ref.split('.')[0]!) ? tail : undefined;
  }

  function onCall(call: Node): void {
    const fn = call.childForFieldName('function');
    if (!fn) return;
    const callee = fn.type === 'selector_expression' ? (fn.childForFieldName('field')?.text ?? '') : fn.text;
    if (!GO_NAMES.has(callee) && !sharedRuleName(callee)) return;
    const a = args(call);
    const vals = a.map((x) => evaluate(x));
    const loc = { file, line: lineOf(call) };
    const name = fn.type === 'selector_expression' ? (fn.childForFieldName('field')?.text ?? '') : fn.text;
    const operand = fn.type === 'selector_expression' ? fn.childForFieldName('operand') : null;
    const receiver = operand?.text ?? '';
    if (kafkaCall(call, name, receiver, a, loc)) return;
    // A `Publish(ctx, …)` is no amqp091 `Publish(exchange, key, …)` (its context form is `PublishWithContext`).
    if (!(name === 'Publish' && isContext(a[0])))
      sharedCallRules({ name, receiver, args: vals, named: new Map(), loc }, sink);
    if (name === 'SubscribeTopics' && vals[0])
      for (const t of (nameOf(vals[0]) ?? '').split(LIST_SEP).filter(Boolean)) sink.consume('kafka', t, loc);

    // ---- endpoints
    const router = routers.get(receiver);
    if ((name === 'HandleFunc' || name === 'Handle') && vals[0]) {
      const pattern = routeOf(vals[0], call);
      if (pattern === undefined) {
        loopRoute(call, a[0], receiver, router?.framework ?? 'gorilla/mux');
        return;
      }
      // Go 1.22 patterns: "GET /orders/{id}"
      const m = /^([A-Z]+)\s+(\/.*)$/.exec(pattern);
      let methods: HttpMethod[] = [m ? (httpMethod(m[1]) ?? 'ANY') : 'ANY'];
      const path = m ? m[2]! : pattern;
      // gorilla: r.HandleFunc("/x", h).Methods("POST", http.MethodHead)
      const outer =
        call.parent?.type === 'selector_expression' && call.parent.childForFieldName('field')?.text === 'Methods'
          ? call.parent.parent
          : null;
      if (outer?.type === 'call_expression') {
        const listed = methodsOf(outer);
        if (listed.length) methods = listed;
      }
      const framework = router?.framework ?? (receiver === 'http' ? 'net/http' : outer ? 'gorilla/mux' : 'net/http');
      for (const method of methods) sink.endpoint(method, joinPath(prefixOf(call, receiver), path), framework, loc);
      return;
    }
    if (
      (GIN_VERBS.has(name) || CHI_VERBS.has(name)) &&
      vals[0] &&
      a.length >= 2 &&
      receiver &&
      receiver !== 'http' &&
      !/client/i.test(receiver)
    ) {
      const path = routeOf(vals[0], call);
      // gin/echo groups also serve their own prefix: items.POST("", create)
      if (path === undefined || !(path.startsWith('/') || (path === '' && router?.prefix))) return;
      const framework = router?.framework ?? (CHI_VERBS.has(name) ? 'chi' : 'gin');
      sink.endpoint(httpMethod(name) ?? 'ANY', joinPath(prefixOf(call, receiver), path), framework, loc);
      return;
    }
    // chi: r.Method(http.MethodGet, "/x", h), r.MethodFunc("POST", "/x", h)
    if ((name === 'Method' || name === 'MethodFunc') && a.length >= 3 && router) {
      const path = literal(vals[1]);
      const m = httpMethod(a[0]!.text.replace(/^http\.Method/, '')) ?? httpMethod(literal(vals[0]));
      if (path !== undefined && m) sink.endpoint(m, joinPath(prefixOf(call, receiver), path), router.framework, loc);
      return;
    }
    // gorilla / go-kit: r.Methods("GET").Path("/x").Handler(httptransport.NewServer(...)), in any order
    if (name === 'Handler' || name === 'HandlerFunc') {
      routeChain(call, loc);
      return;
    }

    // ---- HTTP client
    if (
      (receiver === 'http' || (/client/i.test(receiver) && !generatedFile(call) && !isContext(a[0]))) &&
      /^(Get|Head|Post|PostForm)$/.test(name) &&
      vals[0]
    ) {
      sink.call(httpMethod(name === 'PostForm' ? 'POST' : name)!, vals[0], 'net/http', loc);
      return;
    }
    if (receiver === 'http' && (name === 'NewRequest' || name === 'NewRequestWithContext')) {
      const off = name === 'NewRequest' ? 0 : 1;
      const m = a[off];
      const method = m
        ? (httpMethod(m.text.replace(/^http\.Method/, '')) ?? httpMethod(literal(evaluate(m))))
        : undefined;
      if (vals[off + 1]) sink.call(method ?? 'GET', vals[off + 1]!, 'net/http', loc);
      return;
    }
    if (/^(httptransport|kithttp)$/.test(receiver) && name === 'NewClient' && vals[1]) {
      sink.call(httpMethod(literal(vals[0])) ?? 'GET', vals[1], 'go-kit', loc);
    }
  }

  /**
   * Generated code (`// Code generated by ent, DO NOT EDIT.`, the Go convention): its `client` names are the
   * generator's (an ORM's `m.Client().Ticket.Get(ctx, id)`), never taken for an HTTP client by their name.
   */
  let generated: boolean | undefined;
  const generatedFile = (node: Node): boolean =>
    (generated ??= /^\/\/ Code generated .*DO NOT EDIT\.?\s*$/m.test(node.tree.rootNode.text.slice(0, 4000)));

  /** A context argument (`ctx`, `r.Context()`, `context.Background()`): net/http's `Get(url)` takes none. */
  const isContext = (arg: Node | undefined): boolean =>
    !!arg && (/^(ctx|\w*Ctx|context)$/.test(arg.text) || /^(context\.\w+\(.*\)|\w+\.Context\(\))$/s.test(arg.text));

  /** A row value of a route table: a string, `http.MethodGet`, or `strings.ToUpper("Get")`. */
  function rowString(v: Node): string | undefined {
    if (v.type === 'selector_expression' && /^http\.Method\w+$/.test(v.text)) return v.text.slice('http.Method'.length);
    if (
      v.type === 'call_expression' &&
      /^strings\.To(Upper|Lower)$/.test(v.childForFieldName('function')?.text ?? '')
    ) {
      const a = args(v)[0];
      return a ? literal(evaluate(a)) : undefined;
    }
    return literal(evaluate(v));
  }

  /**
   * A route table: a slice literal of struct rows holding a path (`Routes{Route{"Name", "GET", "/x", h}, …}`,
   * positional or keyed), each row's path its string starting with `/` and its method the one naming an HTTP
   * method (an upper-case one first); kept by variable name for the loops that register its rows.
   */
  function onRouteTable(c: Node): void {
    const holder = c.parent?.type === 'expression_list' ? c.parent.parent : c.parent;
    let name: string | undefined;
    if (holder?.type === 'var_spec') name = holder.childForFieldName('name')?.text;
    else if (holder?.type === 'short_var_declaration' || holder?.type === 'assignment_statement')
      name = holder.childForFieldName('left')?.text;
    if (!name || !/^\w+$/.test(name)) return;
    const rows: { path: string; method?: HttpMethod; line: number }[] = [];
    for (const el of c.childForFieldName('body')?.namedChildren ?? []) {
      const inner = el?.type === 'literal_element' ? el.namedChild(0) : el;
      const body = inner?.type === 'composite_literal' ? inner.childForFieldName('body') : inner;
      if (body?.type !== 'literal_value') continue;
      let path: string | undefined;
      let line = 0;
      const methods: string[] = [];
      for (const f of body.namedChildren) {
        const v = f?.type === 'keyed_element' ? f.namedChildren[1] : f;
        const node = v?.type === 'literal_element' ? v.namedChild(0) : v;
        const str = node ? rowString(node) : undefined;
        if (str === undefined) continue;
        if (path === undefined && str.startsWith('/')) {
          path = str;
          line = lineOf(node!);
        } else if (httpMethod(str) && str !== 'ANY') methods.push(str);
      }
      if (path === undefined) continue;
      const method = httpMethod(methods.find((m) => m === m.toUpperCase()) ?? methods[0]);
      rows.push(method ? { path, method, line } : { path, line });
    }
    if (rows.length) (sink.facts.goRouteTables ??= []).push({ file, table: name, rows });
  }

  /**
   * A route registered in a loop over a table (`for _, route := range routes { sub.HandleFunc(route.Pattern, …)
   * .Methods(route.Method) }`): the table's rows are the routes, under the prefix of the router registering them.
   */
  function loopRoute(call: Node, pathArg: Node | undefined, receiver: string, framework: string): boolean {
    if (pathArg?.type !== 'selector_expression') return false;
    const v = pathArg.childForFieldName('operand')?.text;
    for (let n: Node | null = call.parent; n; n = n.parent) {
      if (n.type === 'function_declaration' || n.type === 'func_literal' || n.type === 'method_declaration') break;
      if (n.type !== 'for_statement') continue;
      const range = n.namedChildren.find((x) => x?.type === 'range_clause');
      const left = range?.childForFieldName('left')?.namedChildren.map((x) => x?.text) ?? [];
      const table = range?.childForFieldName('right');
      if (!v || left[left.length - 1] !== v || table?.type !== 'identifier') continue;
      // A `Methods(route.X)` anywhere on the chain: each row's own method.
      let methods = false;
      for (let c: Node | null = call; c; c = c.parent?.parent ?? null) {
        const sel = c.type === 'call_expression' ? c.childForFieldName('function') : null;
        if (sel?.type === 'selector_expression' && sel.childForFieldName('field')?.text === 'Methods') methods = true;
        if (c.parent?.type !== 'selector_expression') break;
      }
      for (let c = call.childForFieldName('function')?.childForFieldName('operand'); c?.type === 'call_expression';) {
        const sel = c.childForFieldName('function');
        if (sel?.childForFieldName('field')?.text === 'Methods') methods = true;
        c = sel?.childForFieldName('operand');
      }
      const prefix = prefixOf(call, receiver);
      (sink.facts.goRouteLoops ??= []).push({ file, table: table.text, prefix, framework, methods });
      return true;
    }
    return false;
  }

  /**
   * kafka-go writers in a map keyed by topic: `map[string]*kafka.Writer{"orders": kafka.NewWriter(…)}`, the keys
   * and the literal's lines (the writers' declarations), for the helpers that look a writer up by topic.
   */
  function onWriterMap(c: Node): void {
    if (!/^map\[string\]\*?kafka\.Writer$/.test(c.childForFieldName('type')?.text ?? '')) return;
    const keys: string[] = [];
    for (const el of c.childForFieldName('body')?.namedChildren ?? []) {
      if (el?.type !== 'keyed_element') continue;
      const k = el.namedChildren[0];
      const key = k ? literal(evaluate(k.namedChild(0) ?? k)) : undefined;
      if (key !== undefined) keys.push(key);
    }
    (sink.facts.goWriterMaps ??= []).push({ file, start: lineOf(c), end: c.endPosition.row + 1, keys });
  }

  /** `writers["orders"] = kafka.NewWriter(…)` (or `&kafka.Writer{…}`): a writer kept in a map under its topic. */
  function onWriterMapSet(node: Node): void {
    const left = node.childForFieldName('left')?.namedChildren ?? [];
    const right = node.childForFieldName('right')?.namedChildren ?? [];
    const target = left[0];
    const value = right[0];
    if (left.length !== 1 || target?.type !== 'index_expression' || !value) return;
    if (!/^&?kafka\.(NewWriter\s*\(|Writer\s*\{)/.test(value.text)) return;
    const index = target.childForFieldName('index');
    const key = index ? literal(evaluate(index)) : undefined;
    const keys = key !== undefined ? [key] : index?.type === 'identifier' ? rangedOver(node, index.text) : [];
    if (keys.length === 0) return;
    (sink.facts.goWriterMaps ??= []).push({ file, start: lineOf(node), end: node.endPosition.row + 1, keys });
  }

  /** The strings a loop around `node` ranges over with `name` (`for _, t := range []string{"a", "b"}`, or a list variable). */
  function rangedOver(node: Node, name: string): string[] {
    for (let n: Node | null = node.parent; n; n = n.parent) {
      if (n.type === 'function_declaration' || n.type === 'method_declaration' || n.type === 'func_literal') break;
      if (n.type !== 'for_statement') continue;
      const range = n.namedChildren.find((x) => x?.type === 'range_clause');
      const left = range?.childForFieldName('left')?.namedChildren ?? [];
      const list = range?.childForFieldName('right');
      if (!list || left[left.length - 1]?.text !== name) continue;
      const value = literal(evaluate(list));
      return value ? value.split(LIST_SEP).filter(Boolean) : [];
    }
    return [];
  }

  /**
   * A publish helper taking the topic: it looks a kafka-go writer up by that parameter (`w, ok :=
   * u.writers[topic]; if !ok { return ErrNoTopic }; w.WriteMessages(ctx, msg)`, or `writers[topic].WriteMessages(…)`).
   * Each call of it naming a topic is the publish (a wrapper guarded by the source's writer-map keys).
   */
  function onWriterLookup(call: Node): void {
    const fn = call.childForFieldName('function');
    if (fn?.type !== 'selector_expression' || fn.childForFieldName('field')?.text !== 'WriteMessages') return;
    const operand = fn.childForFieldName('operand');
    const encl = enclosingFunc(call);
    if (!operand || !encl || encl.params.length === 0) return;
    let lookup: Node | null | undefined = operand.type === 'index_expression' ? operand : undefined;
    if (!lookup && operand.type === 'identifier') {
      const body = encl.decl.childForFieldName('body');
      for (const d of body ? body.descendantsOfType(['short_var_declaration', 'assignment_statement']) : []) {
        if (!d || d.startIndex > call.startIndex) break;
        if (d.childForFieldName('left')?.namedChild(0)?.text !== operand.text) continue;
        const v = d.childForFieldName('right')?.namedChild(0);
        lookup = v?.type === 'index_expression' ? v : null;
      }
    }
    const index = lookup?.childForFieldName('index');
    if (index?.type !== 'identifier' || !encl.params.includes(index.text)) return;
    const name = encl.decl.childForFieldName('name')?.text;
    if (!name) return;
    sink.messageWrappers.push({
      within: { name, params: encl.params },
      broker: 'kafka',
      exchange: [],
      key: [{ ref: index.text }],
      loc: { file, line: lineOf(call) },
      guard: 'writerMap',
    });
  }

  /**
   * A call of a function or method by name with arguments (`uc.PublishMessage(ctx, "user-created", p)`): a caller
   * of a publish helper of the source, if one has that name (`applyMessageWrappers`).
   */
  let siteCount = 0;
  function onSite(call: Node): void {
    const fn = call.childForFieldName('function');
    const name = fn?.type === 'selector_expression' ? fn.childForFieldName('field')?.text : fn?.text;
    if (!name || !/^\w+$/.test(name) || GO_BUILTINS.has(name) || siteCount >= MAX_FIELD_SITES || generatedFile(call))
      return;
    const receiver = fn?.type === 'selector_expression' ? fn.childForFieldName('operand')?.text : '';
    if (receiver && GO_LIBRARY_RECEIVER.test(receiver)) return;
    const a = args(call);
    // Only a call naming something: a string, or a name that may be a constant or the caller's parameter.
    if (!a.some((x) => /^(interpreted_string_literal|raw_string_literal|identifier|selector_expression)$/.test(x.type)))
      return;
    siteCount++;
    const encl = enclosingFunc(call);
    const outer = encl?.decl.childForFieldName('name')?.text;
    sink.sites.push({
      name,
      args: a.map((x) => evaluate(x)),
      loc: { file, line: lineOf(call) },
      ...(outer && encl?.params.length ? { within: { name: outer, params: encl.params } } : {}),
    });
  }

  /** confluent-kafka-go messages whose topic a `Produce` call at its own line reads (not read again). */
  const producedMessages = new Set<number>();
  let confluentFile: boolean | undefined;
  /** confluent-kafka-go `kafka.Message{TopicPartition: kafka.TopicPartition{Topic: …}}`: the topic's node. */
  function messageTopic(msg: Node): Node | undefined {
    if (msg.type !== 'composite_literal' || !/\bkafka\.Message$/.test(msg.childForFieldName('type')?.text ?? ''))
      return undefined;
    for (const el of msg.childForFieldName('body')?.namedChildren ?? []) {
      if (el?.type !== 'keyed_element') continue;
      const [k, v] = el.namedChildren;
      const tp = v ? valueOf(v) : undefined;
      if ((k?.namedChild(0) ?? k)?.text !== 'TopicPartition' || tp?.type !== 'composite_literal') continue;
      for (const x of tp.childForFieldName('body')?.namedChildren ?? []) {
        if (x?.type !== 'keyed_element') continue;
        const [tk, tv] = x.namedChildren;
        if ((tk?.namedChild(0) ?? tk)?.text === 'Topic' && tv) return tv;
      }
    }
    return undefined;
  }

  /**
   * Kafka client calls whose topic is a value (`Produce(&kafka.Message{…}, nil)` or of a message variable,
   * confluent `Subscribe(c.topic, nil)` / `SubscribeTopics([]string{topic}, nil)`, sarama `ConsumePartition(topic,
   * …)` and `group.Consume(ctx, []string{topic}, h)`): read through `kafkaTopic`; true when handled.
   */
  function kafkaCall(call: Node, name: string, receiver: string, a: Node[], loc: Loc): boolean {
    if (name === 'Produce' && a[0]) {
      let msg = valueOf(a[0]);
      if (msg.type === 'identifier') {
        const bound = scope.node(msg.text, call);
        msg = bound ? valueOf(bound) : msg;
      }
      const topic = messageTopic(msg);
      if (!topic) return false;
      producedMessages.add(msg.startIndex);
      kafkaTopic('publish', topic, loc);
      return true;
    }
    if (name === 'ConsumePartition' && a[0]) {
      kafkaTopic('consume', a[0], loc);
      return true;
    }
    const list = (n: Node | undefined): Node[] | undefined => {
      const v = n ? valueOf(n) : undefined;
      if (v?.type !== 'composite_literal') return undefined;
      return (v.childForFieldName('body')?.namedChildren ?? []).filter((x): x is Node => x !== null);
    };
    // sarama consumer groups: group.Consume(ctx, []string{c.topic}, handler)
    if (name === 'Consume' && a.length === 3 && /group/i.test(receiver)) {
      const items = list(a[1]);
      if (!items) return false;
      for (const x of items) kafkaTopic('consume', x, loc);
      return true;
    }
    if (name !== 'Subscribe' && name !== 'SubscribeTopics') return false;
    confluentFile ??= /"github\.com\/confluentinc\/confluent-kafka-go/.test(call.tree.rootNode.text);
    if (!confluentFile || !a[0]) return false;
    if (name === 'Subscribe') {
      kafkaTopic('consume', a[0], loc);
      return true;
    }
    const items = list(a[0]);
    if (!items) return false;
    for (const x of items) kafkaTopic('consume', x, loc);
    return true;
  }

  // kafka-go / sarama: kafka.Writer{Topic: "x"}, kafka.Message{Topic: "x"} (a Writer without a topic), kafka.ReaderConfig{Topic: "x"}, sarama.ProducerMessage{Topic: "x"}
  function onComposite(c: Node): void {
    const type = c.childForFieldName('type')?.text ?? '';
    // confluent-kafka-go: a message not handed to `Produce` where it is written (`p.ProduceChannel() <- msg`).
    if (!producedMessages.has(c.startIndex)) {
      const topic = messageTopic(c);
      if (topic) kafkaTopic('publish', topic, { file, line: lineOf(c) });
    }
    const producer = /(kafka\.(Writer|WriterConfig|Message)|sarama\.ProducerMessage)$/.test(type);
    const consumer = /kafka\.(Reader|ReaderConfig)$/.test(type);
    if (!producer && !consumer) return;
    for (const el of c.childForFieldName('body')?.namedChildren ?? []) {
      if (el?.type !== 'keyed_element') continue;
      const [k, v] = el.namedChildren;
      // A consumer group's several topics (`GroupTopics: []string{"a", cfg.B}`): each one consumed there.
      if (consumer && k?.text === 'GroupTopics' && v) {
        const list = (v.namedChild(0) ?? v).childForFieldName('body')?.namedChildren ?? [];
        for (const item of list) if (item) consumeTopic(item.namedChild(0) ?? item, { file, line: lineOf(item) });
        continue;
      }
      if (k?.text !== 'Topic' || !v) continue;
      // `Topic: kafka.Topic` (a variable of another file or package: resolved with the source's constants),
      // `Topic: w.topic` (a receiver's field), `Topic: topic` (a parameter: its callers name it).
      kafkaTopic(producer ? 'publish' : 'consume', v, { file, line: lineOf(el) }, false);
    }
  }

  function consumeTopic(value: Node, loc: Loc): void {
    const parts = evaluate(value);
    const topic = literal(parts);
    if (topic !== undefined) sink.consume('kafka', topic, loc);
    else if (parts.some((p) => 'ref' in p)) sink.topicRefs.push({ side: 'consume', parts, loc });
  }

  /**
   * A kafka-go or sarama handler that dispatches on the message's topic (`switch m.Topic { case
   * cfg.Topics.Created.Name: … }`) consumes each topic it names, there: the reader subscribing to them may be
   * a shared package's, configured with a list this site need not spell.
   */
  let kafkaFile: boolean | undefined;
  function onTopicSwitch(node: Node): void {
    const value = node.childForFieldName('value');
    if (value?.type !== 'selector_expression' || value.childForFieldName('field')?.text !== 'Topic') return;
    kafkaFile ??= /"github\.com\/(segmentio\/kafka-go|Shopify\/sarama|IBM\/sarama)"/.test(node.tree.rootNode.text);
    if (!kafkaFile) return;
    for (const c of node.namedChildren) {
      if (c?.type !== 'expression_case') continue;
      for (const v of c.childForFieldName('value')?.namedChildren ?? [])
        if (v) consumeTopic(v, { file, line: lineOf(v) });
    }
  }

  /** GORM: `func (Order) TableName() string { return "orders" }` names the model's table. */
  function onTableName(node: Node): void {
    if (node.childForFieldName('name')?.text !== 'TableName') return;
    const body = node.childForFieldName('body');
    const ret = within(body, 'return_statement')[0];
    const value = ret?.namedChild(0);
    const table = value
      ? literal(evaluate(value.type === 'expression_list' ? (value.namedChild(0) ?? value) : value))
      : undefined;
    if (table) sink.data('table', table, { file, line: lineOf(node) });
  }

  // ---- Go packages: functions, imports and the calls of imported packages (reported at the importer's call site)
  let pkg = '';
  /** Import names (alias or last path segment) of packages outside the standard library. */
  const imported = new Set<string>();
  /** Each import name's path (`usergrpc` → `shop/user_svc/api/grpc`). */
  const importPath = new Map<string, string>();
  /** Names bound to what an imported package's function returned (`client: tracing.NewHTTPClient(tp)`). */
  const boundTo = new Map<string, string>();
  /** The constructor call a name is bound to (`c := orders.NewClient(cfg)`), for the fields it sets. */
  const boundCtor = new Map<string, GoCtorCall>();
  /** A call's name and arguments, a struct literal argument also by its keys (`orders.Config{URL: …}`). */
  const ctorCall = (value: Node | null | undefined): GoCtorCall | undefined => {
    const v = value?.type === 'literal_element' ? value.namedChild(0) : value;
    const fn = v?.type === 'call_expression' ? v.childForFieldName('function') : null;
    const name = fn?.type === 'selector_expression' ? fn.childForFieldName('field')?.text : undefined;
    if (!v || !name) return undefined;
    const keyed: Record<number, Record<string, Part[]>> = {};
    args(v).forEach((a, i) => {
      const lit = a.type === 'unary_expression' ? a.childForFieldName('operand') : a;
      if (lit?.type === 'composite_literal') keyed[i] = keyedFields(lit);
    });
    return { name, args: args(v).map((x) => evaluate(x)), ...(Object.keys(keyed).length ? { keyed } : {}) };
  };
  /** A name bound to a value of an imported package, for calls through it in the package's other files. */
  const hold = (name: string, p: string, ctor?: GoCtorCall, type?: string): void => {
    if ((sink.facts.goHolders?.length ?? 0) < MAX_FIELD_SITES && !generated)
      (sink.facts.goHolders ??= []).push({
        in: pkg,
        name,
        pkg: p,
        ...(ctor ? { ctor } : {}),
        ...(type ? { type } : {}),
      });
  };
  /** A name declared with a type of an imported package (`usersvc user.Service`), by the package's path. */
  const typed = (name: string, t: Node | null | undefined): void => {
    const q = t?.type === 'pointer_type' ? t.namedChild(0) : t;
    if (q?.type !== 'qualified_type' || generated) return;
    const path = importPath.get(q.childForFieldName('package')?.text ?? '');
    const type = q.childForFieldName('name')?.text;
    if (path && type && (sink.facts.goTyped?.length ?? 0) < MAX_FIELD_SITES)
      (sink.facts.goTyped ??= []).push({ name, type: `${path}.${type}` });
  };
  const packageOf = (value: Node | null | undefined): string | undefined => {
    const v = value?.type === 'literal_element' ? value.namedChild(0) : value;
    if (v?.type !== 'call_expression') return undefined;
    const operand = v.childForFieldName('function')?.childForFieldName('operand');
    return operand?.type === 'identifier' && imported.has(operand.text) ? operand.text : undefined;
  };
  function onPackageFacts(node: Node): void {
    switch (node.type) {
      case 'package_clause':
        pkg = node.namedChild(0)?.text ?? '';
        generatedFile(node);
        return;
      case 'import_spec': {
        const path = node.childForFieldName('path')?.text.slice(1, -1) ?? '';
        const alias = node.childForFieldName('name')?.text;
        if (!path || STDLIB.test(path) || alias === '_' || alias === '.') return;
        imported.add(alias ?? path.split('/').pop()!);
        importPath.set(alias ?? path.split('/').pop()!, path);
        return;
      }
      case 'var_spec':
      case 'parameter_declaration':
      case 'method_elem': {
        // `var usersvc user.Service`, `(s user.Service)`, `UserService() user.Service` in an interface.
        const t = node.childForFieldName(node.type === 'method_elem' ? 'result' : 'type');
        const names =
          node.type === 'method_elem' ? [node.childForFieldName('name')] : node.childrenForFieldName('name');
        for (const n of names) if (n) typed(n.text, t);
        return;
      }
      case 'keyed_element': {
        const [k, v] = node.namedChildren;
        const key = k?.type === 'literal_element' ? k.namedChild(0) : k;
        const p = packageOf(v);
        if (key?.type === 'field_identifier' || key?.type === 'identifier')
          if (p) {
            boundTo.set(key.text, p);
            const c = ctorCall(v);
            if (c) boundCtor.set(key.text, c);
            hold(key.text, p, c);
          }
        return;
      }
      case 'field_declaration': {
        // `accounts *account.Client`: the field holds a value of the imported package.
        const t = node.childForFieldName('type');
        const q = t?.type === 'pointer_type' ? t.namedChild(0) : t;
        const p = q?.type === 'qualified_type' ? q.childForFieldName('package')?.text : undefined;
        const type = q?.childForFieldName('name')?.text;
        // `CreateOrder string \`json:"create_order"\``: the key a settings struct's field is decoded from.
        const tag = node.childForFieldName('tag')?.text;
        const key = tag ? /\b(?:mapstructure|yaml|json|toml|koanf)\s*:\s*"([\w.-]+)/.exec(tag)?.[1] : undefined;
        if (key && key !== '-')
          for (const n of node.childrenForFieldName('name'))
            if (n && n.text !== '__proto__') (sink.facts.goFieldTags ??= {})[n.text] = key;
        if (generatedFile(node)) return;
        for (const n of node.childrenForFieldName('name')) if (n) typed(n.text, t);
        if (p && imported.has(p)) {
          for (const n of node.childrenForFieldName('name')) if (n) hold(n.text, p, undefined, type);
        } else if (q?.type === 'type_identifier' && pkg && (sink.facts.goLocalFields?.length ?? 0) < MAX_FIELD_SITES) {
          // `CreateOrder *CreateOrderService`: a field of one of the package's own types.
          for (const n of node.childrenForFieldName('name'))
            if (n) (sink.facts.goLocalFields ??= []).push({ pkg, field: n.text, type: q.text });
        }
        return;
      }
      case 'short_var_declaration':
      case 'assignment_statement': {
        const ns = node.childForFieldName('left')?.namedChildren ?? [];
        const vs = node.childForFieldName('right')?.namedChildren ?? [];
        ns.forEach((n, i) => {
          const p = packageOf(vs[i]);
          const last = n?.type === 'selector_expression' ? n.childForFieldName('field') : n;
          if (p && last) {
            boundTo.set(last.text, p);
            const c = ctorCall(vs[i]);
            if (c) boundCtor.set(last.text, c);
            hold(last.text, p, c);
            // A local holding what another package's constructor built (`cfg := config.Load()`): its fields.
            if (c && n?.type === 'identifier' && (sink.facts.goBound?.length ?? 0) < MAX_CALLBACKS)
              (sink.facts.goBound ??= []).push({
                file,
                name: n.text,
                pkg: p,
                ctor: c,
                ...(importPath.has(p) ? { path: importPath.get(p)! } : {}),
              });
          }
        });
        return;
      }
      default: {
        // function_declaration, method_declaration
        const name = node.childForFieldName('name')?.text;
        if (!name || !pkg) return;
        const params = (node.childForFieldName('parameters')?.namedChildren ?? []).flatMap((d) =>
          (d?.namedChildren ?? []).filter((x) => x?.type === 'identifier').map((x) => x.text),
        );
        const calls = calledFunctions(node.childForFieldName('body'));
        const recv = node
          .childForFieldName('receiver')
          ?.namedChildren[0]?.namedChildren.find((x) => x?.type === 'identifier')?.text;
        const built = constructedFields(node);
        const fields = built?.fields;
        const recvType = node.childForFieldName('receiver')?.text.match(/(\w+)\s*\)$/)?.[1];
        // `func NewClient(…) *Client`: the type of the package it returns.
        const r = node.childForFieldName('result');
        const returned =
          (r?.type === 'pointer_type' ? r.namedChild(0) : r)?.type === 'type_identifier'
            ? r!.text.replace(/^\*/, '')
            : undefined;
        if (node.type === 'method_declaration') typed(name, r);
        (sink.facts.goFuncs ??= []).push({
          pkg,
          name,
          params,
          file,
          start: node.startPosition.row + 1,
          end: node.endPosition.row + 1,
          ...(calls.length ? { calls } : {}),
          ...(recv ? { recv } : {}),
          ...(recvType ? { recvType } : {}),
          ...(fields ? { fields } : {}),
          ...(built?.made ? { made: built.made } : {}),
          ...(returned ? { returned } : {}),
        });
      }
    }
  }
  /** A struct literal's keyed fields and their values (`{baseURL: cfg.URL}`). */
  function keyedFields(lit: Node): Record<string, Part[]> {
    const out: Record<string, Part[]> = {};
    for (const el of lit.childForFieldName('body')?.namedChildren ?? []) {
      if (el?.type !== 'keyed_element') continue;
      const [k, v] = el.namedChildren;
      const key = k?.type === 'literal_element' ? k.namedChild(0) : k;
      const value = v?.type === 'literal_element' ? v.namedChild(0) : v;
      if (key && value && /^\w+$/.test(key.text) && key.text !== '__proto__') out[key.text] = evaluate(value);
    }
    return out;
  }

  /**
   * A constructor (`func NewClient(cfg Config) *Client { return &Client{baseURL: cfg.URL} }`): the fields of the
   * struct it returns, their values over its parameters, for the methods called on what it built elsewhere.
   */
  function constructedFields(fn: Node): { fields: Record<string, Part[]>; made?: string } | undefined {
    if (fn.type !== 'function_declaration') return undefined;
    for (const r of within(fn.childForFieldName('body'), 'return_statement')) {
      let e = r?.namedChild(0)?.namedChild(0) ?? r?.namedChild(0);
      if (e?.type === 'unary_expression') e = e.childForFieldName('operand');
      if (e?.type !== 'composite_literal') continue;
      const out = keyedFields(e);
      const type = e.childForFieldName('type');
      return Object.keys(out).length
        ? { fields: out, ...(type?.type === 'type_identifier' ? { made: type.text } : {}) }
        : undefined;
    }
    return undefined;
  }

  /**
   * The functions a body calls, as `pkg.Name` (its own package's by name, an imported package's by import
   * name), for what a callback reaches; function literals inside count (`r.Group(func(r chi.Router) {…})`).
   */
  function calledFunctions(body: Node | null): string[] {
    const out = new Set<string>();
    for (const c of within(body, 'call_expression')) {
      if (out.size >= 64) break;
      const fn = c?.childForFieldName('function');
      if (fn?.type === 'identifier' && !GO_BUILTINS.has(fn.text)) out.add(`${pkg}.${fn.text}`);
      else if (fn?.type === 'selector_expression') {
        const operand = fn.childForFieldName('operand');
        if (operand?.type === 'identifier' && imported.has(operand.text))
          out.add(`${operand.text}.${fn.childForFieldName('field')?.text ?? ''}`);
      }
    }
    return [...out];
  }

  /** The function or method declaration around a node and its parameter names (literals inside it skipped). */
  function enclosingFunc(node: Node): { decl: Node; params: string[]; funcs: Set<string> } | undefined {
    // Go declares functions and methods at the top level only: the one around a node is the last declaration
    // starting before it, when the node starts within it (found by offset, not by climbing into wasm per call).
    let lo = 0;
    let hi = funcDecls.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (funcDecls[mid]!.startIndex <= node.startIndex) lo = mid + 1;
      else hi = mid - 1;
    }
    let n: Node | null | undefined = funcDecls[hi];
    if (!n || node.startIndex >= n.endIndex) {
      // Outside every declaration, or one nested in another in a tree with errors: the ancestors decide.
      n = node.parent;
      while (n && n.type !== 'function_declaration' && n.type !== 'method_declaration') n = n.parent;
      if (!n) return undefined;
    }
    let found = enclosing.get(n.startIndex);
    if (found) return found;
    const params: string[] = [];
    /** The parameters that hold a function (`createHandler func(chi.Router) http.Handler`, `h http.HandlerFunc`). */
    const funcs = new Set<string>();
    for (const d of n.childForFieldName('parameters')?.namedChildren ?? []) {
      const type = d?.childForFieldName('type');
      const fnType = type?.type === 'function_type' || /(Func|Fn|Callback)$/.test(type?.text ?? '');
      for (const x of d?.namedChildren ?? [])
        if (x?.type === 'identifier') {
          params.push(x.text);
          if (fnType) funcs.add(x.text);
        }
    }
    enclosing.set(n.startIndex, (found = { decl: n, params, funcs }));
    return found;
  }

  /** The summary fact of a declaration (pushed by `onPackageFacts`, which runs first). */
  const factOf = (decl: Node): GoFunc | undefined => {
    // Every call of a function asks for its fact: found once per declaration (the facts are all pushed by then).
    if (facts.has(decl.startIndex)) return facts.get(decl.startIndex);
    const fact = sink.facts.goFuncs?.find(
      (f) => f.file === file && f.start === decl.startPosition.row + 1 && f.pkg === pkg,
    );
    facts.set(decl.startIndex, fact);
    return fact;
  };
  const facts = new Map<number, GoFunc | undefined>();

  /**
   * Callbacks: a parameter of the enclosing function that is mounted under a prefix (`root.Mount("/api",
   * createHandler(api))`, or called with a router that has a prefix, `register(r.Group("/v1"))`) or passed on
   * to another function (`RunOnAddr(addr, createHandler)`); and, at a call, a function literal or a named
   * function given as an argument (`server.RunHTTPServer(func(r chi.Router) http.Handler {…})`).
   */
  function onCallback(call: Node): void {
    const fn = call.childForFieldName('function');
    if (!fn || !pkg) return;
    const callee =
      fn.type === 'identifier'
        ? { to: `${pkg}.${fn.text}`, local: true }
        : fn.type === 'selector_expression' &&
            fn.childForFieldName('operand')?.type === 'identifier' &&
            imported.has(fn.childForFieldName('operand')!.text)
          ? {
              to: `${fn.childForFieldName('operand')!.text}.${fn.childForFieldName('field')?.text ?? ''}`,
              local: false,
            }
          : undefined;
    // Neither a call of a name (a parameter's, below) nor of an imported package's function: nothing to record.
    if (!callee) return;
    const a = args(call);
    const around = enclosingFunc(call);
    const fact = around ? factOf(around.decl) : undefined;
    const params = around?.params ?? [];
    // A parameter called with a router under a prefix: the prefix the callback's routes get.
    if (fn.type === 'identifier' && fact && params.includes(fn.text)) {
      const r = a[0];
      // `root.Mount("/api", createHandler(api))`, or `register(api)` of a router mounted (`root.Mount("/v1", api)`)
      // or grouped (`r.Group("/v1")`) elsewhere in the function.
      const prefix =
        mountedCalls.get(call.startIndex) ??
        (r?.type === 'identifier' ? joinPath(mountedVars.get(r.text) ?? '', routers.get(r.text)?.prefix ?? '') : '');
      if (prefix && prefix !== '/') fact.mounts = [...(fact.mounts ?? []), { param: params.indexOf(fn.text), prefix }];
    }
    if (GO_BUILTINS.has(fn.text)) return;
    const callbacks = (sink.facts.goCallbacks ??= []);
    a.forEach((x, arg) => {
      if (x.type === 'identifier' && fact && around?.funcs.has(x.text))
        fact.forwards = [...(fact.forwards ?? []), { param: params.indexOf(x.text), to: callee.to, arg }];
      else if (callbacks.length >= MAX_CALLBACKS) return;
      else if (x.type === 'func_literal')
        callbacks.push({
          ...callee,
          arg,
          calls: calledFunctions(x.childForFieldName('body')),
          loc: { file, line: lineOf(call) },
          span: { start: x.startPosition.row + 1, end: x.endPosition.row + 1 },
        });
      // A named function of the file, or of an imported package.
      else if (x.type === 'identifier' && functions.has(x.text))
        callbacks.push({ ...callee, arg, calls: [`${pkg}.${x.text}`], loc: { file, line: lineOf(call) } });
      else if (x.type === 'selector_expression' && imported.has(x.childForFieldName('operand')?.text ?? ''))
        callbacks.push({ ...callee, arg, calls: [x.text], loc: { file, line: lineOf(call) } });
    });
  }

  function onPackageCall(call: Node): void {
    const fn = call.childForFieldName('function');
    if (fn?.type !== 'selector_expression') return;
    const name = fn.childForFieldName('field')?.text ?? '';
    if (!/^[A-Z]/.test(name)) return;
    const operand = fn.childForFieldName('operand');
    const last = operand?.type === 'selector_expression' ? operand.childForFieldName('field') : operand;
    if (!last) return;
    const p = operand?.type === 'identifier' && imported.has(last.text) ? last.text : boundTo.get(last.text);
    if (!p) {
      // A field this file does not bind (`r.server.accounts.Post(…)`): another file of the package may.
      // Generated code's own calls (an ORM's thousands) neither count nor use up the budget.
      if (
        operand?.type === 'selector_expression' &&
        pkg &&
        (sink.facts.goFieldSites?.length ?? 0) < MAX_FIELD_SITES &&
        !generatedFile(call)
      )
        (sink.facts.goFieldSites ??= []).push({
          in: pkg,
          field: last.text,
          name,
          args: args(call).map((x) => evaluate(x)),
          loc: { file, line: lineOf(call) },
        });
      // A method called on a variable or on what a method returned (`usersvc.Find(ctx)`,
      // `s.UserService().Find(ctx)`): the declared type of that name says which package runs it.
      const via =
        operand?.type === 'identifier'
          ? operand.text
          : operand?.type === 'call_expression'
            ? /(\w+)$/.exec(operand.childForFieldName('function')?.text ?? '')?.[1]
            : undefined;
      if (via && (sink.facts.goTypedSites?.length ?? 0) < MAX_FIELD_SITES && !generatedFile(call))
        (sink.facts.goTypedSites ??= []).push({
          in: pkg,
          field: via,
          name,
          args: args(call).map((x) => evaluate(x)),
          loc: { file, line: lineOf(call) },
        });
      return;
    }
    const ctor = operand?.type === 'identifier' && imported.has(last.text) ? undefined : boundCtor.get(last.text);
    const path = importPath.get(p);
    (sink.facts.goSites ??= []).push({
      pkg: p,
      name,
      args: args(call).map((x) => evaluate(x)),
      loc: { file, line: lineOf(call) },
      ...(ctor ? { ctor } : {}),
      ...(path ? { path } : {}),
    });
  }

  /**
   * A function or method returning a string built from its parameters (`func OrderURL(base, id string)
   * string { return base + "/orders/" + id }`), summarised for its callers in other files and packages
   * (named by the method's receiver type, or the package's functions by their name).
   */
  function summariseFunction(fn: Node): void {
    const name = fn.childForFieldName('name')?.text;
    const body = fn.childForFieldName('body');
    if (!name || !body || !/^(string|\*?url\.URL)$/.test(fn.childForFieldName('result')?.text ?? '')) return;
    const names: string[] = [];
    for (const d of fn.childForFieldName('parameters')?.namedChildren ?? []) {
      if (d?.type !== 'parameter_declaration') return;
      const ids = d.namedChildren.filter((x): x is Node => x?.type === 'identifier');
      names.push(...(ids.length ? ids.map((x) => x.text) : ['_']));
    }
    const returned: Node[] = [];
    const visit = (n: Node): void => {
      if (n.type === 'func_literal') return;
      if (n.type === 'return_statement') {
        const e = n.namedChild(0)?.namedChild(0) ?? n.namedChild(0);
        if (e) returned.push(e);
      } else for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(body);
    if (returned.length === 0 || scope.depth > 0) return;
    const bound = new Map(names.map((n, i) => [n, [paramPart(i)]]));
    let value = scope.inline(bound, returned);
    // `getEnv(key, fallback)`: the setting when it is set, else the default (a parameter or a literal).
    if (returned.length >= 2 && value.length === 1 && 'hole' in value[0]!)
      value = settingOrDefault(returned.map((r) => scope.inline(bound, [r]))) ?? value;
    if (!summarisable(value)) return;
    const recv = fn.childForFieldName('receiver')?.text.match(/(\w+)\s*\)$/)?.[1];
    sink.returnSummaries.push({
      name: recv ? `${recv}.${name}` : name,
      params: names.length,
      required: names.length,
      value,
    });
  }

  // ---- Kafka topics through values: receiver fields, constructor parameters, worker channels (issue 20)

  /** Struct literals of the file's own types by type name (`&Producer{topic: t}`), a few per type. */
  const structLits = new Map<string, Node[]>();
  const onStructLit = (node: Node): void => {
    const t = node.childForFieldName('type');
    if (t?.type !== 'type_identifier') return;
    const list = structLits.get(t.text);
    if (!list) structLits.set(t.text, [node]);
    else if (list.length < 8) list.push(node);
  };

  /** `&x`, `(x)`: the value a Kafka client reads the topic from (`Topic: &p.topic`). */
  const valueOf = (n: Node): Node => {
    let v = n.type === 'literal_element' ? (n.namedChild(0) ?? n) : n;
    for (;;) {
      if (v.type === 'unary_expression' && v.childForFieldName('operator')?.text === '&')
        v = v.childForFieldName('operand') ?? v;
      else if (v.type === 'parenthesized_expression' && v.namedChild(0)) v = v.namedChild(0)!;
      else return v;
    }
  };

  /** A method's receiver name and type name (`func (p *Producer) …` → p, Producer). */
  const receiverOf = (decl: Node): { name: string; type: string } | undefined => {
    if (decl.type !== 'method_declaration') return undefined;
    const param = decl.childForFieldName('receiver')?.namedChildren.find((x) => x?.type === 'parameter_declaration');
    const name = param?.childForFieldName('name')?.text;
    let t = param?.childForFieldName('type');
    if (t?.type === 'pointer_type') t = t.namedChild(0);
    return name && t?.type === 'type_identifier' ? { name, type: t.text } : undefined;
  };

  /** A Go function as a wrapper: called with exactly its parameters (none variadic), or at least all but the last. */
  const withinOf = (e: { decl: Node; params: string[] }): Within | undefined => {
    const name = e.decl.childForFieldName('name')?.text;
    const variadic = /\.\.\./.test(e.decl.childForFieldName('parameters')?.text ?? '');
    return name ? { name, params: e.params, ...(variadic ? {} : { arity: e.params.length }) } : undefined;
  };

  /**
   * A field of a method's receiver (`p.topic` in `func (p *Producer) …`) as the file's literals of that type set it
   * (`&Producer{topic: kafkaTopic}`, every literal agreeing): its value, or, when it is a parameter of the
   * function building the literal (`func NewConsumer(brokers, topic string) … &Consumer{topic: topic}`), that
   * function and parameter: what its callers pass.
   */
  const fieldResolving = new Set<string>();
  function receiverField(node: Node): { value: Part[]; ctor?: Within } | undefined {
    if (node.type !== 'selector_expression') return undefined;
    const operand = node.childForFieldName('operand');
    const field = node.childForFieldName('field')?.text;
    const encl = enclosingFunc(node);
    const recv = encl ? receiverOf(encl.decl) : undefined;
    if (operand?.type !== 'identifier' || !field || !recv || recv.name !== operand.text) return undefined;
    const key = `${recv.type}.${field}`;
    if (fieldResolving.has(key)) return undefined;
    fieldResolving.add(key);
    try {
      const found: { value: Part[]; ctor?: Within }[] = [];
      for (const lit of structLits.get(recv.type) ?? []) {
        for (const el of lit.childForFieldName('body')?.namedChildren ?? []) {
          if (el?.type !== 'keyed_element') continue;
          const [k, v] = el.namedChildren;
          if ((k?.namedChild(0) ?? k)?.text !== field || !v) continue;
          const valueNode = valueOf(v);
          const value = evaluate(valueNode);
          const maker = enclosingFunc(valueNode);
          const only = value.length === 1 ? value[0]! : undefined;
          const ctor =
            only &&
            'ref' in only &&
            maker &&
            maker.decl.type === 'function_declaration' &&
            maker.params.includes(only.ref)
              ? withinOf(maker)
              : undefined;
          found.push(ctor ? { value, ctor } : { value });
        }
      }
      const first = found[0];
      if (!first || found.some((f) => JSON.stringify(f) !== JSON.stringify(first))) return undefined;
      if (first.value.some((p) => 'hole' in p)) return undefined;
      return first;
    } finally {
      fieldResolving.delete(key);
    }
  }

  /** The methods of the file by receiver type: their channel sends and receives on receiver fields, and calls. */
  let methodsByType: Map<string, ChanMethod[]> | undefined;
  interface ChanMethod {
    readonly name: string;
    readonly decl: Node;
    readonly params: string[];
    readonly sends: Set<string>;
    readonly receives: Set<string>;
    readonly calls: Set<string>;
  }
  function chanMethods(type: string): ChanMethod[] {
    if (!methodsByType) {
      methodsByType = new Map();
      for (const decl of funcDecls) {
        const recv = receiverOf(decl);
        const name = decl.childForFieldName('name')?.text;
        const body = decl.childForFieldName('body');
        if (!recv || !name || !body) continue;
        const fieldOf = (n: Node | null | undefined): string | undefined => {
          const v = n ? valueOf(n) : undefined;
          return v?.type === 'selector_expression' && v.childForFieldName('operand')?.text === recv.name
            ? v.childForFieldName('field')?.text
            : undefined;
        };
        const m: ChanMethod = {
          name,
          decl,
          params: enclosingFunc(body)?.params ?? [],
          sends: new Set(),
          receives: new Set(),
          calls: new Set(),
        };
        for (const n of body.descendantsOfType([
          'send_statement',
          'unary_expression',
          'range_clause',
          'call_expression',
        ])) {
          if (!n) continue;
          let f: string | undefined;
          if (n.type === 'send_statement') {
            if ((f = fieldOf(n.childForFieldName('channel')))) m.sends.add(f);
          } else if (n.type === 'unary_expression') {
            if (n.childForFieldName('operator')?.text === '<-' && (f = fieldOf(n.childForFieldName('operand'))))
              m.receives.add(f);
          } else if (n.type === 'range_clause') {
            if ((f = fieldOf(n.childForFieldName('right')))) m.receives.add(f);
          } else if ((f = fieldOf(n.childForFieldName('function')))) m.calls.add(f);
        }
        const list = methodsByType.get(recv.type);
        if (list) list.push(m);
        else methodsByType.set(recv.type, [m]);
      }
    }
    return methodsByType.get(type) ?? [];
  }

  /**
   * A producer whose public method puts the event on a channel of the struct (`p.jobs <- e`) that a worker
   * method drains (`for e := range p.jobs`, `case e := <-p.jobs:`) into the method publishing, directly or
   * through the type's other methods: the sending methods, whose callers are where the events are published.
   */
  function channelSenders(decl: Node): Within[] {
    const recv = receiverOf(decl);
    const name = decl.childForFieldName('name')?.text;
    if (!recv || !name) return [];
    const methods = chanMethods(recv.type);
    const byName = new Map(methods.map((m) => [m.name, m]));
    const reaches = (from: ChanMethod): boolean => {
      const seen = new Set([from.name]);
      let frontier = [from];
      for (let depth = 0; depth < 4 && frontier.length; depth++) {
        if (frontier.some((m) => m.name === name)) return true;
        const next: ChanMethod[] = [];
        for (const m of frontier)
          for (const c of m.calls) {
            const t = byName.get(c);
            if (t && !seen.has(c)) {
              seen.add(c);
              next.push(t);
            }
          }
        frontier = next;
      }
      return frontier.some((m) => m.name === name);
    };
    const workers = methods.filter((m) => m.receives.size > 0 && reaches(m));
    const drained = new Set(workers.flatMap((m) => [...m.receives]));
    return methods
      .filter((m) => !workers.includes(m) && [...m.sends].some((f) => drained.has(f)))
      .flatMap((m) => withinOf(m) ?? []);
  }

  /**
   * A Kafka topic a client call or struct names (`Produce(&kafka.Message{TopicPartition: {Topic: &p.topic}})`,
   * `Subscribe(c.topic, nil)`, `kafka.Writer{Topic: w.topic}`): the topic's value through the receiver's fields,
   * a constant of another file later, and the wrappers it makes: a parameter of the function around it or of the
   * constructor that set the field (its callers name the topic), a publishing helper with a fixed topic, and the
   * methods that hand the event to the worker publishing it.
   */
  function kafkaTopic(side: 'publish' | 'consume', topicNode: Node, loc: Loc, unknown = true): void {
    const node = valueOf(topicNode);
    const field = receiverField(node);
    const parts = field ? field.value : evaluate(node);
    const encl = enclosingFunc(node);
    const within = field?.ctor ?? (encl ? withinOf(encl) : undefined);
    const isParam = (p: Part): boolean => 'ref' in p && within !== undefined && within.params.includes(p.ref);
    const wrapper = (w: Within, fixed: boolean): void => {
      const base = { within: w, broker: 'kafka' as const, exchange: [], loc };
      const x: MessageWrapper =
        side === 'publish' ? { ...base, key: parts } : { ...base, kind: 'consume', key: [], queue: parts };
      sink.messageWrappers.push(fixed ? { ...x, fixed: true } : x);
    };
    const viaParam = parts.some(isParam);
    if (viaParam && within) wrapper(within, false);
    // The fact itself: resolved now, by the source's constants later, or a run-time name (a gap).
    if (parts.some((p) => 'ref' in p)) sink.topicRefs.push({ side, parts, loc });
    else if (unknown || parts.every((p) => 'lit' in p || 'env' in p || 'config' in p)) {
      const name = nameOf(parts) ?? '{}';
      if (side === 'publish') sink.publish('kafka', '', name, loc);
      else sink.consume('kafka', name, loc);
    }
    if (side !== 'publish' || viaParam || parts.some((p) => 'hole' in p) || !encl) return;
    // A helper named for publishing with a literal topic: each of its calls is the publish.
    const own = withinOf(encl);
    if (own && encl.params.length && MESSAGING_HELPER_NAME.test(own.name) && parts.every((p) => 'lit' in p))
      wrapper(own, true);
    for (const sender of channelSenders(encl.decl)) wrapper(sender, true);
  }

  /**
   * The returns of a helper that gives a setting or its default (`if v := os.Getenv(key); v != "" { return v };
   * return fallback`): the setting with that default; undefined for any other mix of returns.
   */
  function settingOrDefault(values: readonly Part[][]): Part[] | undefined {
    const distinct = [...new Map(values.map((v) => [JSON.stringify(v), v])).values()];
    if (distinct.length !== 2) return undefined;
    const setting = distinct.find((v) => v.length === 1 && 'env' in v[0]! && v[0].fallback === undefined)?.[0];
    const other = distinct.find((v) => v[0] !== setting);
    if (!setting || !('env' in setting) || other?.length !== 1) return undefined;
    const fb = other[0]!;
    const key: Part = isParamPart({ ref: setting.env }) ? { ref: setting.env } : { lit: setting.env };
    if ('lit' in key) return 'lit' in fb ? [{ env: setting.env, fallback: fb.lit }] : undefined;
    if ('lit' in fb) return [paramSetting(key, fb.lit)];
    return isParamPart(fb) ? [paramSetting(key, fb)] : undefined;
  }

  return {
    grpc: GO_GRPC,
    captureAlso: GO_CAPTURED,
    evaluate,
    declarations: {
      function_declaration(node) {
        funcDecls.push(node);
        const n = node.childForFieldName('name')?.text;
        if (n) functions.set(n, node);
      },
      method_declaration(node) {
        funcDecls.push(node);
      },
      call_expression: declareOutParameter,
      composite_literal: onStructLit,
      const_spec: declareSpec,
      var_spec: declareSpec,
      short_var_declaration: declareBinding,
      assignment_statement: declareBinding,
    },
    rules: [
      {
        on: [
          'package_clause',
          'import_spec',
          'var_spec',
          'parameter_declaration',
          'method_elem',
          'keyed_element',
          'short_var_declaration',
          'assignment_statement',
          'field_declaration',
          'function_declaration',
          'method_declaration',
        ],
        each: onPackageFacts,
      },
      { on: ['call_expression'], each: onPackageCall },
      { on: ['function_declaration', 'method_declaration'], each: summariseFunction },
      { on: ['call_expression'], each: onMountCall },
      { on: ['call_expression'], each: onCallback },
      { on: ['call_expression'], each: onCall },
      { on: ['composite_literal'], each: onComposite },
      { on: ['composite_literal'], each: onWriterMap },
      { on: ['assignment_statement'], each: onWriterMapSet },
      { on: ['call_expression'], each: onWriterLookup },
      { on: ['call_expression'], each: onSite },
      { on: ['composite_literal'], each: onRouteTable },
      { on: ['expression_switch_statement'], each: onTopicSwitch },
      { on: ['method_declaration'], each: onTableName },
      sqlStringRule(sink, file, ['interpreted_string_literal', 'raw_string_literal'], (s) => s.text.slice(1, -1)),
      ...goOptionRules(file, sink, evaluate),
      ...goNatsRules(file, sink, evaluate),
      ...goNetRpcRules(file, sink, evaluate, scope),
    ],
  };
};

/** The types `within` reads from the walk (calls are a rule type already). */
const GO_CAPTURED: ReadonlySet<string> = new Set(['return_statement']);

/** A body's calls or returns from the file rules' walk (`captureAlso`), in document order; none without a body. */
const within = (body: Node | null | undefined, type: string): Node[] =>
  body ? (captured(body, type) ?? body.descendantsOfType(type).filter((n): n is Node => n !== null)) : [];

/** Go: net/http, gin, chi, gorilla/mux, go-kit; http client; net/rpc; amqp091, kafka-go/sarama; mongo, go-redis. */
export const extractGo = extractorOf(goRules);
