import type { ExchangeType, HttpMethod, Loc, Part } from '../model';
import type { Node } from '../parsers';
import { CATCH_ALL, joinPath } from '../routes';
import { HOLE_PART, concat, expandAlternatives, lineOf, lit, literal, walk } from './common';
import type { CodeExtractor } from './driver';
import { Scope } from './scope';

/**
 * Elixir (issue 20), read from the tree-sitter-elixir tree in one walk over calls, `=` and `@attr`:
 * - Plug.Router `get "/p" do … end`; Phoenix routers: `get "/p", C, :a` (and the other verbs) and `resources "/users", C, only:/except:` under
 *   nested `scope "/api", Alias do … end` (and under a parent `resources … do`), `:id` kept as the route's parameter;
 *   LiveView `live "/p", Mod` (a GET) and `forward "/p", Plug` / Plug.Router `forward "/p", to: Mod` (every method and
 *   path below `/p`);
 * - HTTP clients: HTTPoison/HTTPotion/Req/Tesla verbs (`get!` too), `X.request(:post, url)`, `Req.request(method:,
 *   url:)`, `Finch.build(:get, url)`, `:httpc.request(url)` / `:httpc.request(:post, {url, …}, …)`, and a Tesla
 *   module's own verbs under its `plug Tesla.Middleware.BaseUrl, base`;
 * - elixir-grpc: the generated `use GRPC.Service, name: "pkg.Service"` with its `rpc :Method, …` (a declaration),
 *   `use GRPC.Server, service: Pkg.Service.Service` (a server of every declared method), and
 *   `Pkg.Service.Stub.snake_method(channel, req)` (a call of `Method`) at the address of the file's one
 *   `GRPC.Stub.connect(addr)`;
 * - AMQP (the `amqp` package): `AMQP.Basic.publish(ch, exchange, key, payload)`, `AMQP.Exchange.declare(ch, x,
 *   :topic)` / `.topic`/`.fanout`/`.direct`, `AMQP.Queue.declare(ch, q)`, `AMQP.Queue.bind(ch, q, x, routing_key: k)`,
 *   `AMQP.Basic.consume(ch, q)`; a name from `Application.get_env(:app, :key)` without a default is made once the
 *   source's `config/*.exs` is read (`topicRefs`, `exchangeRefs`, `bindingRefs`).
 * Values: literals, `"#{x}/p"` interpolation, `<>`, a function's `x = …` and a module's `@attr …`,
 * `System.get_env("X", "d")` / `|| "d"` / `System.fetch_env!`, `Application.get_env(:app, :key, default)` (the
 * default; without one the key of the source's `config :app, key: …` in `config/*.exs`), and one GenServer hop: a
 * `handle_cast`/`handle_call` whose message pattern `{:tag, var, …}` binds `var` takes the values the file's
 * `GenServer.cast/call(_, {:tag, value, …})` send.
 */
const TYPES: ReadonlySet<string> = new Set(['call', 'binary_operator', 'unary_operator']);
const VERBS: Record<string, HttpMethod> = {
  get: 'GET',
  post: 'POST',
  put: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  head: 'HEAD',
  options: 'OPTIONS',
};
const HTTP_MODULES = /^(HTTPoison|HTTPotion|Req|Tesla)$/;
const EXCHANGE_TYPES: Record<string, ExchangeType> = {
  topic: 'topic',
  fanout: 'fanout',
  direct: 'direct',
  headers: 'headers',
};

const named = (n: Node | null | undefined): Node[] =>
  (n?.namedChildren ?? []).filter((x): x is Node => x !== null && x.type !== 'comment');

interface ExCall {
  /** `Mod.Sub` of `Mod.Sub.f(…)`, `:httpc` of `:httpc.request`, `` for a local call. */
  readonly module: string;
  readonly name: string;
  /** Positional arguments, and the keyword list (`a: 1`) last when there is one. */
  readonly args: Node[];
  readonly keywords: Map<string, Node>;
  readonly doBlock?: Node;
}

