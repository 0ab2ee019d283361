import type {
  Binding,
  Call,
  ConfigEntry,
  Consume,
  Endpoint,
  ExchangeType,
  Loc,
  Part,
  Publish,
  SourceFacts,
} from './model';
import { HOLE, PARAM, displayTemplate, matchScore, segments } from './routes';

/** A `source path:line` pointer: the evidence every link and finding carries. */
export interface Evidence {
  readonly source: string;
  readonly file: string;
  readonly line: number;
}

export interface ApiLink {
  readonly kind: 'api';
  readonly caller: Evidence;
  readonly calls: string;
  readonly servedBy: Evidence;
  readonly served: string;
  readonly match: string;
}

export interface MessageFlow {
  readonly kind: 'message';
  readonly caller: Evidence;
  readonly calls: string;
  readonly servedBy: Evidence;
  readonly served: string;
  readonly match: string;
}

export type Link = ApiLink | MessageFlow;

export type UnresolvedReason = 'dynamic URL' | 'external host' | 'no matching route' | 'ambiguous';

export interface UnresolvedCall {
  readonly caller: Evidence;
  readonly calls: string;
  readonly reason: UnresolvedReason;
  readonly detail: string;
  /** For ambiguous calls: every endpoint that could serve it. */
  readonly candidates: readonly Evidence[];
}

export interface MessagingGap {
  readonly side: 'publisher' | 'consumer';
  readonly at: Evidence;
  readonly what: string;
  readonly reason: string;
}

export interface UsedBinding {
  readonly broker: 'rabbitmq' | 'kafka';
  readonly exchange: string;
  readonly exchangeType: ExchangeType | 'default' | 'kafka-topic';
  readonly queue: string;
  readonly key: string;
  /** Where the wiring is declared; for a Kafka topic, the first producer. */
  readonly at: Evidence;
}

export interface SharedData {
  readonly store: string;
  readonly touchedBy: readonly Evidence[];
}

export interface LinkResult {
  readonly links: Link[];
  readonly bindings: UsedBinding[];
  readonly unresolved: UnresolvedCall[];
  readonly gaps: MessagingGap[];
  readonly shared: SharedData[];
}

const ev = (source: string, loc: Loc): Evidence => ({ source, file: loc.file, line: loc.line });

export function compareEvidence(a: Evidence, b: Evidence): number {
  return cmp(a.source, b.source) || cmp(a.file, b.file) || a.line - b.line;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Configuration and host names

/** Relaxed key: `Services:Orders`, `services.orders`, `SERVICES__ORDERS`, `SERVICES_ORDERS` are one key. */
export function relaxedKey(key: string): string {
  return key
    .toLowerCase()
    .replace(/-/g, '')
    .replace(/[:._]+/g, '.');
}

interface SourceEnv {
  readonly exact: Map<string, string>;
  readonly relaxed: Map<string, string>;
}

function buildEnv(entries: readonly ConfigEntry[]): SourceEnv {
  const exact = new Map<string, string>();
  const relaxed = new Map<string, string>();
  for (const e of entries) {
    if (!exact.has(e.key)) exact.set(e.key, e.value);
    const r = relaxedKey(e.key);
    if (!relaxed.has(r)) relaxed.set(r, e.value);
  }
  return { exact, relaxed };
}

function lookup(env: SourceEnv, key: string): string | undefined {
  return env.exact.get(key) ?? env.relaxed.get(relaxedKey(key));
}

/** Expands `${NAME}` / `${NAME:default}` (Spring, compose) inside config values, once. */
function expand(env: SourceEnv, value: string): string {
  return value.replace(/\$\{([^}:]+)(?::-?([^}]*))?\}/g, (_m, name: string, def: string | undefined) => {
    const v = lookup(env, name);
    return v ?? def ?? HOLE;
  });
}

function basename(target: string): string {
  // registry:5000/acme/orders:1.2@sha256:… → orders
  const noTag = target.replace(/@sha256:[0-9a-f]*$/i, '').replace(/:[^/:]*$/, '');
  const parts = noTag.split('/').filter((p) => p && p !== '.' && p !== '..');
  return (parts[parts.length - 1] ?? '').toLowerCase();
}

export interface Topology {
  /** Deployment host name → source it resolves to. */
  readonly hosts: Map<string, string>;
  readonly env: Map<string, SourceEnv>;
}

