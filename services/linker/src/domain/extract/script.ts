import type { HttpMethod, Loc, Part } from '../model';
import type { Node } from '../parsers';
import { CATCH_ALL, joinPath } from '../routes';
import {
  HOLE_PART,
  LIST_SEP,
  concat,
  httpMethod,
  lineOf,
  lit,
  literal,
  nameOf,
  sharedCallRules,
  sharedRuleName,
  type Sink,
} from './common';
import { type LanguageRules, extractorOf, sqlStringRule } from './driver';
import { kotlinMicronaut } from './kotlin-micronaut';
import { type GrpcTable, KOTLIN_GRPC } from './grpc';

/**
 * One front-end for Kotlin, Rust, Ruby and PHP: the syntax of each is a table row (which nodes are strings,
 * interpolations, calls, declarations; how the language reads its environment), the framework knowledge
 * is data (ROUTE_CALLS, CLIENT_CALLS, ROUTE_ATTRIBUTES), and every value goes through one evaluator. The
 * facts feed the same model and matcher as the other languages.
 */
interface Syntax {
  readonly strings: ReadonlySet<string>;
  readonly content: ReadonlySet<string>;
  readonly interpolations: ReadonlySet<string>;
  /** `$name` in a string's text is a variable (Kotlin, PHP). */
  readonly dollarVariables?: boolean;
  /** `+` or PHP `.` concatenation node types. */
  readonly binary: ReadonlySet<string>;
  readonly calls: ReadonlySet<string>;
  /** A call as name, receiver text and argument expressions. */
  call(n: Node): { name: string; receiver: string; args: Node[] } | undefined;
  /** Declarations: name and value nodes; `local`: visible only inside its function (Rust `let`). */
  readonly declarations: Readonly<
    Record<string, (n: Node) => { name: string; value: Node; local?: boolean } | undefined>
  >;
  /** Reassignments of a function's locals (`url = …` in a `match` arm): more definitions of the local. */
  readonly assignments?: Readonly<Record<string, (n: Node) => { name: string; value: Node } | undefined>>;
  /** Environment and configuration lookups of the language (`env::var`, `ENV["X"]`, `getenv`, `System.getenv`). */
  env(n: Node, evaluate: (n: Node) => Part[]): Part[] | undefined;
  /** Route annotations on a function (`#[post("/x")]`, `@GetMapping("/x")`) and class prefixes. */
  routeAttributes?(root: Node, emit: (method: HttpMethod, path: string, line: number, handler?: string) => void): void;
  /** Annotated frameworks read from the whole file (Kotlin Micronaut controllers and Kafka listeners). */
  frameworks?(root: Node, file: string, sink: Sink): void;
  /** gRPC servers and clients read from the file's text (`grpc.ts`). */
  grpc?: GrpcTable;
}

const kids = (n: Node | null | undefined): Node[] =>
  (n?.namedChildren ?? []).filter((x): x is Node => x !== null && !/comment/.test(x.type));
const set = (...s: string[]): ReadonlySet<string> => new Set(s);
/** Grape's path groups: `resource`/`resources`/`namespace`/`group`/`segment` and `route_param :id`. */
const GRAPE_GROUP = /^(resource|resources|segment|route_param)$/;
const VERBS: Record<string, HttpMethod> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', delete: 'DELETE' };

/** Route registrations by call: receiver pattern (source text; `^$` for none) and the verbs as method names. */
const ROUTE_CALLS: readonly {
  framework: string;
  receiver: RegExp;
  names: Record<string, HttpMethod>;
  /** Only in a file whose text matches (the library's name). */
  marker?: RegExp;
  /** The path is a prefix: everything under it is served. */
  prefix?: boolean;
}[] = [
  // Sinatra, Grape and Rails routes (`post "/x" do … end`, `get "/x", to: "c#a"`), Ktor `get("/x") { }`.
  { framework: 'sinatra', receiver: /^$/, names: { ...VERBS } },
  // Slim `$app->post('/x', …)`, Lumen/Laravel `$router->get`, Laravel `Route::get('/x', …)`, Silex/Symfony-ish.
  {
    framework: 'php-router',
    receiver: /^\$?(app|router|group|r|route|api)$|^Route$/i,
    names: { ...VERBS, any: 'ANY', map: 'ANY' },
  },
  // Ruby's WEBrick: `server.mount_proc '/details' do |req, res| … end` serves every path under the prefix.
  {
    framework: 'webrick',
    receiver: /./,
    names: { mount_proc: 'ANY', mount: 'ANY' },
    marker: /\bWEBrick\b/,
    prefix: true,
  },
  // axum `Router::new().route("/x", get(h).post(h2))`: read by its method chain in `axumMethods`.
];

/** HTTP clients by call: receiver pattern and the verbs; `request` takes the method as its first argument. */
const CLIENT_CALLS: readonly { client: string; receiver: RegExp; names: Record<string, HttpMethod | 'ARG0'> }[] = [
  // reqwest / awc / Ktor / Guzzle / Faraday clients held in a variable named like a client.
  { client: 'http-client', receiver: /client|http|^conn$|faraday|guzzle/i, names: { ...VERBS, request: 'ARG0' } },
  // `reqwest::get(url)`, `Net::HTTP.get(URI(url))`, `HTTParty.post(url)`, `Faraday.get`, `RestClient.get`, Laravel `Http::get`.
  {
    client: 'http-client',
    receiver: /^(reqwest|Net::HTTP|HTTParty|Faraday|RestClient|Http|Excon|Typhoeus)$/,
    names: { ...VERBS },
  },
  // PHP curl: `curl_init($url)` (GET unless its options say otherwise).
  { client: 'curl', receiver: /^$/, names: { curl_init: 'GET' } },
];

/**
 * A request's or response's headers (`http_request.headers().get("Authorization")`, `res.headers.get(…)`):
 * a map read by name, never a client, whatever the variable holding the request is called.
 */
const HEADER_READ = /(^|[.:])(headers|headers_mut|header_map)\s*(\(\s*\))?$/;

function stringParts(n: Node, syn: Syntax, evaluate: (n: Node) => Part[], named: (name: string) => Part[]): Part[] {
  const parts: Part[][] = [];
  // Kotlin/PHP `$name` inside the text (the Kotlin grammar splits `$base/orders/` into `$` and `base/orders/`):
  // the adjacent pieces are read as one text, each `$name` a variable.
  let text: string | undefined;
  const flush = (): void => {
    if (text === undefined) return;
    const t = text;
    text = undefined;
    if (!syn.dollarVariables || !t.includes('$')) return void parts.push(lit(t));
    let last = 0;
    for (const m of t.matchAll(/\$\{?([A-Za-z_]\w*)\}?/g)) {
      parts.push(lit(t.slice(last, m.index)));
      parts.push(named(m[1]!));
      last = m.index + m[0].length;
    }
    parts.push(lit(t.slice(last)));
  };
  for (const c of n.namedChildren) {
    if (!c) continue;
    if (syn.content.has(c.type)) {
      text = (text ?? '') + c.text;
      continue;
    }
    flush();
    if (syn.interpolations.has(c.type) || c.type === 'variable_name') {
      const inner = c.type === 'variable_name' ? c : (kids(c)[0] ?? null);
      parts.push(inner ? evaluate(inner) : [HOLE_PART]);
    }
  }
  flush();
  if (parts.length === 0) return lit(n.type === 'string_literal' || n.type === 'string' ? '' : n.text.slice(1, -1));
  return concat(...parts);
}