function callOf(n: Node): ExCall | undefined {
  const target = n.childForFieldName('target');
  if (!target) return undefined;
  let module = '';
  let name: string;
  if (target.type === 'identifier') name = target.text;
  else if (target.type === 'dot') {
    const left = target.childForFieldName('left');
    const right = target.childForFieldName('right');
    if (!left || !right || right.type !== 'identifier') return undefined;
    if (left.type !== 'alias' && left.type !== 'atom' && left.type !== 'identifier') return undefined;
    module = left.text;
    name = right.text;
  } else return undefined;
  const args: Node[] = [];
  const keywords = new Map<string, Node>();
  let doBlock: Node | undefined;
  for (const c of named(n)) {
    if (c.type === 'arguments') {
      for (const a of named(c)) {
        if (a.type === 'keywords') {
          for (const p of named(a)) {
            const k = p.childForFieldName('key');
            const v = p.childForFieldName('value');
            if (k && v) keywords.set(k.text.replace(/:\s*$/, '').replace(/^"|"$/g, ''), v);
          }
        } else args.push(a);
      }
    } else if (c.type === 'do_block') doBlock = c;
  }
  return { module, name, args, keywords, ...(doBlock ? { doBlock } : {}) };
}

/** `validate_token` → `ValidateToken`. */
const camel = (s: string): string =>
  s
    .replace(/[!?]$/, '')
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** The service's own name in a generated module name: `Auth.Proto.AuthService.Service` / `.Stub` → `AuthService`. */
const serviceOfModule = (m: string): string | undefined => {
  const segs = m.split('.');
  return segs.length >= 2 && /^(Service|Stub)$/.test(segs[segs.length - 1]!) ? segs[segs.length - 2] : undefined;
};

/** A broker name per alternative: literal text, an environment/configuration value by its default; `{}` when unknown. */
function brokerNames(parts: readonly Part[]): string[] {
  const out: string[] = [];
  for (const one of expandAlternatives(parts)) {
    let s = '';
    let ok = true;
    for (const p of one) {
      if ('lit' in p) s += p.lit;
      else if (('env' in p || 'config' in p) && p.fallback !== undefined) s += p.fallback;
      else ok = false;
    }
    out.push(ok ? s : '{}');
  }
  return [...new Set(out)];
}

