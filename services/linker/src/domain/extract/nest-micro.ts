import type { Loc, Part } from '../model';
import type { Node } from '../parsers';
import { type Sink, nameOf } from './common';
import { CONSTANT_MARK } from './eventuate';
import { codeText, evaluateText, lineAt } from './grpc';

/**
 * NestJS microservices (`@nestjs/microservices`): one transport abstraction over RabbitMQ, NATS, Kafka, Redis
 * and gRPC. A client is registered under an injection token (`ClientsModule.register([{ name, transport,
 * options }])`, `ClientProxyFactory.create`, `@Client({…})`) and used as `client.send(pattern, data)` /
 * `client.emit(pattern, data)`; a service answers with `@MessagePattern(pattern)` / `@EventPattern(pattern)`
 * on the transport its `createMicroservice` / `connectMicroservice` opens. What the broker sees differs by
 * transport: RMQ sends every pattern to the options' `queue` on the default exchange (the pattern rides in
 * the body), NATS and Redis use the pattern as the subject or channel, Kafka as the topic. The registration,
 * the injection, the call and the server live in different files, so each file leaves its pieces in the sink
 * and `resolveNestMicroservices` joins them once the source is read.
 */
export type NestPiece =
  | { readonly kind: 'client'; readonly token: string; readonly transport: string; readonly queue?: Part[] }
  | { readonly kind: 'server'; readonly transport: string; readonly queue?: Part[]; readonly loc: Loc }
  | {
      readonly kind: 'send';
      readonly token: string;
      readonly pattern: string;
      readonly loc: Loc;
    }
  | { readonly kind: 'handler'; readonly pattern: string; readonly transport?: string; readonly loc: Loc }
  /**
   * A config factory method returning transport options (`createConfig(queue) { return { transport:
   * Transport.RMQ, options: { queue } } }`): its queue is its parameter `param`, or the value `queue`.
   */
  | {
      readonly kind: 'factory';
      readonly name: string;
      readonly transport: string;
      readonly param?: number;
      readonly queue?: Part[];
    }
  /** Options given by a call of a factory method: a client registered under `token`, or a server. */
  | { readonly kind: 'clientCall'; readonly token: string; readonly method: string; readonly arg?: Part[] }
  | { readonly kind: 'serverCall'; readonly method: string; readonly arg?: Part[]; readonly loc: Loc };

const MARKER =
  /@nestjs\/microservices|Transport\.|(?:create|connect)Microservice|MessagePattern|EventPattern|ControllerMethods/;
/** A string literal, or a name the file's scope gives (`LOAN_QUEUE`, `process.env.QUEUE`). */
const EXPR = String.raw`(['"\x60][^'"\x60]*['"\x60]|[A-Za-z_$][\w$.]*(?:\[[^\]]*\])?)`;

/** The object literal around `at`: its text and start offset (braces counted, strings skipped roughly). */
function enclosingObject(text: string, at: number): { start: number; body: string } | undefined {
  let depth = 0;
  let start = -1;
  for (let i = at; i >= 0 && at - i < 4000; i--) {
    const ch = text[i];
    if (ch === '}') depth++;
    else if (ch === '{') {
      if (depth === 0) {
        start = i;
        break;
      }
      depth--;
    }
  }
  if (start < 0) return undefined;
  depth = 0;
  for (let j = start; j < text.length && j - start < 8000; j++) {
    if (text[j] === '{') depth++;
    else if (text[j] === '}' && --depth === 0) return { start, body: text.slice(start, j + 1) };
  }
  return undefined;
}