/** Rust `format!("{}{}", a, b)`: the template's `{}` filled with the comma-separated arguments' values. */
function formatMacro(
  tree: Node,
  evaluate: (n: Node) => Part[],
  item: (name: string, at: Node) => Part[] | undefined,
): Part[] {
  const groups: Node[][] = [[]];
  /** Each argument's tokens: a path (`&constants::POST_MS`, `crate::BASE`) is nothing but names, `::` and `&`. */
  const paths: boolean[] = [true];
  for (const t of tree.children) {
    if (!t || t.type === '(' || t.type === ')') continue;
    if (t.type === ',') {
      groups.push([]);
      paths.push(true);
      continue;
    }
    if (t.isNamed) groups[groups.length - 1]!.push(t);
    if (t.isNamed ? !/^(identifier|self|crate|super)$/.test(t.type) : !/^(::|&)$/.test(t.type))
      paths[paths.length - 1] = false;
  }
  const [head, ...rest] = groups;
  const tpl = head?.length === 1 && head[0]!.type === 'string_literal' ? literal(evaluate(head[0]!)) : undefined;
  if (tpl === undefined) return [HOLE_PART];
  const value = (g: Node[]): Part[] => {
    // `env::var("X").unwrap_or_else(|_| "d".to_string())…`: the variable with the first literal after it.
    const varAt = g.findIndex((x) => x.text === 'var');
    if (varAt > 0 && g[varAt - 1]!.text === 'env') {
      const key = kids(g[varAt + 1]).find((x) => x.type === 'string_literal');
      const dflt = g
        .slice(varAt + 2)
        .flatMap((x) => (x.type === 'token_tree' ? kids(x) : [x]))
        .find((x) => x.type === 'string_literal');
      const k = key ? literal(evaluate(key)) : undefined;
      if (k !== undefined) {
        const fb = dflt ? literal(evaluate(dflt)) : undefined;
        return [fb !== undefined ? { env: k, fallback: fb } : { env: k }];
      }
    }
    return g.length === 1 ? evaluate(g[0]!) : [HOLE_PART];
  };
  const out: Part[][] = [];
  let last = 0;
  let next = 0;
  for (const m of tpl.matchAll(/\{([^{}]*)\}/g)) {
    out.push(lit(tpl.slice(last, m.index)));
    last = m.index + m[0].length;
    const spec = m[1]!.replace(/:.*$/, '');
    // `{BASE}`: a variable captured by name (Rust 2021), unless a `BASE = …` argument names it (not read).
    if (/^[A-Za-z_]\w*$/.test(spec)) {
      const captured = rest.some((g) => g[0]?.text === spec && g.length > 1) ? undefined : item(spec, tree);
      // A constant's name (`{POST_MS}`) is an item of some module; another name is a parameter or a local.
      out.push(captured ?? (/^[A-Z][A-Z0-9_]*$/.test(spec) ? [{ ref: spec }] : [HOLE_PART]));
      continue;
    }
    const i = /^\d+$/.test(spec) ? Number(spec) : next++;
    const g = rest[i];
    const end = g?.[g.length - 1];
    // A module's item (`&constants::POST_MS`): its name, as `constants::POST_MS` outside the macro reads.
    if (g && end && g.length > 1 && paths[i + 1] && end.type === 'identifier')
      out.push(item(end.text, end) ?? [{ ref: end.text }]);
    else out.push(g ? value(g) : [HOLE_PART]);
  }
  out.push(lit(tpl.slice(last)));
  return concat(...out);
}