export const extractElixir: CodeExtractor = (root, file, sink, scopeOut) => {
  const calls: Node[] = [];
  const assigns: { name: string; value: Node; at: number; def: number }[] = [];
  const attrs = new Map<string, Node>();
  const scope = new Scope(() => [HOLE_PART]);
  walk(root, TYPES, (node, type) => {
    if (type === 'call') calls.push(node);
    else if (type === 'binary_operator') {
      const op = node.childForFieldName('operator')?.text;
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      if (op === '=' && left?.type === 'identifier' && right)
        assigns.push({ name: left.text, value: right, at: node.startIndex, def: defOf(node)?.startIndex ?? -1 });
    } else {
      // `@base "http://…"`: a module attribute.
      if (node.childForFieldName('operator')?.text !== '@') return;
      const operand = node.childForFieldName('operand');
      if (operand?.type !== 'call') return;
      const c = callOf(operand);
      if (c && !c.module && c.args.length === 1 && !attrs.has(c.name)) attrs.set(c.name, c.args[0]!);
    }
  });
  const text = root.text;
  const loc = (n: Node): Loc => ({ file, line: lineOf(n) });

  /** The `def`/`defp` a node is in. */
  function defOf(n: Node): Node | undefined {
    for (let p = n.parent; p; p = p.parent) {
      if (p.type !== 'call') continue;
      const t = p.childForFieldName('target');
      if (t?.type === 'identifier' && /^defp?$/.test(t.text)) return p;
    }
    return undefined;
  }

  // Messages the file sends (`GenServer.cast/call`, `send`, `Process.send_after`): tag → the tuples' element nodes.
  const sent = new Map<string, Node[][]>();
  for (const n of calls) {
    const c = callOf(n);
    const sends =
      (c?.module === 'GenServer' && /^(cast|call)$/.test(c.name)) ||
      (c?.module === 'Process' && /^send(_after)?$/.test(c.name)) ||
      (c?.module === '' && c.name === 'send');
    if (!c || !sends) continue;
    const msg = c.args[1];
    const els = msg?.type === 'tuple' ? named(msg) : [];
    if (els[0]?.type !== 'atom') continue;
    const list = sent.get(els[0].text) ?? [];
    list.push(els);
    sent.set(els[0].text, list);
  }
  /** A variable bound by a `handle_cast({:tag, var, …}, state)` head: the values the file sends at its position. */
  function messageValue(name: string, def: Node, depth: number): Part[] | undefined {
    const head = named(named(def).find((x) => x.type === 'arguments'))[0];
    const h = head?.type === 'call' ? callOf(head) : undefined;
    if (!h || !/^handle_(cast|call|info)$/.test(h.name)) return undefined;
    const pattern = h.args[0];
    const els = pattern?.type === 'tuple' ? named(pattern) : [];
    if (els[0]?.type !== 'atom') return undefined;
    const at = els.findIndex((e) => e.type === 'identifier' && e.text === name);
    if (at < 1) return undefined;
    const values = (sent.get(els[0].text) ?? [])
      .filter((s) => s.length === els.length && s[at])
      .map((s) => evaluate(s[at]!, depth + 1));
    if (values.length === 0) return undefined;
    return values.length === 1 ? values[0]! : [{ hole: true, alts: values }];
  }

  function evaluate(node: Node, depth = 0): Part[] {
    if (depth > 8) return [HOLE_PART];
    switch (node.type) {
      case 'sigil':
      case 'string':
      case 'charlist': {
        // `~c"http://…"`, `~s(…)`: a string; other sigils (`~r`, `~w`) are no URL.
        if (node.type === 'sigil' && !/^~[csCS]/.test(node.text)) return [HOLE_PART];
        const parts: Part[][] = [];
        for (const c of named(node)) {
          if (c.type === 'quoted_content' || c.type === 'escape_sequence') parts.push(lit(c.text));
          else if (c.type === 'interpolation') {
            const inner = named(c)[0];
            parts.push(inner ? evaluate(inner, depth + 1) : [HOLE_PART]);
          }
        }
        return parts.length ? concat(...parts) : lit('');
      }
      case 'atom':
        return lit(node.text.replace(/^:"?|"$/g, ''));
      case 'integer':
        return lit(node.text.replace(/_/g, ''));
      case 'identifier': {
        const def = defOf(node);
        const defAt = def?.startIndex ?? -1;
        let best: (typeof assigns)[number] | undefined;
        for (const a of assigns)
          if (a.name === node.text && a.def === defAt && a.at < node.startIndex && (!best || a.at > best.at)) best = a;
        if (best) return evaluate(best.value, depth + 1);
        return (def && messageValue(node.text, def, depth)) ?? [HOLE_PART];
      }
      case 'unary_operator': {
        const operand = node.childForFieldName('operand');
        if (node.childForFieldName('operator')?.text === '@' && operand?.type === 'identifier') {
          const v = attrs.get(operand.text);
          return v ? evaluate(v, depth + 1) : [HOLE_PART];
        }
        return [HOLE_PART];
      }
      case 'binary_operator': {
        const op = node.childForFieldName('operator')?.text;
        const l = node.childForFieldName('left');
        const r = node.childForFieldName('right');
        if (!l || !r) return [HOLE_PART];
        if (op === '<>') return concat(evaluate(l, depth + 1), evaluate(r, depth + 1));
        if (op === '||') {
          // `System.get_env("X") || "d"`: the variable with its default.
          const left = evaluate(l, depth + 1);
          const only = left.length === 1 ? left[0]! : undefined;
          const fb = literal(evaluate(r, depth + 1));
          if (only && 'env' in only && only.fallback === undefined && fb !== undefined)
            return [{ env: only.env, fallback: fb }];
          return left;
        }
        if (op === '|>') {
          // `x |> String.trim()`: value-keeping conversions.
          const c = r.type === 'call' ? callOf(r) : undefined;
          if (c && /^(trim|to_string|to_charlist)$/.test(c.name)) return evaluate(l, depth + 1);
        }
        return [HOLE_PART];
      }
      case 'call': {
        const c = callOf(node);
        if (!c) return [HOLE_PART];
        const a0 = c.args[0];
        if (c.module === 'System' && /^(get_env|fetch_env!|fetch_env)$/.test(c.name) && a0) {
          const key = literal(evaluate(a0, depth + 1));
          if (key === undefined) return [HOLE_PART];
          const fb = c.args[1] ? literal(evaluate(c.args[1], depth + 1)) : undefined;
          return [fb !== undefined ? { env: key, fallback: fb } : { env: key }];
        }
        if (c.module === 'Application' && /^(get_env|fetch_env!|fetch_env|compile_env)$/.test(c.name) && a0) {
          const app = a0.type === 'atom' ? a0.text.slice(1) : undefined;
          const key = c.args[1]?.type === 'atom' ? c.args[1].text.slice(1) : undefined;
          if (c.args[2]) return evaluate(c.args[2], depth + 1);
          return app && key ? [{ ref: `${app}.${key}` }] : [HOLE_PART];
        }
        if (/^(to_string|to_charlist|trim)$/.test(c.name) && a0) return evaluate(a0, depth + 1);
        // `Req.new(base_url: b)`: the client's base, which its requests' relative `url:` go under.
        if (c.module === 'Req' && c.name === 'new') {
          const b = c.keywords.get('base_url');
          return b ? evaluate(b, depth + 1) : [HOLE_PART];
        }
        return [HOLE_PART];
      }
      case 'block':
      case 'arguments': {
        const last = named(node).pop();
        return last ? evaluate(last, depth + 1) : [HOLE_PART];
      }
    }
    return [HOLE_PART];
  }

  const isRouter = /\bPhoenix\.Router\b|use\s+[\w.]+,\s*:router\b/.test(text);
  const isPlugRouter = /\buse\s+Plug\.Router\b/.test(text);
  const isTesla = /\buse\s+Tesla\b/.test(text);
  const amqp = /\bAMQP\b/.test(text);
  /** `scope "/api", X do`, `scope path: "/api"`, and parent `resources "/users", C do`: the enclosing path. */
  function routePrefix(n: Node): string {
    const segs: string[] = [];
    for (let p = n.parent; p; p = p.parent) {
      if (p.type !== 'call') continue;
      const c = callOf(p);
      if (!c || c.module || !c.doBlock) continue;
      if (c.name === 'scope') {
        const first = c.args[0]?.type === 'string' ? c.args[0] : c.keywords.get('path');
        const path = first ? literal(evaluate(first)) : undefined;
        if (path !== undefined) segs.unshift(path);
      } else if (c.name === 'resources' && c.args[0]) {
        const path = literal(evaluate(c.args[0]));
        const ctrl = c.args[1]?.text
          .split('.')
          .pop()
          ?.replace(/Controller$/, '');
        if (path !== undefined) {
          const param = ctrl
            ? ctrl.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase()
            : path.split('/').pop()!.replace(/s$/, '');
          segs.unshift(`${path}/:${param}_id`);
        }
      }
    }
    return joinPath('/', ...segs);
  }

  // `alias Auth.AuthService.Stub` (`, as: S`): `Stub.register(…)` is `Auth.AuthService.Stub.register(…)`.
  const aliases = new Map<string, string>();
  for (const n of calls) {
    const c = callOf(n);
    if (!c || c.module || c.name !== 'alias' || c.args[0]?.type !== 'alias') continue;
    const full = c.args[0].text;
    const as = c.keywords.get('as');
    aliases.set(as?.type === 'alias' ? as.text : full.split('.').pop()!, full);
  }
  const callAt = (n: Node): ExCall | undefined => {
    const c = callOf(n);
    if (!c || aliases.size === 0) return c;
    const [head, ...rest] = c.module.split('.');
    const full = head ? aliases.get(head) : undefined;
    return full ? { ...c, module: [full, ...rest].join('.') } : c;
  };

  // The file's gRPC channel address: its one `GRPC.Stub.connect(addr)`.
  const addresses = new Map<string, Part[]>();
  for (const n of calls) {
    const c = callAt(n);
    if (c?.module === 'GRPC.Stub' && c.name === 'connect' && c.args[0]) {
      const v = evaluate(c.args[0]);
      addresses.set(JSON.stringify(v), v);
    }
  }
  const address = addresses.size === 1 ? [...addresses.values()][0]! : [];

  // A Tesla module's base URL (`plug Tesla.Middleware.BaseUrl, "http://…"`).
  let teslaBase: Part[] | undefined;

  for (const n of calls) {
    const c = callAt(n);
    if (!c) continue;
    const at = loc(n);
    const a = c.args;
    // Phoenix and Plug.Router routes.
    if ((isRouter || isPlugRouter) && !c.module && a[0]?.type === 'string') {
      const verb = VERBS[c.name];
      const path = literal(evaluate(a[0]));
      if (path !== undefined && verb && isRouter && a[1]?.type === 'alias') {
        sink.endpoint(verb, joinPath(routePrefix(n), path), 'phoenix', at);
        continue;
      }
      // Phoenix LiveView: `live "/users/:id", UserLive.Show, :show` serves the page (a GET) at the path.
      if (path !== undefined && isRouter && c.name === 'live' && a[1]?.type === 'alias') {
        sink.endpoint('GET', joinPath(routePrefix(n), path), 'phoenix', at);
        continue;
      }
      // `forward "/graphql", Absinthe.Plug, …` (Phoenix) / `forward "/users", to: UsersRouter` (Plug.Router): the
      // plug serves every method and every path below the prefix.
      if (path !== undefined && c.name === 'forward' && (a[1]?.type === 'alias' || c.keywords.has('to'))) {
        const prefix = isRouter ? routePrefix(n) : '/';
        sink.endpoint('ANY', joinPath(prefix, path, CATCH_ALL), isRouter ? 'phoenix' : 'plug', at);
        continue;
      }
      // Plug.Router: `get "/users/:id" do … end`.
      if (path !== undefined && verb && isPlugRouter && c.doBlock && a.length === 1) {
        sink.endpoint(verb, joinPath('/', path), 'plug', at);
        continue;
      }
      if (path !== undefined && isRouter && c.name === 'resources' && a[1]?.type === 'alias') {
        const base = joinPath(routePrefix(n), path);
        const actions = (k: string): string[] | undefined => {
          const v = c.keywords.get(k);
          return v ? [...v.text.matchAll(/:(\w+)/g)].map((m) => m[1]!) : undefined;
        };
        const only = actions('only');
        const except = actions('except') ?? [];
        const singleton = c.keywords.get('singleton')?.text === 'true';
        const member = singleton ? base : `${base}/:id`;
        const rows: [string, HttpMethod, string][] = [
          ['index', 'GET', base],
          ['new', 'GET', `${base}/new`],
          ['create', 'POST', base],
          ['show', 'GET', member],
          ['edit', 'GET', `${member}/edit`],
          ['update', 'PATCH', member],
          ['update', 'PUT', member],
          ['delete', 'DELETE', member],
        ];
        for (const [action, verb2, p] of rows) {
          if (singleton && action === 'index') continue;
          if ((only && !only.includes(action)) || except.includes(action)) continue;
          sink.endpoint(verb2, p, 'phoenix', at);
        }
        continue;
      }
    }
    // Tesla's base URL.
    if (isTesla && !c.module && c.name === 'plug' && a[0]?.text === 'Tesla.Middleware.BaseUrl' && a[1]) {
      teslaBase = evaluate(a[1]);
      continue;
    }
    // HTTP clients.
    const verbName = c.name.replace(/!$/, '');
    if (HTTP_MODULES.test(c.module) || (isTesla && !c.module && defOf(n))) {
      let method: HttpMethod | undefined = VERBS[verbName];
      let url: Node | undefined;
      if (method) {
        // A Tesla module's `get(url)`; `Req.get!(url: …)`; else the first argument.
        // `Tesla.get(client, url)` and a Tesla module's `get(client, url)`: the URL after the client.
        const afterClient = (c.module === 'Tesla' || !c.module) && a.length >= 2 && a[0]?.type === 'identifier';
        url = afterClient ? a[1] : (c.keywords.get('url') ?? a[0]);
        if (c.module === 'Req' && url && url.type !== 'string' && !c.keywords.has('url') && a.length > 1) url = a[1];
      } else if (verbName === 'request' && c.module) {
        const m = c.keywords.get('method') ?? a[0];
        method = m?.type === 'atom' ? VERBS[m.text.slice(1)] : undefined;
        url = c.keywords.get('url') ?? (c.keywords.has('method') ? a[0] : a[1]);
      }
      if (method && url && (c.module || isTesla)) {
        let parts = evaluate(url);
        // `Req.get!(client, url: "/p")` on a `Req.new(base_url: …)` client.
        const client = c.module === 'Req' && c.keywords.has('url') && a[0] ? evaluate(a[0]) : undefined;
        if (client?.some((p) => !('hole' in p)) && !/^\w+:\/\//.test(literal(parts) ?? ''))
          parts = concat(client, parts);
        if (!c.module && teslaBase && !/^\w+:\/\//.test(literal(parts) ?? '')) parts = concat(teslaBase, parts);
        if (parts.some((p) => !('hole' in p))) sink.call(method, parts, 'elixir-http', at);
        continue;
      }
    }
    if (c.module === 'Finch' && c.name === 'build' && a[0]?.type === 'atom' && a[1]) {
      const method = VERBS[a[0].text.slice(1)];
      if (method) sink.call(method, evaluate(a[1]), 'elixir-http', at);
      continue;
    }
    if (c.module === ':httpc' && c.name === 'request' && a[0]) {
      // `:httpc.request(url)` is a GET; `:httpc.request(:post, {url, headers, type, body}, …)`.
      if (a[0].type === 'atom') {
        const method = VERBS[a[0].text.slice(1)];
        const req = a[1]?.type === 'tuple' ? named(a[1])[0] : undefined;
        if (method && req) sink.call(method, evaluate(req), 'elixir-http', at);
      } else sink.call('GET', evaluate(a[0]), 'elixir-http', at);
      continue;
    }
    // elixir-grpc: generated declarations, servers, stub calls.
    if (!c.module && c.name === 'use' && a[0]) {
      if (a[0].text === 'GRPC.Service') {
        const name = c.keywords.get('name');
        const full = name ? literal(evaluate(name)) : undefined;
        const body = moduleBody(n);
        if (full && body) {
          const dot = full.lastIndexOf('.');
          const methods: { name: string; line: number }[] = [];
          for (const x of calls) {
            if (x.startIndex < body.startIndex || x.endIndex > body.endIndex) continue;
            const r = callOf(x);
            if (r && !r.module && r.name === 'rpc' && r.args[0]?.type === 'atom')
              methods.push({ name: r.args[0].text.slice(1), line: lineOf(x) });
          }
          sink.facts.grpcDecls.push({
            package: dot > 0 ? full.slice(0, dot) : '',
            service: full.slice(dot + 1),
            methods,
            file,
          });
        }
        continue;
      }
      if (a[0].text === 'GRPC.Server') {
        const svc = c.keywords.get('service');
        const service = svc ? serviceOfModule(svc.text) : undefined;
        if (service) sink.facts.grpcServers.push({ service, framework: 'elixir-grpc', loc: at });
        continue;
      }
    }
    if (/\.Stub$/.test(c.module) && c.module !== 'GRPC.Stub' && a.length >= 1) {
      const service = serviceOfModule(c.module);
      if (service)
        sink.facts.grpcCalls.push({ service, method: camel(c.name), address, client: 'elixir-grpc', loc: at });
      continue;
    }
    // AMQP.
    if (amqp && /^(AMQP\.)?(Basic|Exchange|Queue)$/.test(c.module)) {
      const mod = c.module.replace(/^AMQP\./, '');
      const names = (x: Node | undefined): string[] => (x ? brokerNames(evaluate(x)) : []);
      // A name read with `Application.get_env(:app, :key)` and no default: the source's `config :app, key: …` in
      // `config/*.exs`, another file, so the fact is made once the source is read.
      const later = (...xs: (Node | undefined)[]): Part[][] | undefined => {
        const parts = xs.map((x) => (x ? evaluate(x) : []));
        return parts.some((p) => p.some((q) => 'ref' in q)) ? parts : undefined;
      };
      if (mod === 'Basic' && c.name === 'publish' && a[1] && a[2]) {
        const refs = later(a[1], a[2]);
        if (refs)
          sink.topicRefs.push({ side: 'publish', broker: 'rabbitmq', exchange: refs[0]!, parts: refs[1]!, loc: at });
        else for (const x of names(a[1])) for (const k of names(a[2])) sink.publish('rabbitmq', x, k, at);
      } else if (mod === 'Basic' && c.name === 'consume' && a[1]) {
        const refs = later(a[1]);
        if (refs) sink.topicRefs.push({ side: 'consume', broker: 'rabbitmq', parts: refs[0]!, loc: at });
        else for (const q of names(a[1])) sink.consume('rabbitmq', q, at);
      } else if (mod === 'Exchange' && a[1]) {
        const kind =
          c.name === 'declare' ? (a[2]?.type === 'atom' ? a[2].text.slice(1) : 'direct') : c.name.replace(/!$/, '');
        const type = EXCHANGE_TYPES[kind];
        const refs = later(a[1]);
        if (type && refs) sink.exchangeRefs.push({ parts: refs[0]!, type, loc: at });
        else if (type) for (const x of names(a[1])) if (x !== '{}') sink.exchange(x, type, at);
      } else if (mod === 'Queue' && c.name === 'declare' && a[1]) {
        const refs = later(a[1]);
        if (refs) sink.topicRefs.push({ side: 'queue', broker: 'rabbitmq', parts: refs[0]!, loc: at });
        else for (const q of names(a[1])) if (q !== '{}' && q !== '') sink.queue(q, at);
      } else if (mod === 'Queue' && c.name === 'bind' && a[1] && a[2]) {
        const key = c.keywords.get('routing_key');
        const refs = later(a[1], a[2], key);
        if (refs) sink.bindingRefs.push({ queue: refs[0]!, exchange: refs[1]!, key: refs[2]!, loc: at });
        else {
          const keys = key ? names(key) : [''];
          for (const q of names(a[1])) for (const x of names(a[2])) for (const k of keys) sink.binding(x, q, k, at);
        }
      }
      continue;
    }
    // `config :app, key: value` (config/*.exs): the source's settings, read by `Application.get_env(:app, :key)`.
    if (!c.module && c.name === 'config' && /(^|\/)config\/[^/]+\.exs$/.test(file) && a[0]?.type === 'atom') {
      const app = a[0].text.slice(1);
      const sub = a[1]?.type === 'atom' ? `.${a[1].text.slice(1)}` : a[1] ? undefined : '';
      if (sub !== undefined)
        for (const [k, v] of c.keywords) {
          const parts = evaluate(v);
          if (parts.some((p) => !('hole' in p))) scope.set(`${app}${sub}.${k}`, parts);
        }
    }
  }
  scopeOut(scope);
};

/** The `do` block of the `defmodule` a node is in. */
function moduleBody(n: Node): Node | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type !== 'call') continue;
    if (p.childForFieldName('target')?.text === 'defmodule') return named(p).find((x) => x.type === 'do_block');
  }
  return undefined;
}
