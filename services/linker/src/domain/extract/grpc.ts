import type { GrpcDecl, Part } from '../model';
import type { Node } from '../parsers';
import { HOLE_PART, type Sink, concat, lit, walk } from './common';

/**
 * gRPC in code, one table per language: server registrations, generated clients and the methods called
 * through them, channels (the target address). The generated code's shape is fixed by protoc in every
 * language, so the rules read the file's text (comments blanked by the parse tree: commented-out code never
 * counts) with patterns; addresses go through the file's scope like other values.
 */
export interface GrpcTable {
  readonly framework: string;
  /** A file without this is skipped before anything else. */
  readonly marker: RegExp;
  /** Server registrations: group 1 the service (or, with `impl`, the implementation class). */
  readonly servers: readonly { readonly re: RegExp; readonly impl?: boolean; readonly method?: number }[];
  /** C#: `class T : X.XBase` (group 1 the class, group 2 the service). */
  readonly impls?: RegExp;
  /** Client constructions: group `service`, and the channel or address expression (`conn`). */
  readonly clients: readonly {
    readonly re: RegExp;
    readonly service: number;
    /** The group of the channel expression (its first argument is used), or of the address with `address`. */
    readonly conn?: number;
    readonly address?: boolean;
    /** What the arguments must look like (Node: channel credentials after the address). */
    readonly args?: RegExp;
  }[];
  /** Variables typed as the client of a service (C# `CartService.CartServiceClient _client`), `SVC` replaced. */
  readonly typedVars?: (service: string) => RegExp;
  /** Where a channel variable `name` (a pattern) is created: group `addr` the address expression. */
  readonly channels: (name: string) => readonly RegExp[];
  /** Client methods that are no RPC (`withDeadlineAfter`, `close`). */
  readonly notMethods: RegExp;
  /** The method as the proto names it (`GetCartAsync` → `GetCart`). */
  readonly methodName?: (m: string) => string;
  /** A client in a file that matches this is certainly gRPC; otherwise it is linked only when a server exists. */
  readonly strong: RegExp;
}

const GENERATED = /(_pb2_grpc|_pb2)\.py$|\.pb\.go$|_grpc_pb\.[jt]s$|_pb\.[jt]s$|Grpc\.(cs|java)$|\.pb\.(cs|java)$/;
const BALANCED = String.raw`[^()]*(?:\([^()]*(?:\([^()]*\)[^()]*)*\)[^()]*)*`;

