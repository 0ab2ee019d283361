import type { Loc, Part } from '../model';
import type { Node } from '../parsers';
import { type Sink, nameOf } from './common';
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
  | { readonly kind: 'handler'; readonly pattern: string; readonly transport?: string; readonly loc: Loc };

const MARKER = /@nestjs\/microservices|Transport\.|MessagePattern|EventPattern|ControllerMethods/;
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
    const q = new RegExp(String.raw`\bqueue\s*:\s*${EXPR}`).exec(obj.body);
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
    const token = decorated ? `${file}#${decorated[1]}` : tokenExpr ? nameOf(value(tokenExpr, obj.start)) : undefined;
    if (token) sink.nest.push({ kind: 'client', token, transport, ...(queue ? { queue } : {}) });
    // A gRPC client's `url` (`process.env.HERO_URL || 'heroes:5000'`): the address of the services its token's
    // `getService` gives, in any file of the source.
    const url = transport === 'GRPC' && token ? /\burl\s*:\s*([^,{}\n]+)/.exec(obj.body) : null;
    if (url) sink.grpcChannels.push({ name: `nest:${token}`, address: value(url[1]!.trim(), obj.start + url.index) });
  }
  // Injected clients: `@Inject('LOAN_SERVICE') private readonly client: ClientProxy`, and @Client fields.
  const fields = new Map<string, string>();
  for (const m of text.matchAll(
    new RegExp(
      String.raw`@Inject\s*\(\s*${EXPR}\s*\)\s*(?:(?:private|public|protected|readonly)\s+)*([A-Za-z_$][\w$]*)`,
      'g',
    ),
  )) {
    const token = nameOf(value(m[1]!, m.index));
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
  const queueOf = (q: Part[] | undefined): string | undefined => (q ? nameOf(resolve(q)) : undefined);
  const servers: { transport: string; queue?: string; loc: Loc }[] = [];
  for (const p of sink.nest) {
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