export function topology(sources: readonly SourceFacts[]): Topology {
  const names = new Set(sources.map((s) => s.source.toLowerCase()));
  const byLower = new Map(sources.map((s) => [s.source.toLowerCase(), s.source] as const));
  const hosts = new Map<string, string>();
  for (const s of sources) hosts.set(s.source.toLowerCase(), s.source);
  const extraEnv = new Map<string, ConfigEntry[]>();
  for (const s of sources) {
    for (const svc of s.services) {
      const target =
        svc.targets.map(basename).find((t) => names.has(t)) ??
        (names.has(svc.name.toLowerCase()) ? svc.name.toLowerCase() : undefined);
      if (!target) continue;
      const source = byLower.get(target)!;
      hosts.set(svc.name.toLowerCase(), source);
      const list = extraEnv.get(source) ?? [];
      list.push(...svc.env);
      extraEnv.set(source, list);
    }
  }
  const env = new Map<string, SourceEnv>();
  // A source's own config wins over what a deployment descriptor injects.
  for (const s of sources) env.set(s.source, buildEnv([...s.config, ...(extraEnv.get(s.source) ?? [])]));
  return { hosts, env };
}

function resolveParts(parts: readonly Part[], env: SourceEnv, base?: readonly Part[]): string {
  let out = '';
  for (const p of parts) {
    if ('lit' in p) out += p.lit;
    else if ('env' in p) out += expand(env, lookup(env, p.env) ?? p.fallback ?? HOLE);
    else if ('config' in p) out += expand(env, lookup(env, p.config) ?? p.fallback ?? HOLE);
    else out += HOLE;
  }
  if (base && !/^[a-z]+:\/\//i.test(out)) {
    const b = resolveParts(base, env).replace(/\/+$/, '');
    out = b + '/' + out.replace(/^\/+/, '');
  }
  return out;
}

interface Target {
  readonly host?: string;
  readonly path: string;
}

/** Splits a resolved URL into host and path; undefined when the URL is dynamic. */
export function splitUrl(url: string): Target | undefined {
  const abs = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)(.*)$/i.exec(url);
  if (abs) {
    const authority = abs[1]!.replace(/^.*@/, '');
    const host = authority.replace(/:\d+$/, '').toLowerCase();
    const path = abs[2] ?? '';
    if (host.includes(HOLE)) return path.startsWith('/') ? { path } : undefined;
    return { host, path: path || '/' };
  }
  if (url.startsWith('/')) return { path: url };
  if (url.startsWith(HOLE)) {
    const rest = url.replace(new RegExp(`^${HOLE}+`), '');
    return rest.startsWith('/') && rest.length > 1 ? { path: rest } : undefined;
  }
  if (/^[\w.{}\-\u0000]+(\/|$)/.test(url) && !url.includes(':')) return { path: '/' + url };
  return undefined;
}

function hostSource(host: string, topo: Topology): string | undefined {
  const direct = topo.hosts.get(host);
  if (direct) return direct;
  // Kubernetes DNS: orders.default.svc.cluster.local, orders.default.svc
  const k8s = /^([^.]+)(\.[^.]+)?\.svc(\.cluster\.local)?$/.exec(host);
  if (k8s) return topo.hosts.get(k8s[1]!);
  return undefined;
}

function isExternal(host: string): boolean {
  if (host === 'localhost' || /^(127\.|10\.|192\.168\.|0\.0\.0\.0)/.test(host)) return false;
  return host.includes('.');
}

// ---------------------------------------------------------------------------------------------
// API links

interface Candidate {
  readonly source: string;
  readonly endpoint: Endpoint;
  readonly score: number;
  readonly exact: boolean;
}

const segmentCache = new WeakMap<Endpoint, string[]>();
function templateSegments(ep: Endpoint): string[] {
  let segs = segmentCache.get(ep);
  if (!segs) {
    segs = segments(ep.path);
    segmentCache.set(ep, segs);
  }
  return segs;
}

/** Rule 1 within one source: the endpoint with the most literal segments wins; ties by position. */
function bestIn(source: SourceFacts, method: Call['method'], callSegs: string[]): Candidate | undefined {
  let best: Candidate | undefined;
  for (const ep of source.endpoints) {
    if (ep.method !== 'ANY' && method !== 'ANY' && ep.method !== method) continue;
    const tSegs = templateSegments(ep);
    const score = matchScore(callSegs, tSegs);
    if (score === undefined) continue;
    if (!best || score > best.score) {
      best = { source: source.source, endpoint: ep, score, exact: score === tSegs.length && !callSegs.includes(PARAM) };
    }
  }
  return best;
}