/** A pattern as Nest routes it: a string as is, an object `{ cmd: 'x' }` as JSON with its keys sorted. */
function patternOf(expr: string, text: string, lookup: (n: string) => Part[] | undefined, at: number): string {
  const e = expr.trim();
  if (e.startsWith('{')) {
    const entries = [...e.matchAll(/(\w+)\s*:\s*(['"])([^'"]*)\2/g)].map((m) => [m[1]!, m[3]!] as const);
    if (entries.length === 0) return '{}';
    return JSON.stringify(Object.fromEntries([...entries].sort((a, b) => (a[0] < b[0] ? -1 : 1))));
  }
  return nameOf(evaluateText(e, text, lookup, at)) ?? '{}';
}

/**
 * An injection token: its value when known, else the name as written (`Tokens.ORDER_PUBLISHER` of another
 * file), so that two tokens this file cannot resolve stay two clients rather than one unknown `{}`.
 */
function tokenOf(expr: string, parts: readonly Part[]): string | undefined {
  const v = nameOf(parts);
  if (v !== undefined && !v.includes('{}')) return v;
  const e = expr.replace(/\s+/g, '');
  return /^[A-Za-z_$][\w$.]*$/.test(e) ? `token:${e}` : v;
}

/** The method or function whose body holds `at`: its name and parameter names (last opened before `at`). */
function factoryOf(text: string, at: number): { name: string; params: string[] } | undefined {
  const from = Math.max(0, at - 1500);
  const head = text.slice(from, at);
  let found: RegExpExecArray | undefined;
  for (const m of head.matchAll(
    /(?:^|[\s;{}(])(?:(?:public|private|protected|static|async|function)\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^<>()]*>)?\s*\(([^()]*)\)\s*(?::\s*[\w$.<>[\], |]+)?\s*(?:\{|=>)/g,
  ))
    if (!/^(if|for|while|switch|catch|return|function)$/.test(m[1]!)) found = m;
  if (!found) return undefined;
  // The body must still be open at `at` (braces between the header and `at` balance to one or more).
  const body = head.slice(found.index + found[0].length);
  let depth = found[0].endsWith('{') ? 1 : 0;
  for (const ch of body) depth += ch === '{' ? 1 : ch === '}' ? -1 : 0;
  if (depth < (found[0].endsWith('{') ? 1 : 0)) return undefined;
  const params = found[2]!
    .split(',')
    .map((x) => /^\s*(?:@\w+\([^)]*\)\s*)?(?:(?:private|public|protected|readonly)\s+)*([A-Za-z_$][\w$]*)/.exec(x)?.[1])
    .filter((x): x is string => x !== undefined);
  return { name: found[1]!, params };
}

/** `x.method(ARG)` (or `method()`): the method and its one argument. */
const CALL = String.raw`(?:[A-Za-z_$][\w$]*\s*\.\s*)*([A-Za-z_$][\w$]*)\s*\(\s*${EXPR}?\s*\)`;

/**
 * Options made by a config factory method: `ClientProxyFactory.create(rmq.createConfig(Q))` in a provider,
 * `ClientsModule.register([{ name, ...rmq.createConfig(Q) }])` or `registerAsync([{ name, useFactory: (rmq) =>
 * rmq.createConfig(Q) }])`, and `createMicroservice(M, rmq.createConfig(Q))` or its `{ useFactory: … }` form.
 * Joined with the factory (any file of the source) in `resolveNestMicroservices`.
 */
function scanFactoryCalls(
  text: string,
  loc: (offset: number) => Loc,
  sink: Sink,
  value: (expr: string, at: number) => Part[],
  token: (expr: string, at: number) => string | undefined,
): void {
  if (!/ClientProxyFactory|ClientsModule|Microservice/.test(text)) return;
  const FACTORY = String.raw`(?:useFactory\s*:\s*(?:async\s*)?(?:\([^()]*\)|[A-Za-z_$][\w$]*)\s*=>\s*\(?\s*)`;
  for (const m of text.matchAll(new RegExp(String.raw`ClientProxyFactory\s*\.\s*create\s*\(\s*${CALL}`, 'g'))) {
    const provide = new RegExp(String.raw`\bprovide\s*:\s*${EXPR}[^;]*$`).exec(
      text.slice(Math.max(0, m.index - 600), m.index),
    );
    const t = provide ? token(provide[1]!, m.index) : undefined;
    if (t)
      sink.nest.push({ kind: 'clientCall', token: t, method: m[1]!, ...(m[2] ? { arg: value(m[2], m.index) } : {}) });
  }
  for (const m of text.matchAll(
    new RegExp(String.raw`\bname\s*:\s*${EXPR}\s*,\s*(?:\.\.\.\s*|${FACTORY})${CALL}`, 'g'),
  )) {
    const t = token(m[1]!, m.index);
    if (t)
      sink.nest.push({ kind: 'clientCall', token: t, method: m[2]!, ...(m[3] ? { arg: value(m[3], m.index) } : {}) });
  }
  for (const m of text.matchAll(
    new RegExp(
      String.raw`(?:create|connect)Microservice\s*(?:<[^>]*>)?\s*\((?:[^;(){}]*,)?\s*(?:\{\s*${FACTORY}|\.\.\.\s*)?${CALL}`,
      'g',
    ),
  ))
    sink.nest.push({
      kind: 'serverCall',
      method: m[1]!,
      ...(m[2] ? { arg: value(m[2], m.index) } : {}),
      loc: loc(m.index),
    });
}

/** Reads one TypeScript/JavaScript file's Nest microservice pieces (and its gRPC clients and ts-proto servers). */
export function scanNest(root: Node, file: string, sink: Sink, lookup: (name: string) => Part[] | undefined): void {
  if (!MARKER.test(root.text)) return;
  const text = codeText(root);
  const line = lineAt(text);
  const loc = (offset: number): Loc => ({ file, line: line(offset) });
  const value = (expr: string, at: number): Part[] => evaluateText(expr, text, lookup, at);
  // Registrations and servers: every object literal naming a transport.
  for (const m of text.matchAll(/\btransport\s*:\s*Transport\s*\.\s*(\w+)/g)) {
    const obj = enclosingObject(text, m.index);
    if (!obj) continue;
    const transport = m[1]!.toUpperCase();
    // `queue: X`, or the shorthand `queue,` (a variable or parameter named `queue`).
    const q =
      new RegExp(String.raw`\bqueue\s*:\s*${EXPR}`).exec(obj.body) ?? /(?<=[{,]\s*)(queue)\s*(?=[,}])/.exec(obj.body);
    const queue = q ? value(q[1]!, obj.start + q.index) : undefined;
    const before = text.slice(Math.max(0, obj.start - 300), obj.start);
    if (/(?:create|connect)Microservice\s*(?:<[^>]*>)?\s*\([^;]*$/.test(before)) {
      sink.nest.push({ kind: 'server', transport, ...(queue ? { queue } : {}), loc: loc(m.index) });
      continue;
    }
    const named = new RegExp(String.raw`\bname\s*:\s*${EXPR}`).exec(obj.body);
    // ClientProxyFactory.create({…}) in a provider: the provider's token (`provide: 'X'` before it).
    const provide = new RegExp(String.raw`\bprovide\s*:\s*${EXPR}[^;]*$`).exec(
      text.slice(Math.max(0, obj.start - 600), obj.start),
    );
    // @Client({…}) on a field: the field itself is the client.
    const decorated = /@Client\s*\(\s*$/.test(before)
      ? /^\s*\)\s*(?:(?:private|public|protected|readonly)\s+)*([A-Za-z_$][\w$]*)/.exec(
          text.slice(obj.start + obj.body.length),
        )
      : null;
    const tokenExpr = decorated ? undefined : (named?.[1] ?? provide?.[1]);
    const token = decorated
      ? `${file}#${decorated[1]}`
      : tokenExpr
        ? tokenOf(tokenExpr, value(tokenExpr, obj.start))
        : undefined;
    // Returned by a method or function: a config factory, followed at each call (`rmq.createConfig(X)`).
    if (!token && /(?:\breturn|=>)\s*\(?\s*$/.test(before)) {
      const fn = factoryOf(text, obj.start);
      if (fn) {
        const param = q ? fn.params.indexOf(q[1]!) : -1;
        sink.nest.push({
          kind: 'factory',
          name: fn.name,
          transport,
          ...(param >= 0 ? { param } : queue ? { queue } : {}),
        });
        continue;
      }
    }
    if (token) sink.nest.push({ kind: 'client', token, transport, ...(queue ? { queue } : {}) });
    // A gRPC client's `url` (`process.env.HERO_URL || 'heroes:5000'`): the address of the services its token's
    // `getService` gives, in any file of the source.
    const url = transport === 'GRPC' && token ? /\burl\s*:\s*([^,{}\n]+)/.exec(obj.body) : null;
    if (url) sink.grpcChannels.push({ name: `nest:${token}`, address: value(url[1]!.trim(), obj.start + url.index) });
  }
  scanFactoryCalls(text, loc, sink, value, (e, at) => tokenOf(e, value(e, at)));
  // Injected clients: `@Inject('LOAN_SERVICE') private readonly client: ClientProxy`, and @Client fields.
  const fields = new Map<string, string>();
  for (const m of text.matchAll(
    new RegExp(
      String.raw`@Inject\s*\(\s*${EXPR}\s*\)\s*(?:(?:private|public|protected|readonly)\s+)*([A-Za-z_$][\w$]*)`,
      'g',
    ),
  )) {
    const token = tokenOf(m[1]!, value(m[1]!, m.index));
    if (token) fields.set(m[2]!, token);
  }
  for (const m of text.matchAll(/@Client\s*\(\s*\{/g)) {
    const obj = enclosingObject(text, m.index + m[0].length - 1 + 1);
    const after = obj ? text.slice(obj.start + obj.body.length) : '';
    const f = /^\s*\)\s*(?:(?:private|public|protected|readonly)\s+)*([A-Za-z_$][\w$]*)/.exec(after)?.[1];
    if (f) fields.set(f, `${file}#${f}`);
  }
  for (const [field, token] of fields) {
    const call = new RegExp(
      String.raw`(?<![\w$])(?:this\s*\.\s*)?${field.replace(/\$/g, '\\$')}\s*\.\s*(send|emit)\s*(?:<[^>()]*>)?\s*\(\s*(\{[^{}]*\}|${EXPR.slice(1, -1)})`,
      'g',
    );
    for (const c of text.matchAll(call))
      sink.nest.push({ kind: 'send', token, pattern: patternOf(c[2]!, text, lookup, c.index), loc: loc(c.index) });
  }
  for (const m of text.matchAll(
    new RegExp(
      String.raw`@(?:MessagePattern|EventPattern)\s*\(\s*(\{[^{}]*\}|${EXPR.slice(1, -1)})(?:\s*,\s*Transport\s*\.\s*(\w+))?`,
      'g',
    ),
  ))
    sink.nest.push({
      kind: 'handler',
      pattern: patternOf(m[1]!, text, lookup, m.index),
      ...(m[2] ? { transport: m[2].toUpperCase() } : {}),
      loc: loc(m.index),
    });
  if (/getService|ControllerMethods/.test(text)) scanNestGrpc(text, loc, sink, (e, at) => nameOf(value(e, at)), fields);
}

/**
 * NestJS gRPC. Client: `this.svc = this.client.getService<AuthServiceClient>(AUTH_SERVICE_NAME)`, then
 * `this.svc.login(…)`: a call of AuthService/login. Server: ts-proto's `@AuthServiceControllerMethods()` on a
 * class registers `GrpcMethod('AuthService', m)` for each of its methods (the plain `@GrpcMethod` is read by
 * the gRPC table).
 */
function scanNestGrpc(
  text: string,
  loc: (offset: number) => Loc,
  sink: Sink,
  name: (expr: string, at: number) => string | undefined,
  fields: ReadonlyMap<string, string>,
): void {
  const facts = sink.facts;
  for (const m of text.matchAll(
    /(?:this\s*\.\s*)?([A-Za-z_$][\w$]*)\s*=\s*(?:this\s*\.\s*)?([\w$.]+)\s*\.\s*getService\s*(?:<\s*(\w+)\s*>)?\s*\(\s*([^()]*?)\s*\)/g,
  )) {
    // The injected `ClientGrpc` (`@Inject('HERO_PACKAGE') client`): its registration's url, by token.
    const token = fields.get(m[2]!.replace(/^this\s*\.\s*/, ''));
    const typed = m[3]?.endsWith('Client') ? m[3].slice(0, -'Client'.length) : undefined;
    const service = typed ?? (m[4] ? name(m[4], m.index) : undefined);
    if (!service || !/^[A-Za-z_][\w.]*$/.test(service)) continue;
    const v = m[1]!.replace(/\$/g, '\\$');
    for (const u of text.matchAll(
      new RegExp(String.raw`(?<![\w$])(?:this\s*\.\s*)?${v}\s*\.\s*([A-Za-z_]\w*)\s*\(`, 'g'),
    )) {
      if (u.index === m.index) continue;
      facts.grpcCalls.push({
        service,
        method: u[1]!,
        address: [],
        client: 'grpc-nest',
        loc: loc(u.index),
        ...(token ? { channel: `nest:${token}` } : {}),
      });
    }
  }
  for (const m of text.matchAll(/@(\w+?)ControllerMethods\s*\(\s*\)/g)) {
    const cls = /^[^{]*?\bclass\s+\w+[^{]*\{/.exec(text.slice(m.index + m[0].length, m.index + m[0].length + 2000));
    if (!cls) continue;
    const start = m.index + m[0].length + cls.index + cls[0].length;
    let depth = 1;
    let j = start;
    for (; j < text.length && depth > 0; j++) {
      if (text[j] === '{') depth++;
      else if (text[j] === '}') depth--;
      // A method at the class's own level: `async login(` / `login(` at the start of a line.
      if (depth === 1 && text[j] === '\n') {
        const def = /^[ \t]*(?:(?:public|async|static)\s+)*([A-Za-z_]\w*)\s*\(/.exec(text.slice(j + 1, j + 200));
        if (def && def[1] !== 'constructor' && !/^(if|for|while|switch|return)$/.test(def[1]!))
          facts.grpcServers.push({ service: m[1]!, method: def[1]!, framework: 'grpc-nest', loc: loc(j + 1) });
      }
    }
  }
}

/** Joins the source's pieces: each send through its token's client, each handler on the source's servers. */
export function resolveNestMicroservices(sink: Sink, resolve: (parts: readonly Part[]) => Part[]): void {
  if (sink.nest.length === 0) return;
  const clients = new Map<string, { transport: string; queue?: string }[]>();
  const queueOf = (q: Part[] | undefined): string | undefined => {
    const name = q ? nameOf(resolve(q)) : undefined;
    return name?.includes('{}') ? undefined : name;
  };
  const servers: { transport: string; queue?: string; loc: Loc }[] = [];
  // Config factories by method name: one meaning per name, else none.
  const factories = new Map<string, Extract<NestPiece, { kind: 'factory' }> | null>();
  for (const p of sink.nest)
    if (p.kind === 'factory') {
      const prev = factories.get(p.name);
      factories.set(p.name, prev === undefined || JSON.stringify(prev) === JSON.stringify(p) ? p : null);
    }
  const made = (method: string, arg: Part[] | undefined): { transport: string; queue?: Part[] } | undefined => {
    const f = factories.get(method);
    if (!f) return undefined;
    const queue = f.param !== undefined ? (f.param === 0 ? arg : undefined) : f.queue;
    return { transport: f.transport, ...(queue ? { queue } : {}) };
  };
  // A factory no file of this source declares (a shared library, another source): the queue is named once the
  // sources are linked (`nestFactoryQueue`), from the library's factory and constants.
  const pending = (method: string, arg: Part[] | undefined): { transport: string; queue: Part[] } | undefined => {
    if (factories.has(method)) return undefined;
    const a = arg ? resolve(arg) : [];
    const only = a.length === 1 ? a[0]! : undefined;
    const given =
      only && 'lit' in only ? `lit:${only.lit}` : only && 'ref' in only ? `ref:${only.ref}` : arg ? undefined : '';
    if (given === undefined) return undefined;
    return { transport: 'RMQ', queue: [{ lit: `${CONSTANT_MARK}${NEST_CALL}${method}|${given}` }] };
  };
  for (const p0 of sink.nest) {
    const m =
      p0.kind === 'clientCall' || p0.kind === 'serverCall'
        ? (made(p0.method, p0.arg) ?? pending(p0.method, p0.arg))
        : undefined;
    const p: NestPiece | undefined =
      p0.kind === 'clientCall'
        ? m && { kind: 'client', token: p0.token, ...m }
        : p0.kind === 'serverCall'
          ? m && { kind: 'server', loc: p0.loc, ...m }
          : p0;
    if (!p) continue;
    if (p.kind === 'client') {
      const list = clients.get(p.token) ?? [];
      const queue = queueOf(p.queue);
      list.push({ transport: p.transport, ...(queue ? { queue } : {}) });
      clients.set(p.token, list);
    } else if (p.kind === 'server') {
      const queue = queueOf(p.queue);
      servers.push({ transport: p.transport, ...(queue ? { queue } : {}), loc: p.loc });
      // The server asserts its queue on start.
      if (p.transport === 'RMQ' && queue) sink.facts.queues.push({ name: queue, loc: p.loc });
    }
  }
  for (const p of sink.nest) {
    if (p.kind === 'send') {
      const regs = clients.get(p.token) ?? [];
      const keys = new Set(regs.map((r) => `${r.transport}|${r.queue ?? ''}`));
      if (keys.size !== 1) continue; // unknown or ambiguous token
      const c = regs[0]!;
      if (c.transport === 'RMQ' && c.queue) sink.publish('rabbitmq', '', c.queue, p.loc, undefined, [p.pattern]);
      else if (c.transport === 'NATS') sink.publish('nats', '', p.pattern, p.loc);
      else if (c.transport === 'KAFKA') sink.publish('kafka', '', p.pattern, p.loc);
      else if (c.transport === 'REDIS') sink.publish('redis', '', p.pattern, p.loc);
    } else if (p.kind === 'handler') {
      for (const s of servers) {
        if (p.transport && p.transport !== s.transport) continue;
        if (s.transport === 'RMQ' && s.queue) sink.consume('rabbitmq', s.queue, p.loc, undefined, [p.pattern]);
        else if (s.transport === 'NATS') sink.consume('nats', p.pattern, p.loc);
        else if (s.transport === 'KAFKA') sink.consume('kafka', p.pattern, p.loc);
        else if (s.transport === 'REDIS') sink.consume('redis', p.pattern, p.loc);
      }
    }
  }
}

const NEST_CALL = 'nest-call:';
/** Exported under this prefix: a source's RMQ config factory, by method name (`$0`: its first parameter). */
const NEST_FACTORY = 'nest-factory:';

/**
 * What other sources may need of this one (issue 20): its RMQ config factories (`nest-factory:createConfig` =
 * `$0` or the queue) and its enum-like constants (`Queues.ORDERS` = `orders_q`), as channel constants.
 */
export function exportNestConstants(sink: Sink, resolve: (parts: readonly Part[]) => Part[]): void {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of Object.entries(sink.facts.constants)) {
    if (n >= 2000 || !/^[A-Z][A-Za-z0-9]*\.[A-Z][A-Za-z0-9_]*$/.test(k) || v.length !== 1) continue;
    const only = v[0]!;
    if ('lit' in only) {
      out[k] = only.lit;
      n++;
    }
  }
  for (const p of sink.nest)
    if (p.kind === 'factory' && p.transport === 'RMQ') {
      const q = p.param !== undefined ? `$${p.param}` : p.queue ? nameOf(resolve(p.queue)) : undefined;
      if (q !== undefined && !q.includes('{}')) out[`${NEST_FACTORY}${p.name}`] = q;
    }
  if (Object.keys(out).length) sink.facts.channelConstants = { ...out, ...sink.facts.channelConstants };
}

/**
 * A queue named by a factory call of another source (`nest-call:createConfig|ref:Queues.ORDERS`): the factory's
 * queue, its parameter bound to the argument; undefined when the sources do not tell.
 */
export function nestFactoryQueue(mark: string, value: (name: string) => string | undefined): string | undefined {
  if (!mark.startsWith(NEST_CALL)) return undefined;
  const m = /^([^|]*)\|(lit:|ref:)?(.*)$/.exec(mark.slice(NEST_CALL.length));
  if (!m) return undefined;
  const f = value(`${NEST_FACTORY}${m[1]!}`);
  if (f === undefined) return undefined;
  if (f !== '$0') return /^\$\d+$/.test(f) ? undefined : f;
  return m[2] === 'lit:' ? m[3] : m[2] === 'ref:' ? value(m[3]!) : undefined;
}