function rulesFor(syn: Syntax, framework: { routes: string; attr: string }): LanguageRules {
  return ({ file, sink, scope }) => {
    const ruby = file.endsWith('.rb');
    const rust = file.endsWith('.rs');
    let root: Node | undefined;
    let isGrape: boolean | undefined;
    let isRailsRoutes: boolean | undefined;
    let isKarafka: boolean | undefined;
    const oauthSites: Part[][] = [];
    const tokenCalls: { method: HttpMethod; path: Part[]; loc: Loc }[] = [];
    function evaluate(node: Node): Part[] {
      if (syn.strings.has(node.type))
        return stringParts(node, syn, evaluate, (name) => scope.lookup(name, node) ?? [{ ref: name }]);
      const env = syn.env(node, evaluate);
      if (env) return env;
      if (syn.binary.has(node.type)) {
        const op = node.childForFieldName('operator')?.text ?? node.children.find((c) => c && !c.isNamed)?.text;
        const l = node.childForFieldName('left') ?? kids(node)[0];
        const r = node.childForFieldName('right') ?? kids(node)[1];
        if (l && r && (op === '+' || op === '.')) return concat(evaluate(l), evaluate(r));
        return [HOLE_PART];
      }
      switch (node.type) {
        case 'identifier':
        case 'variable_name':
        case 'constant':
        case 'simple_identifier':
        case 'string_content': {
          const name = node.text.replace(/^\$\{?|\}$/g, '');
          return scope.lookup(name, node) ?? [{ ref: name }];
        }
        // Rust `constants::POST_MS`, `crate::config::BASE`: the item's name, this file's or another module's.
        case 'scoped_identifier': {
          const name = node.childForFieldName('name')?.text ?? '';
          return scope.lookup(name, node) ?? [{ ref: name }];
        }
        case 'parenthesized_expression':
        case 'argument':
        case 'value_argument':
        case 'reference_expression':
          return kids(node)[0] ? evaluate(kids(node)[kids(node).length - 1]!) : [HOLE_PART];
        case 'macro_invocation': {
          const m = node.childForFieldName('macro')?.text;
          const tree = kids(node).find((x) => x.type === 'token_tree');
          if (m === 'format' && tree) return formatMacro(tree, evaluate, (name, at) => scope.lookup(name, at));
          return [HOLE_PART];
        }
      }
      if (syn.calls.has(node.type)) {
        const c = syn.call(node);
        if (!c) return [HOLE_PART];
        // Value-keeping conversions and wrappers: `URI(u)`, `u.to_string()`, `listOf(t)`, `"x".parse()`.
        if (/^(URI|Uri|URL|parse|to_string|to_owned|into|as_str|toString|trim|strval)$/.test(c.name))
          return c.args[0] ? evaluate(c.args[0]) : c.receiver ? evaluateText(node) : [HOLE_PART];
        // printf-style formatting (`sprintf('%s/product/%s', $base, $sku)`, Ruby `format`, Kotlin `String.format`).
        if (/^(sprintf|format)$/.test(c.name) && c.args[0]) {
          const tpl = literal(evaluate(c.args[0]));
          if (tpl === undefined) return [HOLE_PART];
          const pieces = tpl.split(/%[-+# 0-9.]*[a-zA-Z]/);
          const out: Part[][] = [];
          pieces.forEach((p, i) => {
            out.push(lit(p));
            if (i < pieces.length - 1) out.push(c.args[i + 1] ? evaluate(c.args[i + 1]!) : [HOLE_PART]);
          });
          return concat(...out);
        }
        // A client built with its base address (`Faraday.new(url: base)`, `Faraday.new(base)`): the base, which
        // the client's relative calls go under (see `onCall`).
        if (c.name === 'new' && /^Faraday$/.test(c.receiver)) {
          const url = c.args.find((a) => a.type === 'pair' && /^:?url:?$/.test(a.childForFieldName('key')?.text ?? ''));
          const v = url?.childForFieldName('value') ?? (c.args[0]?.type === 'pair' ? undefined : c.args[0]);
          return v ? evaluate(v) : [HOLE_PART];
        }
        if (/^(listOf|arrayOf|setOf|vec|array)$/.test(c.name)) {
          const vs = c.args.map((a) => nameOf(evaluate(a)) ?? '');
          return c.args.length === 1 ? evaluate(c.args[0]!) : lit(vs.join(LIST_SEP));
        }
        return [HOLE_PART];
      }
      return [HOLE_PART];
    }
    /** The receiver of a value-keeping method call (`s.to_string()`): the receiver's value. */
    function evaluateText(node: Node): Part[] {
      const fn = node.childForFieldName('function') ?? node.childForFieldName('receiver') ?? kids(node)[0];
      const recv = fn?.childForFieldName('value') ?? fn?.childForFieldName('receiver') ?? kids(fn)[0];
      return recv && recv.id !== node.id ? evaluate(recv) : [HOLE_PART];
    }

    function onCall(node: Node): void {
      root ??= node.tree.rootNode;
      const c = syn.call(node);
      if (!c) return;
      const loc = { file, line: lineOf(node) };
      const first = c.args[0];
      // Rails `resources :orders` / `resource :profile` (with `only:`/`except:`): the REST actions they route.
      if (ruby && !grape() && /^resources?$/.test(c.name) && first && railsRoutes()) {
        const name = railsSegment(c.args);
        if (name) {
          const base = joinPath(groupPrefix(node), name);
          const opts = c.args
            .slice(1)
            .map((a) => a.text)
            .join(' ');
          const list = (k: string): string[] | undefined => {
            const m = new RegExp(String.raw`\b${k}:\s*(\[[^\]]*\]|:\w+|%i\[[^\]]*\])`).exec(opts);
            return m ? [...m[1]!.matchAll(/:?(\w+)/g)].map((x) => x[1]!).filter((x) => x !== 'i') : undefined;
          };
          const only = list('only');
          const except = list('except') ?? [];
          const plural = c.name === 'resources';
          const actions: [string, HttpMethod, string][] = [
            ['index', 'GET', base],
            ['create', 'POST', base],
            ['show', 'GET', plural ? `${base}/:id` : base],
            ['update', 'PATCH', plural ? `${base}/:id` : base],
            ['update', 'PUT', plural ? `${base}/:id` : base],
            ['destroy', 'DELETE', plural ? `${base}/:id` : base],
          ];
          for (const [action, verb, path] of actions) {
            if (!plural && action === 'index') continue;
            if ((only && !only.includes(action)) || except.includes(action)) continue;
            sink.endpoint(verb, path, 'rails', loc);
          }
          return;
        }
      }
      if (ruby && rubyMessaging(c, node, loc)) return;
      if (ruby && oauthCall(c, node, loc)) return;
      // Rails `match 'path', to: 'c#a', via: [:get, :post]` (`via: :all`: any verb) and `root 'c#a'` (GET of the
      // enclosing namespace's own path).
      if (ruby && !c.receiver && (c.name === 'match' || c.name === 'root') && !grape() && railsRoutes()) {
        const prefix = groupPrefix(node);
        if (c.name === 'root') {
          sink.endpoint('GET', joinPath(prefix, ''), 'rails', loc);
          return;
        }
        const via = keywords(c.args).get('via');
        const path = first && first.type !== 'pair' ? segmentOf(first) : undefined;
        if (via && path !== undefined) {
          const verbs = [...via.text.matchAll(/\w+/g)].map((m) => (m[0] === 'all' ? 'ANY' : VERBS[m[0]]));
          for (const v of new Set(verbs)) if (v) sink.endpoint(v, joinPath(prefix, path), 'rails', loc);
          return;
        }
      }
      // Routes registered by call.
      for (const row of ROUTE_CALLS) {
        const m = row.names[c.name];
        if (!m || !row.receiver.test(c.receiver)) continue;
        if (row.marker && !row.marker.test(node.tree.rootNode.text)) continue;
        // Rails `get :current, on: :collection` / `on: :member` inside `resources :accounts do … end`.
        const on = ruby
          ? /\bon:\s*:(collection|member)\b/.exec(
              c.args
                .slice(1)
                .map((a) => a.text)
                .join(' '),
            )?.[1]
          : undefined;
        const prefix = groupPrefix(node, on as 'collection' | 'member' | undefined);
        // Ruby: a path relative to its enclosing group or Rails' routes (`get ':id'`, `get :ship`), or none
        // at all with a block (Grape `get do … end` serves the group's own path).
        const inRoutes = ruby && (prefix !== '/' || railsRoutes());
        const hasBlock = ruby && node.namedChildren.some((x) => x?.type === 'do_block' || x?.type === 'block');
        const path = first ? segmentOf(first) : inRoutes && hasBlock ? '' : undefined;
        if (path === undefined || (!path.startsWith('/') && !inRoutes)) continue;
        sink.endpoint(
          m,
          joinPath(prefix, path, ...(row.prefix ? [CATCH_ALL] : [])),
          row.framework !== 'sinatra'
            ? row.framework
            : ruby && grape()
              ? 'grape'
              : ruby && railsRoutes()
                ? 'rails'
                : framework.routes,
          loc,
        );
        return;
      }
      if (rust && actixRoute(c, node)) return;
      // actix-web: a handler registered by name (`.service(endpoints::health)`) takes its scopes' prefix.
      if (rust && c.name === 'service' && first && /^(identifier|scoped_identifier)$/.test(first.type)) {
        sink.handlerScopes.push({ path: first.text.replace(/\s+/g, ''), prefix: scopePrefix(first) });
        return;
      }
      // axum: `.route("/x", get(h).post(h2))`; actix-web `.route("/x", web::get().to(h))` on an app or a scope.
      if (c.name === 'route' && first && c.args[1]) {
        const path = literal(evaluate(first));
        const methods = [...c.args[1].text.matchAll(/\b(get|post|put|patch|delete)\s*\(/g)].map((m) => VERBS[m[1]!]!);
        if (path?.startsWith('/') && methods.length) {
          const actix = rust && /\bweb\s*::/.test(c.args[1].text);
          const at = rust ? joinPath(scopePrefix(node), path) : path;
          for (const m of new Set(methods)) sink.endpoint(m, at, actix ? 'actix-web' : 'axum', loc);
          return;
        }
      }
      // HTTP clients; a client variable holding its base address (`conn = Faraday.new(url: …)`) prefixes
      // its relative calls.
      const base = /^\w+$/.test(c.receiver) ? clientBase(c.receiver, node) : undefined;
      const under = (url: Part[]): Part[] => {
        const v = nameOf(url);
        return base && v !== undefined && !/^\w+:\/\//.test(v) ? concat(base, url) : url;
      };
      for (const row of CLIENT_CALLS) {
        const m = row.names[c.name];
        if (!m || !row.receiver.test(c.receiver) || !first || HEADER_READ.test(c.receiver)) continue;
        if (m === 'ARG0') {
          const verb = httpMethod(literal(evaluate(first))?.toUpperCase());
          if (verb && c.args[1]) sink.call(verb, under(evaluate(c.args[1])), row.client, loc);
        } else sink.call(m, under(evaluate(first)), row.client, loc);
        return;
      }
      if (!sharedRuleName(c.name)) return;
      const named = new Map<string, Part[]>();
      sharedCallRules(
        { name: c.name, receiver: c.receiver || applyTarget(node), args: c.args.map(evaluate), named, loc },
        sink,
      );
    }

    /**
     * actix-web's service configuration, as its guide writes it: `web::resource("/{id}").route(web::get().to(h))`
     * (one route per method, `.guard(…)`/`.wrap(…)` anywhere in the chains), `web::resource("/x").to(h)` (every
     * method), under the `web::scope("/api")` prefixes whose `.service(…)` holds them.
     */
    function actixRoute(c: { name: string; args: Node[] }, node: Node): boolean {
      if (!(c.name === 'route' && c.args.length === 1) && !(c.name === 'to' && c.args.length === 1)) return false;
      const resource = chainBase(node);
      if (!resource || resource.id === node.id) return false;
      const r = syn.call(resource);
      if (r?.name !== 'resource' || !/^(web)?$/.test(r.receiver) || !r.args[0]) return false;
      const path = literal(evaluate(r.args[0]));
      if (path === undefined) return false;
      let method: HttpMethod | undefined = 'ANY';
      let at = node;
      if (c.name === 'route') {
        // `web::get()…`, `web::method(Method::PUT)…`, `web::route().method(Method::PUT)…`: the chain's verb.
        at = c.args[0]!;
        const verb = chainBase(at);
        const v = verb ? syn.call(verb) : undefined;
        const named = /\bMethod::([A-Z]+)\b/.exec(at.text)?.[1];
        method =
          v && /^(web)?$/.test(v.receiver) && VERBS[v.name]
            ? VERBS[v.name]
            : named
              ? httpMethod(named)
              : v?.name === 'route' || v?.name === 'method'
                ? 'ANY'
                : undefined;
      }
      if (!method) return false;
      sink.endpoint(method, joinPath(scopePrefix(resource), path), 'actix-web', { file, line: lineOf(at) });
      return true;
    }
    /** The call a method chain starts from: `web::scope("/a")` of `web::scope("/a").guard(g).service(x)`. */
    function chainBase(node: Node): Node | undefined {
      let n: Node | null = node;
      for (let i = 0; n?.type === 'call_expression' && i < 64; i++) {
        const fn: Node | null = n.childForFieldName('function');
        const inner: Node | null = fn?.type === 'field_expression' ? fn.childForFieldName('value') : null;
        if (inner?.type !== 'call_expression') return n;
        n = inner;
      }
      return undefined;
    }
    /**
     * The prefixes of the actix-web scopes (`web::scope("/api").service(…)`, `.route("/x", …)` on a scope) and
     * axum nests (`.nest("/api", router)`) whose arguments hold `node`, outermost first.
     */
    function scopePrefix(node: Node): string {
      const out: string[] = [];
      let child = node;
      for (let p: Node | null = node; p; child = p, p = p.parent) {
        if (p.type !== 'call_expression') continue;
        const args = p.childForFieldName('arguments');
        const inArgs = args !== null && args.startIndex <= child.startIndex && child.endIndex <= args.endIndex;
        const pc = syn.call(p);
        if (pc?.name === 'nest' && inArgs && pc.args[0] && pc.args[0].id !== child.id) {
          const v = literal(evaluate(pc.args[0]));
          if (v !== undefined) out.unshift(v);
          continue;
        }
        // Only a call that holds the node as an argument, or the node's own chain (`web::scope("/a").route(…)`).
        if (!inArgs && p.id !== node.id) continue;
        const base = chainBase(p);
        const b = base && base.id !== p.id ? syn.call(base) : undefined;
        if (b?.name !== 'scope' || !/^(web)?$/.test(b.receiver) || !b.args[0]) continue;
        const v = literal(evaluate(b.args[0]));
        if (v !== undefined) out.unshift(v);
      }
      return joinPath(...out);
    }

    /** Ruby keyword arguments (`topic: 't'`, `:topic => 't'`, `'topic' => 't'`) by name. */
    function keywords(args: readonly Node[]): Map<string, Node> {
      const out = new Map<string, Node>();
      for (const a of args) {
        if (a.type !== 'pair') continue;
        const k = a.childForFieldName('key');
        const v = a.childForFieldName('value');
        if (k && v) out.set(k.text.replace(/^[:'"]+|[:'"]+$/g, ''), v);
      }
      return out;
    }
    /**
     * A topic's parts: a symbol's name, or the value of a string, constant or `ENV[…]`; a constant of another
     * file (`Topics::ACCOUNTS`) or a setting (`Settings.kafka.accounts_topic`, `Rails.configuration.x.topic`)
     * is a reference the source resolves once every file is read.
     */
    function topicParts(n: Node): Part[] {
      if (n.type === 'simple_symbol') return lit(n.text.slice(1));
      const chain =
        n.type === 'scope_resolution' ||
        (n.type === 'call' && !n.childForFieldName('arguments') && !n.childForFieldName('block'));
      if (chain && /^[\w:.]+$/.test(n.text) && /[.:]/.test(n.text)) {
        const last = n.text.split(/::|\./).pop()!;
        return (
          (n.type === 'scope_resolution' ? scope.lookup(last, n) : undefined) ?? [{ ref: n.text.replace(/::/g, '.') }]
        );
      }
      return evaluate(n);
    }
    /** A Kafka publish or subscription; a name of another file or of the configuration resolves later. */
    function kafkaTopic(side: 'publish' | 'consume', n: Node, loc: Loc): boolean {
      const parts = topicParts(n);
      if (parts.some((p) => 'ref' in p)) sink.topicRefs.push({ side, parts, loc });
      else {
        const name = nameOf(parts);
        if (name === undefined) return false;
        if (side === 'publish') sink.publish('kafka', '', name, loc);
        else sink.consume('kafka', name, loc);
      }
      return true;
    }
    /**
     * Ruby Kafka (issue 20). Producers: WaterDrop 2 / Karafka 2 / Racecar `producer.produce_sync(topic: 't', …)`
     * and `produce_async`, ruby-kafka `kafka.deliver_message(msg, topic: 't')` and `producer.produce(msg, topic:)`,
     * WaterDrop 1 `WaterDrop::SyncProducer.call(msg, topic: 't')` / `AsyncProducer.call`, DeliveryBoy
     * `DeliveryBoy.deliver(msg, topic: 't')`. Consumers: Racecar `subscribes_to 't'`, the Karafka
     * routing table (`consumer_groups.draw` in 1.x, `routes.draw` in 2.x), where `topic :t do consumer C end`
     * subscribes; a consumer class no route names receives nothing, so only the routing is read. ruby-kafka's
     * `kafka.each_message(topic: 't')` reads one topic too (`consumer.subscribe('t')` is a shared rule).
     */
    function rubyMessaging(c: { name: string; receiver: string; args: Node[] }, node: Node, loc: Loc): boolean {
      const produce =
        /^(produce_sync|produce_async|produce|deliver_message|deliver_message_async)$/.test(c.name) ||
        (c.name === 'call' && /(^|::)(Sync|Async)Producer$/.test(c.receiver)) ||
        (/^(deliver|deliver_async)$/.test(c.name) && c.receiver === 'DeliveryBoy');
      if (produce) {
        const t = keywords(c.args).get('topic');
        if (t) kafkaTopic('publish', t, loc);
        return true;
      }
      // Racecar: `subscribes_to "orders", "refunds"` in a `Racecar::Consumer` class.
      if (c.name === 'subscribes_to' && !c.receiver) {
        for (const a of c.args) if (a.type !== 'pair') kafkaTopic('consume', a, loc);
        return true;
      }
      if (c.name === 'each_message') {
        const t = keywords(c.args).get('topic');
        return t ? kafkaTopic('consume', t, loc) : false;
      }
      // Karafka routing: `consumer AccountsConsumer` (1.0/1.1: `controller`) in `topic :accounts do … end`
      // under a `….draw do` of a file that names Karafka.
      if (/^(consumer|controller)$/.test(c.name) && !c.receiver && c.args.length === 1 && karafka()) {
        let topic: Node | undefined;
        let drawn = false;
        for (let p = node.parent; p && !drawn; p = p.parent) {
          if (!syn.calls.has(p.type)) continue;
          const o = syn.call(p);
          if (o?.name === 'topic' && !o.receiver && o.args[0] && !topic) topic = o.args[0];
          else if (o?.name === 'draw') drawn = true;
        }
        if (!topic || !drawn) return false;
        // The consumer is the class's handler (`def consume`; 1.0/1.1 `controller`s `def perform`), when the
        // source declares the class once; else the routing line.
        const cls = c.args[0]!.text.split('::').pop()!;
        const handler = `${cls}#${c.name === 'consumer' ? 'consume' : 'perform'}`;
        sink.topicRefs.push({ side: 'consume', parts: topicParts(topic), loc: { file, line: lineOf(topic) }, handler });
        return true;
      }
      return false;
    }
    /**
     * OAuth2 clients (issue 20): the base address of the file's OAuth2 client, from `OAuth2::Client.new(id,
     * secret, site: …)`, an OmniAuth strategy's `option :client_options, { site: … }`, or a `client_options:
     * { site: … }` argument (`provider :auth, id, secret, client_options: { … }`); and the requests made with
     * an access token (`access_token.get('/accounts/current')`, `token.request(:post, path)`), reported once
     * the file is read (the site may be written after the call).
     */
    function oauthCall(c: { name: string; receiver: string; args: Node[] }, node: Node, loc: Loc): boolean {
      const first = c.args[0];
      let options: Node | undefined;
      if (c.name === 'option' && first?.type === 'simple_symbol' && first.text === ':client_options')
        options = c.args[1];
      else if (c.name === 'new' && /(^|::)OAuth2::Client$/.test(c.receiver)) options = node;
      else options = keywords(c.args).get('client_options');
      if (options) {
        const site = keywords(options.type === 'hash' ? kids(options) : c.args).get('site');
        if (site) oauthSites.push(evaluate(site));
        return false;
      }
      if (!/^(@|self\.)?\w*token$/i.test(c.receiver) || !first) return false;
      if (c.name === 'request') {
        const verb = httpMethod(
          (first.type === 'simple_symbol' ? first.text.slice(1) : literal(evaluate(first)))?.toUpperCase(),
        );
        if (!verb || !c.args[1]) return false;
        tokenCalls.push({ method: verb, path: evaluate(c.args[1]), loc });
        return true;
      }
      const verb = VERBS[c.name];
      if (!verb) return false;
      tokenCalls.push({ method: verb, path: evaluate(first), loc });
      return true;
    }
    /** The token requests under the file's one OAuth2 site (an absolute path replaces the site's own path). */
    function oauthRequests(): void {
      if (tokenCalls.length === 0) return;
      const sites = new Map(oauthSites.map((s) => [nameOf(s) ?? '', s]));
      sites.delete('');
      if (sites.size === 0 && !/\bOAuth2\b|omniauth/i.test(root?.text ?? '')) return;
      const site = sites.size === 1 ? [...sites.values()][0] : undefined;
      for (const t of tokenCalls) {
        const path = nameOf(t.path);
        let url = t.path;
        if (site && path !== undefined && !/^\w+:\/\//.test(path)) {
          const text = literal(site);
          const origin = text !== undefined ? /^\w+:\/\/[^/]+/.exec(text)?.[0] : undefined;
          if (origin !== undefined && text !== undefined)
            url = path.startsWith('/') ? concat(lit(origin), t.path) : concat(lit(text.replace(/\/?$/, '/')), t.path);
          else {
            // A site from the environment: an absolute path replaces its default's own path too.
            const only = site.length === 1 ? site[0]! : undefined;
            const fb = only && ('env' in only || 'config' in only) ? only.fallback : undefined;
            const fbOrigin = fb !== undefined ? /^\w+:\/\/[^/]+/.exec(fb)?.[0] : undefined;
            const base = path.startsWith('/') && fbOrigin !== undefined ? [{ ...only!, fallback: fbOrigin }] : site;
            url = concat(base, path.startsWith('/') ? [] : lit('/'), t.path);
          }
        }
        sink.call(t.method, url, 'oauth2', t.loc);
      }
    }
    /** Message handler methods (`def consume`, `def perform`) of the file's classes, in modules at most 4 deep. */
    function handlerMethods(n: Node, depth: number): void {
      if (depth > 4) return;
      for (const x of kids(n)) {
        if (x.type === 'body_statement' || x.type === 'module') handlerMethods(x, depth + 1);
        else if (x.type === 'class') {
          const cls = x.childForFieldName('name')?.text.split('::').pop();
          for (const m of kids(x.childForFieldName('body'))) {
            const name = m.type === 'method' ? m.childForFieldName('name')?.text : undefined;
            if (cls && (name === 'consume' || name === 'perform'))
              sink.handlerMethods.push({ name: `${cls}#${name}`, loc: { file, line: lineOf(m) } });
          }
          handlerMethods(x.childForFieldName('body') ?? x, depth + 1);
        }
      }
    }
    function karafka(): boolean {
      return (isKarafka ??= /\bKarafka/.test(root?.text ?? ''));
    }

    /** Kotlin `KafkaConsumer(props).apply { subscribe(…) }`: the object a scope function runs on. */
    function applyTarget(node: Node): string {
      for (let p = node.parent; p; p = p.parent) {
        if (!syn.calls.has(p.type)) continue;
        const nav = kids(p)[0];
        if (nav?.type === 'navigation_expression' && /\.(apply|also|run|let)$/.test(nav.text.replace(/\s+/g, '')))
          return kids(nav)[0]?.text ?? '';
      }
      return '';
    }

    /**
     * Prefixes of enclosing route groups (`namespace "/api" do`, `$app->group('/v1', …)`, Ktor `route("/x") { }`);
     * Ruby: `namespace :api`, `scope 'v1'`, Grape `resource :carts`/`route_param :id`, Rails nested
     * `resources :orders do` (`/orders/:order_id`, or `/orders/:id` in its `member do`).
     */
    function groupPrefix(node: Node, on?: 'collection' | 'member'): string {
      const out: string[] = [];
      // The next enclosing `resources` is read as its member (`/orders/:id`), its collection (`/orders`) or,
      // by default, as the parent of a nested resource (`/orders/:order_id`).
      let mode: 'member' | 'collection' | undefined = on;
      for (let p = node.parent; p; p = p.parent) {
        if (!syn.calls.has(p.type)) continue;
        const c = syn.call(p);
        if (!c) continue;
        if (ruby && (c.name === 'member' || c.name === 'collection') && c.args.length === 0) mode = c.name;
        if (!c.args[0]) continue;
        if (/^(namespace|group|route|scope|prefix)$/.test(c.name) || (ruby && grape() && GRAPE_GROUP.test(c.name))) {
          const v = ruby ? railsSegment(c.args) : literal(evaluate(c.args[0]));
          if (v === undefined) continue;
          if (v.startsWith('/')) out.unshift(v);
          else if (ruby) out.unshift(c.name === 'route_param' ? `/:${v}` : `/${v}`);
        } else if (ruby && !grape() && /^resources?$/.test(c.name)) {
          const v = railsSegment(c.args);
          if (v === undefined) continue;
          const param =
            c.name !== 'resources' || mode === 'collection'
              ? ''
              : mode === 'member'
                ? ':id'
                : `:${v.replace(/s$/, '')}_id`;
          out.unshift(joinPath(v, param));
          mode = undefined;
        }
      }
      return joinPath(...out);
    }
    /** The base address a client variable was built with (`Faraday.new(url: …)`), when it is one. */
    function clientBase(name: string, at: Node): Part[] | undefined {
      const v = scope.lookup(name, at);
      const text = v ? nameOf(v) : undefined;
      return v && text !== undefined && /^(\w+:\/\/|\$\{)/.test(text) ? v : undefined;
    }
    /**
     * A Ruby route group's segment: its `path:` option (`scope path: 'v1'`, `resources :photos, path: 'images'`)
     * or its first argument; none for `scope module: 'admin'`, which names no path.
     */
    function railsSegment(args: Node[]): string | undefined {
      const opt = args.find((a) => a.type === 'pair' && /^:?path:?$/.test(a.childForFieldName('key')?.text ?? ''));
      const v = opt?.childForFieldName('value');
      if (v) return segmentOf(v);
      return args[0] && args[0].type !== 'pair' ? segmentOf(args[0]) : undefined;
    }
    /** A route segment: a string's value, or a Ruby symbol's name (`:orders`). */
    function segmentOf(n: Node): string | undefined {
      if (n.type === 'simple_symbol') return n.text.slice(1);
      return literal(evaluate(n));
    }
    function grape(): boolean {
      return (isGrape ??= /\bGrape::API\b/.test(root?.text ?? ''));
    }
    function railsRoutes(): boolean {
      return (isRailsRoutes ??= /\broutes\.draw\b/.test(root?.text ?? ''));
    }

    const declarations: Record<string, (n: Node) => void> = {};
    for (const [type, read] of Object.entries(syn.declarations))
      declarations[type] = (n) => {
        const d = read(n);
        if (d) scope.add(d.name, d.value, d.local);
      };
    for (const [type, read] of Object.entries(syn.assignments ?? {}))
      declarations[type] = (n) => {
        const d = read(n);
        if (d) scope.assign(d.name, d.value, false);
      };
    return {
      ...(syn.grpc ? { grpc: syn.grpc } : {}),
      evaluate,
      declarations,
      rules: [
        { on: [...syn.calls], each: onCall },
        {
          on: ['source_file', 'program'],
          each(root) {
            // The attribute routes of actix-web and rocket are written alike: the crate the file uses names them.
            const attr = framework.attr === 'actix-web' && /\brocket\b/.test(root.text) ? 'rocket' : framework.attr;
            syn.routeAttributes?.(root, (m, path, line, handler) => {
              sink.endpoint(m, path, attr, { file, line });
              if (handler && attr === 'actix-web') sink.handlerRoutes.push({ handler, loc: { file, line } });
            });
            syn.frameworks?.(root, file, sink);
            if (ruby) {
              oauthRequests();
              handlerMethods(root, 0);
            }
          },
        },
        sqlStringRule(sink, file, [...syn.strings], (s) => literal(evaluate(s))),
      ],
    };
  };
}

// ---- the languages

const rustSyntax: Syntax = {
  strings: set('string_literal', 'raw_string_literal'),
  content: set('string_content'),
  interpolations: set(),
  binary: set('binary_expression'),
  calls: set('call_expression'),
  call(n) {
    const fn = n.childForFieldName('function');
    const args = kids(n.childForFieldName('arguments'));
    if (fn?.type === 'field_expression')
      return {
        name: fn.childForFieldName('field')?.text ?? '',
        receiver: fn.childForFieldName('value')?.text ?? '',
        args,
      };
    if (fn?.type === 'scoped_identifier')
      return {
        name: fn.childForFieldName('name')?.text ?? '',
        receiver: fn.childForFieldName('path')?.text ?? '',
        args,
      };
    return fn ? { name: fn.text, receiver: '', args } : undefined;
  },
  declarations: {
    // A `let` is its function's (closure's) own: `url` in two handlers is two values.
    let_declaration: (n) => {
      const p = n.childForFieldName('pattern');
      const v = n.childForFieldName('value');
      return p?.type === 'identifier' && v ? { name: p.text, value: v, local: true } : undefined;
    },
    const_item: (n) => declared(n),
    static_item: (n) => declared(n),
  },
  assignments: {
    assignment_expression: (n) => {
      const l = n.childForFieldName('left');
      const r = n.childForFieldName('right');
      return l?.type === 'identifier' && r ? { name: l.text, value: r } : undefined;
    },
  },
  env(n, evaluate) {
    // env::var("X"), std::env::var("X") with .unwrap_or("d") / .unwrap_or_else(|_| "d".to_string()) after it.
    if (n.type !== 'call_expression') return undefined;
    const fn = n.childForFieldName('function');
    if (fn?.type === 'scoped_identifier' && /(^|::)env::var$/.test(fn.text)) {
      const k = kids(n.childForFieldName('arguments'))[0];
      const key = k ? literal(evaluate(k)) : undefined;
      return key !== undefined ? [{ env: key }] : undefined;
    }
    if (
      fn?.type === 'field_expression' &&
      /^(unwrap_or|unwrap_or_else|unwrap_or_default|expect|unwrap)$/.test(fn.childForFieldName('field')?.text ?? '')
    ) {
      const inner = fn.childForFieldName('value');
      const v = inner ? evaluate(inner) : undefined;
      const only = v?.length === 1 ? v[0]! : undefined;
      if (!only || !('env' in only)) return undefined;
      const a = kids(n.childForFieldName('arguments'))[0];
      const str = a ? (a.type === 'closure_expression' ? a.childForFieldName('body') : a) : undefined;
      const fb = str ? literal(evaluate(str)) : undefined;
      return [fb !== undefined ? { env: only.env, fallback: fb } : only];
    }
    return undefined;
  },
  routeAttributes(root, emit) {
    // actix-web / rocket: `#[post("/get-quote")]` before the handler.
    for (const item of kids(root).concat(
      kids(root).flatMap((x) => (x.type === 'mod_item' ? kids(x.childForFieldName('body')) : [])),
    )) {
      if (item.type !== 'attribute_item') continue;
      const attr = kids(item)[0];
      const verb = VERBS[kids(attr)[0]?.text ?? ''];
      const arg = kids(attr?.childForFieldName('arguments')).find((x) => x.type === 'string_literal');
      // The handler: the function after the item's attributes (`#[get("/x")] #[has_role("A")] async fn h`).
      let fn = item.nextNamedSibling;
      while (fn && (fn.type === 'attribute_item' || /comment/.test(fn.type))) fn = fn.nextNamedSibling;
      const handler = fn?.type === 'function_item' ? fn.childForFieldName('name')?.text : undefined;
      if (verb && arg) emit(verb, kids(arg)[0]?.text ?? '/', lineOf(item), handler);
    }
  },
};

function declared(n: Node): { name: string; value: Node } | undefined {
  const name = n.childForFieldName('name')?.text;
  const value = n.childForFieldName('value');
  return name && value ? { name, value } : undefined;
}

const rubySyntax: Syntax = {
  strings: set('string'),
  content: set('string_content', 'escape_sequence'),
  interpolations: set('interpolation'),
  binary: set('binary'),
  calls: set('call'),
  call(n) {
    const name = n.childForFieldName('method')?.text ?? '';
    const args = kids(n.childForFieldName('arguments'));
    return { name, receiver: n.childForFieldName('receiver')?.text ?? '', args };
  },
  declarations: {
    assignment: (n) => {
      const l = n.childForFieldName('left');
      const r = n.childForFieldName('right');
      return l && r && /^(identifier|constant|instance_variable)$/.test(l.type)
        ? { name: l.text, value: r }
        : undefined;
    },
  },
  env(n, evaluate) {
    // ENV["X"], ENV.fetch("X", "d")
    if (n.type === 'element_reference' && n.childForFieldName('object')?.text === 'ENV') {
      const k = kids(n)[1];
      const key = k ? literal(evaluate(k)) : undefined;
      return key !== undefined ? [{ env: key }] : undefined;
    }
    if (
      n.type === 'call' &&
      n.childForFieldName('receiver')?.text === 'ENV' &&
      n.childForFieldName('method')?.text === 'fetch'
    ) {
      const [k, d] = kids(n.childForFieldName('arguments'));
      const key = k ? literal(evaluate(k)) : undefined;
      const fb = d ? literal(evaluate(d)) : undefined;
      if (key === undefined) return undefined;
      return [fb !== undefined ? { env: key, fallback: fb } : { env: key }];
    }
    return undefined;
  },
};

const phpSyntax: Syntax = {
  dollarVariables: true,
  strings: set('string', 'encapsed_string'),
  content: set('string_content', 'string_value', 'escape_sequence'),
  interpolations: set('dynamic_variable_name', 'complex_interpolation'),
  binary: set('binary_expression'),
  calls: set('member_call_expression', 'scoped_call_expression', 'function_call_expression'),
  call(n) {
    const args = kids(n.childForFieldName('arguments')).map((a) => kids(a)[0] ?? a);
    if (n.type === 'function_call_expression')
      return { name: n.childForFieldName('function')?.text ?? '', receiver: '', args };
    const recv = n.childForFieldName(n.type === 'scoped_call_expression' ? 'scope' : 'object')?.text ?? '';
    return { name: n.childForFieldName('name')?.text ?? '', receiver: recv, args };
  },
  declarations: {
    assignment_expression: (n) => {
      const l = n.childForFieldName('left');
      const r = n.childForFieldName('right');
      return l?.type === 'variable_name' && r ? { name: l.text.replace(/^\$/, ''), value: r } : undefined;
    },
    const_element: (n) => {
      const [name, value] = kids(n);
      return name && value ? { name: name.text, value } : undefined;
    },
  },
  env(n, evaluate) {
    // getenv('X'), env('X', 'd') (Laravel), $_ENV['X'] / $_SERVER['X']
    if (n.type === 'function_call_expression' && /^(getenv|env)$/.test(n.childForFieldName('function')?.text ?? '')) {
      const [k, d] = kids(n.childForFieldName('arguments')).map((a) => kids(a)[0] ?? a);
      const key = k ? literal(evaluate(k)) : undefined;
      const fb = d ? literal(evaluate(d)) : undefined;
      if (key === undefined) return undefined;
      return [fb !== undefined ? { env: key, fallback: fb } : { env: key }];
    }
    if (n.type === 'subscript_expression' && /^\$_(ENV|SERVER)$/.test(kids(n)[0]?.text ?? '')) {
      const k = kids(n)[1];
      const key = k ? literal(evaluate(k)) : undefined;
      return key !== undefined ? [{ env: key }] : undefined;
    }
    return undefined;
  },
  routeAttributes(root, emit) {
    // Symfony `@Route("/x", methods={"PUT"})` docblocks and PHP 8 `#[Route('/x', methods: ['PUT'])]`, the
    // class's route a prefix of its methods'.
    const visit = (n: Node, prefix: string, depth: number): void => {
      if (depth > 8) return;
      for (const c of kids(n)) {
        if (c.type === 'class_declaration' || c.type === 'method_declaration') {
          const route = symfonyRoute(c);
          if (c.type === 'class_declaration')
            visit(c.childForFieldName('body') ?? c, route ? joinPath(prefix, route.path) : prefix, depth + 1);
          else if (route) for (const m of route.methods) emit(m, joinPath(prefix, route.path), lineOf(c));
        } else if (
          c.type === 'namespace_definition' ||
          c.type === 'compound_statement' ||
          c.type === 'declaration_list'
        )
          visit(c, prefix, depth + 1);
      }
    };
    visit(root, '', 0);
  },
};

/** The Symfony route of a class or method: its docblock (the comment before it) or its attributes. */
function symfonyRoute(decl: Node): { path: string; methods: HttpMethod[] } | undefined {
  const texts: string[] = [];
  const prev = decl.previousNamedSibling;
  if (prev?.type === 'comment') texts.push(prev.text);
  for (const a of kids(decl)) if (a.type === 'attribute_list') texts.push(a.text);
  for (const t of texts) {
    const m = /(?:@|#\[)Route\(\s*(?:path\s*[=:]\s*)?["']([^"']*)["']([^)]*)\)/.exec(t);
    if (!m) continue;
    const verbs = [...(/methods\s*[=:]\s*[{[]([^}\]]*)[}\]]/.exec(m[2]!)?.[1] ?? '').matchAll(/["'](\w+)["']/g)]
      .map((x) => httpMethod(x[1]!.toUpperCase()))
      .filter((x): x is HttpMethod => x !== undefined);
    return { path: m[1]!, methods: verbs.length ? verbs : ['ANY'] };
  }
  return undefined;
}

const kotlinSyntax: { -readonly [K in keyof Syntax]: Syntax[K] } = {
  dollarVariables: true,
  strings: set('string_literal'),
  content: set('string_content'),
  interpolations: set('interpolation'),
  binary: set('additive_expression'),
  calls: set('call_expression'),
  call(n) {
    const [fn, ...rest] = kids(n);
    const argsNode = rest.find((x) => x.type === 'value_arguments');
    const args = kids(argsNode).map((a) => kids(a)[kids(a).length - 1] ?? a);
    if (fn?.type === 'navigation_expression') {
      const parts = kids(fn);
      return {
        name: parts[parts.length - 1]?.text ?? '',
        receiver: parts
          .slice(0, -1)
          .map((x) => x.text)
          .join('.'),
        args,
      };
    }
    return fn ? { name: fn.text, receiver: '', args } : undefined;
  },
  declarations: {
    property_declaration: (n) => {
      const v = kids(n).find((x) => x.type === 'variable_declaration');
      const name = kids(v)[0]?.text;
      const value = kids(n)
        .filter((x) => x.type !== 'variable_declaration' && x.type !== 'modifiers')
        .pop();
      return name && value ? { name, value } : undefined;
    },
  },
  env(n, evaluate) {
    // System.getenv("X") ?: "d"
    if (n.type === 'call_expression' && /^System\s*\.\s*getenv$/.test(kids(n)[0]?.text ?? '')) {
      const a = kids(kids(n).find((x) => x.type === 'value_arguments'))[0];
      const key = a ? literal(evaluate(kids(a)[0] ?? a)) : undefined;
      return key !== undefined ? [{ env: key }] : undefined;
    }
    if ((n.type === 'binary_expression' || n.type === 'elvis_expression') && /\?:/.test(n.text)) {
      const l = n.childForFieldName('left') ?? kids(n)[0];
      const r = n.childForFieldName('right') ?? kids(n)[1];
      const v = l ? evaluate(l) : [];
      const fb = r ? literal(evaluate(r)) : undefined;
      const only = v.length === 1 ? v[0]! : undefined;
      if (only && 'env' in only && fb !== undefined) return [{ env: only.env, fallback: fb }];
      if (only && 'config' in only && fb !== undefined) return [{ config: only.config, fallback: fb }];
      return v.length ? v : undefined;
    }
    return undefined;
  },
};

const SPRING_MAPPINGS: Record<string, HttpMethod> = {
  RequestMapping: 'ANY',
  GetMapping: 'GET',
  PostMapping: 'POST',
  PutMapping: 'PUT',
  PatchMapping: 'PATCH',
  DeleteMapping: 'DELETE',
};

/** A Spring mapping annotation of a Kotlin declaration: its verb and its first path (`"/x"` or `["/x"]`). */
function kotlinMapping(decl: Node): { method: HttpMethod; path: string } | undefined {
  for (const a of kids(kids(decl).find((x) => x.type === 'modifiers'))) {
    const inv = kids(a).find((x) => x.type === 'constructor_invocation');
    const name = kids(inv)[0]?.text.replace(/^.*\./, '') ?? kids(a)[0]?.text ?? '';
    const method = SPRING_MAPPINGS[name];
    if (!method) continue;
    const str = (n: Node | undefined, d = 0): string | undefined =>
      !n || d > 4
        ? undefined
        : n.type === 'string_literal'
          ? n.text.slice(1, -1)
          : kids(n)
              .map((x) => str(x, d + 1))
              .find((x) => x !== undefined);
    const args = kids(kids(inv).find((x) => x.type === 'value_arguments'));
    const valueArg =
      args.find((x) => /^(value|path)\b/.test(kids(x)[0]?.text ?? '')) ?? args.find((x) => kids(x).length === 1);
    return { method, path: str(valueArg) ?? '' };
  }
  return undefined;
}

kotlinSyntax.routeAttributes = (root, emit) => {
  // Spring MVC/WebFlux controllers in Kotlin: class @RequestMapping prefix + method mappings.
  for (const cls of kids(root)) {
    if (cls.type !== 'class_declaration') continue;
    const prefix = kotlinMapping(cls)?.path ?? '';
    for (const fn of kids(kids(cls).find((x) => x.type === 'class_body'))) {
      if (fn.type !== 'function_declaration') continue;
      const m = kotlinMapping(fn);
      if (m) emit(m.method, joinPath(prefix, m.path), lineOf(fn));
    }
  }
};

kotlinSyntax.frameworks = kotlinMicronaut;
kotlinSyntax.grpc = KOTLIN_GRPC;

export const extractRust = extractorOf(rulesFor(rustSyntax, { routes: 'rust', attr: 'actix-web' }));
export const extractRuby = extractorOf(rulesFor(rubySyntax, { routes: 'sinatra', attr: 'sinatra' }));
export const extractPhp = extractorOf(rulesFor(phpSyntax, { routes: 'php', attr: 'php' }));
export const extractKotlin = extractorOf(rulesFor(kotlinSyntax, { routes: 'ktor', attr: 'spring' }));