/** A dynamic URL as written: `${name}` for unknown names, `${env:X}` for unset variables. */
function showParts(parts: readonly Part[]): string {
  return parts
    .map((p) =>
      'lit' in p
        ? p.lit
        : 'env' in p
          ? `\${env:${p.env}}`
          : 'config' in p
            ? `\${config:${p.config}}`
            : 'ref' in p
              ? `\${${p.ref}}`
              : '…',
    )
    .join('');
}

function describeCall(method: string, target: Target | undefined, raw: string): string {
  if (!target) return `${method} ${raw.replaceAll(HOLE, '…')}`;
  const path = displayTemplate(segments(target.path));
  return target.host ? `${method} ${target.host}${path}` : `${method} ${path}`;
}

function matchLabel(c: Candidate, via: string | undefined): string {
  const kind = c.exact ? 'exact path' : 'route template';
  return via ? `${via} + ${kind}` : kind;
}

function linkCalls(sources: readonly SourceFacts[], topo: Topology, out: LinkResult): void {
  const bySource = new Map(sources.map((s) => [s.source, s] as const));
  for (const src of sources) {
    const env = topo.env.get(src.source)!;
    for (const call of src.calls) {
      const base =
        call.clientClass && Object.prototype.hasOwnProperty.call(src.clientBases, call.clientClass)
          ? src.clientBases[call.clientClass]
          : undefined;
      const raw = resolveParts(call.url, env, base);
      const target = splitUrl(raw);
      const calls = describeCall(call.method, target, raw);
      const caller = ev(src.source, call.loc);
      const unresolved = (reason: UnresolvedReason, detail: string, candidates: Evidence[] = []): void => {
        out.unresolved.push({ caller, calls, reason, detail, candidates });
      };
      if (!target) {
        out.unresolved.push({
          caller,
          calls: `${call.method} ${showParts(call.url)}`,
          reason: 'dynamic URL',
          detail: 'the URL is only known at run time',
          candidates: [],
        });
        continue;
      }
      const callSegs = segments(target.path);
      let restrictTo: string | undefined;
      let via: string | undefined;
      if (target.host) {
        const hs = hostSource(target.host, topo);
        if (hs) {
          restrictTo = hs;
          via = `host \`${target.host}\``;
        } else if (isExternal(target.host)) {
          unresolved('external host', `\`${target.host}\` is not a service of this application`);
          continue;
        }
      }
      if (!restrictTo && call.serviceName) {
        const hs = hostSource(call.serviceName.toLowerCase(), topo);
        if (hs) {
          restrictTo = hs;
          via = `client \`${call.serviceName}\``;
        }
      }
      if (restrictTo) {
        if (restrictTo === src.source) continue; // calls itself: not a cross-repository link
        const c = bestIn(bySource.get(restrictTo)!, call.method, callSegs);
        if (!c) {
          unresolved(
            'no matching route',
            `\`${restrictTo}\` serves no ${call.method === 'ANY' ? '' : call.method + ' '}${displayTemplate(callSegs)}`,
          );
          continue;
        }
        out.links.push(apiLink(caller, calls, c, via));
        continue;
      }
      // Prefer the caller's own endpoints: a call into itself is internal, not a link.
      if (bestIn(src, call.method, callSegs)) continue;
      const candidates = sources
        .filter((s) => s.source !== src.source)
        .map((s) => bestIn(s, call.method, callSegs))
        .filter((c): c is Candidate => c !== undefined);
      if (candidates.length === 0) {
        unresolved('no matching route', 'no attached repository serves it');
      } else if (candidates.length === 1) {
        out.links.push(apiLink(caller, calls, candidates[0]!, undefined));
      } else {
        const evs = candidates.map((c) => ev(c.source, c.endpoint.loc)).sort(compareEvidence);
        unresolved(
          'ambiguous',
          `served by ${candidates
            .map((c) => `\`${c.source}\``)
            .sort()
            .join(' and ')}, nothing tells them apart`,
          evs,
        );
      }
    }
  }
}

function apiLink(caller: Evidence, calls: string, c: Candidate, via: string | undefined): ApiLink {
  return {
    kind: 'api',
    caller,
    calls,
    servedBy: ev(c.source, c.endpoint.loc),
    served: `${c.endpoint.method} ${c.endpoint.path} (${c.endpoint.framework})`,
    match: matchLabel(c, via),
  };
}

// ---------------------------------------------------------------------------------------------
// Message flows (rule 4)

export function describeBinding(b: UsedBinding): string {
  if (b.broker === 'kafka') return `Kafka topic \`${b.queue}\``;
  if (b.exchangeType === 'default') return `default exchange → queue \`${b.queue}\``;
  if (b.exchangeType === 'fanout' || b.exchangeType === 'headers')
    return `${b.exchangeType} exchange \`${b.exchange}\` → queue \`${b.queue}\``;
  return `${b.exchangeType} exchange \`${b.exchange}\` —\`${b.key}\`→ queue \`${b.queue}\``;
}

/** AMQP topic matching: `*` is one word, `#` zero or more. */
export function topicMatches(pattern: string, key: string): boolean {
  const p = pattern.split('.');
  const k = key.split('.');
  const go = (i: number, j: number): boolean => {
    if (i === p.length) return j === k.length;
    if (p[i] === '#') return go(i + 1, j) || (j < k.length && go(i, j + 1));
    if (j === k.length) return false;
    return (p[i] === '*' || p[i] === k[j]) && go(i + 1, j + 1);
  };
  return go(0, 0);
}

interface Routed {
  readonly queue: string;
  readonly binding: UsedBinding;
}

function linkMessages(sources: readonly SourceFacts[], out: LinkResult): void {
  const exchangeTypes = new Map<string, ExchangeType>();
  const bindings: { b: Binding; source: string }[] = [];
  const declaredQueues = new Map<string, Evidence>();
  for (const s of sources) {
    for (const x of s.exchanges) if (!exchangeTypes.has(x.name)) exchangeTypes.set(x.name, x.type);
    for (const b of s.bindings) bindings.push({ b, source: s.source });
    for (const q of s.queues) {
      const e = ev(s.source, q.loc);
      const prev = declaredQueues.get(q.name);
      if (!prev || compareEvidence(e, prev) < 0) declaredQueues.set(q.name, e);
    }
  }
  bindings.sort((x, y) => compareEvidence(ev(x.source, x.b.loc), ev(y.source, y.b.loc)));
  const anyRabbitConfig = bindings.length > 0 || declaredQueues.size > 0;

  const consumers: { c: Consume; source: string }[] = [];
  const publishers: { p: Publish; source: string }[] = [];
  for (const s of sources) {
    for (const c of s.consumes) consumers.push({ c, source: s.source });
    for (const p of s.publishes) publishers.push({ p, source: s.source });
  }

  const route = (p: Publish): Routed[] => {
    if (p.broker === 'kafka') return [];
    const routed: Routed[] = [];
    if (p.exchange === '') {
      const at = declaredQueues.get(p.key);
      if (at)
        routed.push({
          queue: p.key,
          binding: { broker: 'rabbitmq', exchange: '', exchangeType: 'default', queue: p.key, key: p.key, at },
        });
      return routed;
    }
    const type = exchangeTypes.get(p.exchange) ?? 'direct';
    for (const { b, source } of bindings) {
      if (b.exchange !== p.exchange) continue;
      const hit =
        type === 'fanout' || type === 'headers'
          ? true
          : type === 'topic'
            ? topicMatches(b.key, p.key)
            : b.key === p.key;
      if (hit)
        routed.push({
          queue: b.queue,
          binding: {
            broker: 'rabbitmq',
            exchange: b.exchange,
            exchangeType: type,
            queue: b.queue,
            key: b.key,
            at: ev(source, b.loc),
          },
        });
    }
    return routed;
  };

  const fedConsumers = new Set<Consume>();
  const usedBindings = new Map<string, UsedBinding>();
  for (const { p, source } of publishers) {
    const at = ev(source, p.loc);
    const what =
      p.broker === 'kafka'
        ? `produce Kafka topic \`${p.key}\``
        : p.exchange === ''
          ? `publish to queue \`${p.key}\` (default exchange)`
          : p.key === ''
            ? `publish \`${p.exchange}\``
            : `publish \`${p.exchange}\` / \`${p.key}\``;
    let reached = 0;
    const reasons: string[] = [];
    if (p.broker === 'kafka') {
      for (const { c, source: cs } of consumers) {
        if (c.broker !== 'kafka' || c.queue !== p.key) continue;
        reached++;
        fedConsumers.add(c);
        if (cs === source) continue;
        const binding: UsedBinding = {
          broker: 'kafka',
          exchange: '',
          exchangeType: 'kafka-topic',
          queue: p.key,
          key: p.key,
          at,
        };
        const bk = `kafka|${p.key}`;
        if (!usedBindings.has(bk)) usedBindings.set(bk, binding);
        out.links.push({
          kind: 'message',
          caller: at,
          calls: what,
          servedBy: ev(cs, c.loc),
          served: `consume Kafka topic \`${c.queue}\``,
          match: `Kafka topic \`${p.key}\` (its own binding)`,
        });
      }
      if (reached === 0) reasons.push(`no consumer of Kafka topic \`${p.key}\``);
    } else {
      const routed = route(p);
      if (!anyRabbitConfig) reasons.push('no binding configuration in any attached repository');
      else if (routed.length === 0)
        reasons.push(
          p.exchange === ''
            ? `queue \`${p.key}\` is declared nowhere`
            : `no binding routes \`${p.exchange}\` / \`${p.key}\` to a queue`,
        );
      for (const r of routed) {
        let queueReached = 0;
        for (const { c, source: cs } of consumers) {
          if (c.broker !== 'rabbitmq' || c.queue !== r.queue) continue;
          reached++;
          queueReached++;
          fedConsumers.add(c);
          if (cs === source) continue;
          const bk = `rabbitmq|${r.binding.exchange}|${r.queue}|${r.binding.key}`;
          if (!usedBindings.has(bk)) usedBindings.set(bk, r.binding);
          const via = describeBinding(r.binding);
          out.links.push({
            kind: 'message',
            caller: at,
            calls: what,
            servedBy: ev(cs, c.loc),
            served: `consume queue \`${c.queue}\``,
            match: `binding: ${via}`,
          });
        }
        if (queueReached === 0) reasons.push(`queue \`${r.queue}\` has no consumer`);
      }
    }
    if (reached === 0) out.gaps.push({ side: 'publisher', at, what, reason: reasons.join('; ') });
  }

  for (const { c, source } of consumers) {
    if (fedConsumers.has(c)) continue;
    const at = ev(source, c.loc);
    const what = c.broker === 'kafka' ? `consume Kafka topic \`${c.queue}\`` : `consume queue \`${c.queue}\``;
    let reason: string;
    if (c.broker === 'kafka') reason = `no producer for Kafka topic \`${c.queue}\``;
    else if (!anyRabbitConfig) reason = 'no binding configuration in any attached repository';
    else if (!declaredQueues.has(c.queue) && !bindings.some(({ b }) => b.queue === c.queue))
      reason = `queue \`${c.queue}\` is bound to no exchange`;
    else reason = `no publisher routes to queue \`${c.queue}\``;
    out.gaps.push({ side: 'consumer', at, what, reason });
  }
  out.bindings.push(...usedBindings.values());
}

// ---------------------------------------------------------------------------------------------
// Shared data

function linkData(sources: readonly SourceFacts[], out: LinkResult): void {
  const stores = new Map<string, Map<string, Evidence>>();
  for (const s of sources) {
    for (const d of s.data) {
      const key = `${d.kind} \`${d.name.toLowerCase()}\``;
      const bySource = stores.get(key) ?? new Map<string, Evidence>();
      const e = ev(s.source, d.loc);
      const prev = bySource.get(s.source);
      if (!prev || compareEvidence(e, prev) < 0) bySource.set(s.source, e);
      stores.set(key, bySource);
    }
  }
  for (const [store, bySource] of stores) {
    if (bySource.size < 2) continue;
    out.shared.push({ store, touchedBy: [...bySource.values()].sort(compareEvidence) });
  }
}

// ---------------------------------------------------------------------------------------------

export function link(sources: readonly SourceFacts[]): LinkResult {
  const sorted = [...sources].sort((a, b) => cmp(a.source, b.source));
  const out: LinkResult = { links: [], bindings: [], unresolved: [], gaps: [], shared: [] };
  const topo = topology(sorted);
  linkCalls(sorted, topo, out);
  linkMessages(sorted, out);
  linkData(sorted, out);
  out.links.sort(
    (a, b) =>
      (a.kind === b.kind ? 0 : a.kind === 'api' ? -1 : 1) ||
      compareEvidence(a.caller, b.caller) ||
      compareEvidence(a.servedBy, b.servedBy) ||
      cmp(a.calls, b.calls),
  );
  out.unresolved.sort((a, b) => compareEvidence(a.caller, b.caller) || cmp(a.calls, b.calls));
  out.gaps.sort((a, b) => compareEvidence(a.at, b.at) || cmp(a.what, b.what));
  out.shared.sort((a, b) => cmp(a.store, b.store));
  out.bindings.sort(
    (a, b) => cmp(a.broker, b.broker) || cmp(a.exchange, b.exchange) || cmp(a.queue, b.queue) || cmp(a.key, b.key),
  );
  return out;
}