export const GO_GRPC: GrpcTable = {
  framework: 'grpc-go',
  marker: /Register\w+Server|New\w+Client|grpc/,
  servers: [{ re: /(?<!func\s+)\b(?:\w+\.)?Register(\w+)Server\s*\(/g }],
  clients: [{ re: new RegExp(String.raw`\b\w+\.New(\w+)Client\s*\((${BALANCED})\)`, 'g'), service: 1, conn: 2 }],
  channels: (n) => [
    new RegExp(
      String.raw`\b${n}\s*(?:,\s*\w+\s*)?:?=\s*grpc\.(?:Dial|DialContext|NewClient)\s*\(\s*(?:ctx\s*,\s*)?(?<addr>[^,()]+(?:\([^()]*\))?)`,
    ),
    // A helper that dials into an out-parameter: connect(ctx, &s.cartConn, s.cartAddr)
    new RegExp(String.raw`&\s*(?:\w+\.)*${n}\s*,\s*(?<addr>[^,()]+)\)`),
  ],
  notMethods: /^(Close)$/,
  strong: /grpc|genproto|pb"|proto"/,
};

export const CSHARP_GRPC: GrpcTable = {
  framework: 'grpc-dotnet',
  marker: /Grpc|Client\b|BindService|Base\b/,
  servers: [
    { re: /MapGrpcService\s*<\s*(?:[\w.]+\.)?(\w+)\s*>/g, impl: true },
    // Grpc.Core: new Server { Services = { CartService.BindService(impl) } }
    { re: /\b(\w+)\.BindService\s*\(/g },
  ],
  impls: /class\s+(\w+)\s*:\s*(?:[\w.]+\.)?(\w+)\.\2Base\b/g,
  clients: [
    { re: new RegExp(String.raw`new\s+(?:[\w.]+\.)?(\w+)\.\1Client\s*\((${BALANCED})\)`, 'g'), service: 1, conn: 2 },
    {
      re: /AddGrpcClient\s*<\s*(?:[\w.]+\.)?(\w+)\.\1Client\s*>\s*\([^;]*?Address\s*=\s*new\s*(?:Uri)?\s*\(([^;]*?)\)\s*[;}]/g,
      service: 1,
      conn: 2,
      address: true,
    },
  ],
  typedVars: (s) => new RegExp(String.raw`\b${s}\.${s}Client\s+(\w+)\s*[;,)=]`, 'g'),
  channels: (n) => [
    new RegExp(String.raw`\b${n}\s*=\s*GrpcChannel\.ForAddress\s*\(\s*(?<addr>${BALANCED})\)`),
    new RegExp(String.raw`\b${n}\s*=\s*new\s+Channel\s*\(\s*(?<addr>[^,()]+(?:\([^()]*\))?)`),
  ],
  notMethods: /^(Dispose|WithHost)$/,
  methodName: (m) => m.replace(/Async$/, ''),
  strong: /Grpc/,
};

export const JAVA_GRPC: GrpcTable = {
  framework: 'grpc-java',
  marker: /Grpc/,
  servers: [{ re: /class\s+\w+\s+extends\s+(?:[\w.]+\.)?(\w+)Grpc\.\1ImplBase\b/g }],
  clients: [
    {
      re: new RegExp(String.raw`\b(\w+)Grpc\.new(?:Blocking|Future|BlockingV2)?Stub\s*\((${BALANCED})\)`, 'g'),
      service: 1,
      conn: 2,
    },
  ],
  channels: (n) => [
    new RegExp(
      String.raw`\b${n}\s*=\s*(?:Managed|Netty)?ChannelBuilder\s*\.\s*for(?:Address|Target)\s*\(\s*(?<addr>[^,()]+(?:\([^()]*\))?)`,
    ),
    new RegExp(String.raw`\b${n}\s*=\s*Grpc\s*\.\s*newChannelBuilder\s*\(\s*(?<addr>[^,()]+(?:\([^()]*\))?)`),
  ],
  notMethods: /^(with\w*|getChannel|getCallOptions)$/,
  strong: /Grpc/,
};

export const JS_GRPC: GrpcTable = {
  framework: 'grpc-node',
  marker: /grpc|addService|GrpcMethod/i,
  servers: [
    { re: /\.addService\s*\(\s*(?:[\w$]+(?:\.[\w$]+|\[['"][\w.]+['"]\])*?)\.(\w+)\.service\b/g },
    { re: /\.addService\s*\(\s*(\w+)\.service\b/g },
    // NestJS: @GrpcMethod('HeroesService', 'FindOne')
    { re: /@GrpcMethod\s*\(\s*['"](\w+)['"](?:\s*,\s*['"](\w+)['"])?/g, method: 2 },
  ],
  clients: [
    {
      re: new RegExp(String.raw`new\s+(?:[\w$]+(?:\.[\w$]+)*\.)?([A-Z]\w*)\s*\((${BALANCED})\)`, 'g'),
      service: 1,
      conn: 2,
      address: true,
      args: /,[^]*credentials/,
    },
  ],
  channels: () => [],
  notMethods: /^(close|getChannel|waitForReady|makeUnaryRequest|makeClientStreamRequest|makeServerStreamRequest)$/,
  strong: /grpc/i,
};

export const PYTHON_GRPC: GrpcTable = {
  framework: 'grpc-python',
  marker: /grpc|Servicer|Stub/,
  servers: [{ re: /(?<!def\s+)\badd_(\w+)Servicer_to_server\s*\(/g }],
  clients: [
    { re: new RegExp(String.raw`(?<!class\s+)\b(?:\w+\.)?(\w+)Stub\s*\((${BALANCED})\)`, 'g'), service: 1, conn: 2 },
  ],
  channels: (n) => [
    new RegExp(
      String.raw`\b${n}\s*=\s*grpc\.(?:aio\.)?(?:insecure|secure)_channel\s*\(\s*(?<addr>[^,()]+(?:\([^()]*\))?)`,
    ),
    new RegExp(
      String.raw`grpc\.(?:aio\.)?(?:insecure|secure)_channel\s*\(\s*(?<addr>[^,()]+(?:\([^()]*\))?)[^)]*\)\s*as\s+${n}\b`,
    ),
  ],
  notMethods: /^(close)$/,
  strong: /grpc/,
};

const COMMENTS = new Set(['comment', 'line_comment', 'block_comment']);
const FULL_METHOD = /["'`]\/([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\.([A-Z]\w*)\/([A-Za-z]\w*)["'`]/g;

/** The text with comments blanked (newlines kept, so offsets and lines stay). */
function codeText(root: Node): string {
  const text = root.text;
  const parts: string[] = [];
  let at = 0;
  walk(root, COMMENTS, (c) => {
    if (c.startIndex < at) return;
    parts.push(text.slice(at, c.startIndex), text.slice(c.startIndex, c.endIndex).replace(/[^\n]/g, ' '));
    at = c.endIndex;
  });
  parts.push(text.slice(at));
  return parts.join('');
}

function lineAt(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** The match of `re` nearest before `at` (a variable's last assignment before its use), else the first. */
function nearest(re: RegExp, text: string, at: number): RegExpExecArray | null {
  const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
  let best: RegExpExecArray | null = null;
  let first: RegExpExecArray | null = null;
  for (let m = g.exec(text); m; m = g.exec(text)) {
    if (!first) first = m;
    if (m.index < at) best = m;
    else break;
    if (m[0].length === 0) g.lastIndex++;
  }
  return best ?? first;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Splits an expression on a top-level operator (outside strings and parentheses). */
function splitTop(expr: string, op: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i]!;
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (depth === 0 && expr.startsWith(op, i)) {
      out.push(expr.slice(start, i));
      start = i + op.length;
      i += op.length - 1;
    }
  }
  out.push(expr.slice(start));
  return out;
}

const ENV_READS: readonly RegExp[] = [
  /^os\.Getenv\(\s*"(\w+)"\s*\)$/,
  /^process\.env\.(\w+)$/,
  /^process\.env\[\s*['"](\w+)['"]\s*\]$/,
  /^os\.(?:environ\.get|getenv)\(\s*['"](\w+)['"]\s*(?:,\s*(['"][^'"]*['"]))?\s*\)$/,
  /^os\.environ\[\s*['"](\w+)['"]\s*\]$/,
  /^(?:System\.)?Environment\.GetEnvironmentVariable\(\s*"(\w+)"\s*\)$/,
  /^System\.getenv\(\s*"(\w+)"\s*\)$/,
];

/**
 * An address expression as parts: literals, concatenation, environment reads (with `??`/`||`/`or`
 * defaults), and names assigned in the file (or its scope's constants); anything else is a run-time value.
 */
function evaluateText(
  expr: string,
  text: string,
  lookup: (name: string) => Part[] | undefined,
  at: number,
  depth = 0,
): Part[] {
  const e = expr
    .trim()
    .replace(/^\((.*)\)$/s, '$1')
    .trim();
  if (!e || depth > 4) return [HOLE_PART];
  for (const op of ['??', '||', ' or ']) {
    const alt = splitTop(e, op);
    if (alt.length === 2) {
      const first = evaluateText(alt[0]!, text, lookup, at, depth + 1);
      const fallback = evaluateText(alt[1]!, text, lookup, at, depth + 1);
      const only = first.length === 1 ? first[0]! : undefined;
      const fb = fallback.length === 1 && 'lit' in fallback[0]! ? fallback[0].lit : undefined;
      if (only && 'env' in only && fb !== undefined) return [{ env: only.env, fallback: fb }];
      return first;
    }
  }
  const plus = splitTop(e, '+');
  if (plus.length > 1) return concat(...plus.map((p) => evaluateText(p, text, lookup, at, depth + 1)));
  const str = /^(['"`])((?:(?!\1)[^\\]|\\.)*)\1$/s.exec(e);
  if (str) return str[1] === '`' && str[2]!.includes('${') ? [HOLE_PART] : lit(str[2]!);
  for (const re of ENV_READS) {
    const m = re.exec(e);
    if (m) return m[2] ? [{ env: m[1]!, fallback: m[2].slice(1, -1) }] : [{ env: m[1]! }];
  }
  const uri = /^new\s+Uri\s*\((.*)\)$/s.exec(e);
  if (uri) return evaluateText(uri[1]!, text, lookup, at, depth + 1);
  if (/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(e)) {
    const name = e.split('.').pop()!;
    // The name's assignment in the file (`addr := os.Getenv("X")`, `target = "cart:7070"`).
    const assigned = nearest(
      new RegExp(String.raw`(?:^|[^\w.$])(?:[\w$]+\.)*${escape(name)}\s*(?::=|=(?![=>]))\s*([^;\n]+)`, 'm'),
      text,
      at,
    );
    if (assigned) return evaluateText(assigned[1]!.replace(/[,{]\s*$/, ''), text, lookup, assigned.index, depth + 1);
    // An out-parameter set from an environment variable: mustMapEnv(&s.cartAddr, "CART_ADDR").
    const out = new RegExp(String.raw`&\s*(?:\w+\.)*${escape(name)}\s*,\s*"([A-Z][A-Z0-9_]*)"\s*\)`).exec(text);
    if (out) return [{ env: out[1]! }];
    return lookup(name) ?? lookup(e) ?? [{ ref: e }];
  }
  return [HOLE_PART];
}

/** From just after a receiver: `.m(` or `.withX(…).m(` → m (the first method that is no option). */
function chainedMethod(text: string, at: number, not: RegExp): string | undefined {
  const re = /^\s*\??\.\s*([A-Za-z_]\w*)\s*\(/;
  let i = at;
  for (let hops = 0; hops < 4; hops++) {
    const m = re.exec(text.slice(i, i + 200));
    if (!m) return undefined;
    if (!not.test(m[1]!)) return m[1];
    // Skip the option call's arguments.
    let depth = 0;
    let j = i + m[0].length - 1;
    for (; j < text.length; j++) {
      if (text[j] === '(') depth++;
      else if (text[j] === ')' && --depth === 0) break;
    }
    i = j + 1;
  }
  return undefined;
}

/** Reads one file's gRPC facts. `lookup` gives the file's constants (its scope). */
export function scanGrpc(
  table: GrpcTable,
  root: Node,
  file: string,
  sink: Sink,
  lookup: (name: string) => Part[] | undefined,
): void {
  const raw = root.text;
  if (!table.marker.test(raw)) return;
  const text = codeText(root);
  const line = lineAt(text);
  const facts = sink.facts;
  // Generated code: declarations only (`"/pkg.Service/Method"`), never a server or a client.
  const decls = new Map<string, GrpcDecl & { methods: { name: string; line: number }[] }>();
  for (const m of text.matchAll(FULL_METHOD)) {
    const key = `${m[1]}.${m[2]}`;
    let d = decls.get(key);
    if (!d) decls.set(key, (d = { package: m[1]!, service: m[2]!, methods: [], file }));
    if (!d.methods.some((x) => x.name === m[3])) d.methods.push({ name: m[3]!, line: line(m.index) });
  }
  facts.grpcDecls.push(...decls.values());
  if (GENERATED.test(file)) return;
  const loc = (offset: number): { file: string; line: number } => ({ file, line: line(offset) });
  for (const s of table.servers) {
    for (const m of text.matchAll(s.re)) {
      const name = m[1]!;
      const method = s.method !== undefined ? m[s.method] : undefined;
      if (s.impl)
        facts.grpcServers.push({ service: '', implClass: name, framework: table.framework, loc: loc(m.index) });
      else
        facts.grpcServers.push({
          service: name,
          ...(method ? { method } : {}),
          framework: table.framework,
          loc: loc(m.index),
        });
    }
  }
  if (table.impls) for (const m of text.matchAll(table.impls)) facts.grpcImpls[m[1]!] = m[2]!;
  // Channels dialled into a variable or field that clients of other files use (`mustConnGRPC(ctx,
  // &svc.cartConn, svc.cartAddr)` in main.go, `pb.NewCartClient(fe.cartConn)` in rpc.go).
  for (const re of table.channels(String.raw`(?<ch>\w*(?:[Cc]onn|[Cc]hannel|[Cc]c)\w*)`)) {
    for (const m of text.matchAll(new RegExp(re.source, re.flags + 'g'))) {
      const address = m.groups?.addr ? evaluateText(m.groups.addr, text, lookup, m.index) : [];
      if (m.groups?.ch && address.length) sink.grpcChannels.push({ name: m.groups.ch, address });
    }
  }
  const strong = table.strong.test(text);
  const seen = new Set<string>();
  const call = (service: string, method: string, address: Part[], offset: number, channel?: string): void => {
    const name = method === '*' ? '*' : (table.methodName?.(method) ?? method);
    const l = loc(offset);
    const key = `${service}|${name}|${l.line}`;
    if (seen.has(key)) return;
    seen.add(key);
    facts.grpcCalls.push({
      service,
      method: name,
      address,
      client: table.framework,
      loc: l,
      ...(channel && address.length === 0 ? { channel } : {}),
      ...(strong ? {} : { weak: true }),
    });
  };
  /** The address a channel expression stands for, when the file says. */
  const addressOf = (conn: string, at: number): Part[] => {
    const e = conn.trim();
    if (!e) return [];
    const inline = table.channels('').length
      ? /(?:Dial|DialContext|NewClient|ForAddress|for(?:Address|Target)|_channel)\s*\(\s*(?:ctx\s*,\s*)?([^,()]+(?:\([^()]*\))?)/.exec(
          e,
        )
      : null;
    if (inline) return evaluateText(inline[1]!, text, lookup, at);
    const name = e
      .replace(/^&/, '')
      .split(/[.\s,]/)
      .filter(Boolean)
      .pop();
    if (!name || !/^\w+$/.test(name)) return [];
    for (const re of table.channels(escape(name))) {
      const m = nearest(re, text, at);
      if (m?.groups?.addr) return evaluateText(m.groups.addr, text, lookup, m.index);
    }
    return [];
  };
  for (const c of table.clients) {
    for (const m of text.matchAll(c.re)) {
      const service = m[c.service]!;
      const connExpr = c.conn !== undefined ? (m[c.conn] ?? '') : '';
      if (c.args && !c.args.test(connExpr)) continue;
      const first = splitTop(connExpr, ',')[0] ?? '';
      const address = c.address ? evaluateText(first, text, lookup, m.index) : addressOf(first, m.index);
      const channel = c.address ? undefined : /(\w+)\s*$/.exec(first.trim())?.[1];
      const end = m.index + m[0].length;
      const direct =
        c.address && table.framework === 'grpc-dotnet' ? undefined : chainedMethod(text, end, table.notMethods);
      if (direct) {
        call(service, direct, address, m.index, channel);
        continue;
      }
      // The client held in a variable or field: its method calls in the file.
      const before = text.slice(Math.max(0, m.index - 200), m.index);
      const target = /([A-Za-z_$][\w$]*)\s*(?::=|=)\s*(?:await\s+)?$/.exec(before)?.[1];
      const vars = new Set<string>(target ? [target] : []);
      if (table.typedVars) for (const t of text.matchAll(table.typedVars(service))) vars.add(t[1]!);
      let found = false;
      for (const v of vars) {
        const use = new RegExp(String.raw`(?<![\w$])${escape(v)}(?=\s*\??\.)`, 'g');
        for (const u of text.matchAll(use)) {
          const method = chainedMethod(text, u.index + v.length, table.notMethods);
          if (!method) continue;
          found = true;
          call(service, method, address, u.index, channel);
        }
      }
      if (!found) call(service, '*', address, m.index, channel);
    }
  }
  // C#: typed clients injected where nothing in this file constructs them (AddGrpcClient elsewhere).
}

/**
 * `.proto` files: `package`, `service X { rpc M(…) returns (…); }`. They declare names only: the
 * services are served where code registers them, not where a proto is vendored.
 */
export function extractProto(text: string, file: string, sink: Sink): void {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/\/\/[^\n]*/g, '');
  const line = lineAt(code);
  const pkg = /\bpackage\s+([\w.]+)\s*;/.exec(code)?.[1] ?? '';
  for (const m of code.matchAll(/\bservice\s+(\w+)\s*\{/g)) {
    let depth = 0;
    let end = m.index + m[0].length - 1;
    for (; end < code.length; end++) {
      if (code[end] === '{') depth++;
      else if (code[end] === '}' && --depth === 0) break;
    }
    const body = code.slice(m.index, end);
    const methods = [...body.matchAll(/\brpc\s+(\w+)\s*\(/g)].map((r) => ({
      name: r[1]!,
      line: line(m.index + r.index),
    }));
    sink.facts.grpcDecls.push({ package: pkg, service: m[1]!, methods, file });
  }
}
