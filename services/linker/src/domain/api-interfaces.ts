import {
  type ApiInterface,
  type Call,
  type Endpoint,
  type GoBrokerUse,
  type GoRef,
  type GrpcDecl,
  type SourceFacts,
  OPENAPI_CONTRACT,
} from './model';
import { joinPath } from './routes';
import { placeholder } from './extract/java';
import { concat, exchangeType } from './extract/common';

/**
 * Endpoints and calls each of these instantiates per link at most (review 23): every use of a shared
 * interface copies all its routes, every configuring call all its package's broker uses, so N of each (two
 * files of a few hundred KB of untrusted source) made N² (3,000 of each: 9 million endpoints, 72 s and 1.5 GB
 * at link time; more exhausts the linker process). Past it the rest are not instantiated.
 */
export const MAX_APPLIED = 20_000;

/**
 * Route-annotated interfaces shared between services (a `pricing-service-api` module with
 * `interface PricingOperations { @Post("/calculate") … }`): a controller of any source implementing one
 * serves its routes under the controller's prefix, a declarative client extending one calls them under
 * the client's path. Methods the class annotates itself were already read with the class.
 */
export function applyApiInterfaces(sources: readonly SourceFacts[]): SourceFacts[] {
  const byName = new Map<string, ApiInterface[]>();
  for (const s of sources)
    for (const i of s.apiInterfaces ?? []) {
      const list = byName.get(i.name);
      if (list) list.push(i);
      else byName.set(i.name, [i]);
    }
  if (byName.size === 0) return [...sources];
  let budget = MAX_APPLIED;
  return sources.map((s) => {
    if (!s.apiInterfaceUses?.length) return s;
    const endpoints: Endpoint[] = [];
    const calls: Call[] = [];
    for (const use of s.apiInterfaceUses) {
      if (use.framework === OPENAPI_CONTRACT) {
        // A class implementing an interface generated from this source's OpenAPI document at build time:
        // each implemented method named by an operationId serves that operation's route.
        for (const c of (s.apiInterfaces ?? []).filter((i) => i.name === OPENAPI_CONTRACT))
          for (const op of c.ops) {
            const line = use.methods[op.name];
            if (line === undefined || budget-- <= 0) continue;
            endpoints.push({
              method: op.method,
              path: op.path,
              framework: 'openapi',
              loc: { file: use.loc.file, line },
            });
          }
        continue;
      }
      const found = byName.get(use.iface) ?? [];
      // One interface of that name; or, among several, the one of this source.
      const own = (s.apiInterfaces ?? []).find((i) => i.name === use.iface);
      const iface = found.length === 1 ? found[0] : own;
      if (!iface) continue;
      const annotated = new Set(use.annotated);
      for (const op of iface.ops) {
        if (annotated.has(op.name)) continue;
        if (budget-- <= 0) break;
        const line = use.methods[op.name] ?? use.loc.line;
        const loc = { file: use.loc.file, line };
        if (use.kind === 'server')
          endpoints.push({ method: op.method, path: joinPath(use.prefix, op.path), framework: use.framework, loc });
        else {
          const path = placeholder(joinPath(use.prefix, op.path));
          calls.push({
            method: op.method,
            url: use.base ? concat(use.base, path) : path,
            client: use.framework,
            loc,
            ...(use.serviceName ? { serviceName: use.serviceName } : {}),
          });
        }
      }
    }
    return endpoints.length || calls.length
      ? { ...s, endpoints: [...s.endpoints, ...endpoints], calls: [...s.calls, ...calls] }
      : s;
  });
}

/**
 * grpc-gateway: a source registering `RegisterXHandlerFromEndpoint` serves, over HTTP, the routes the
 * proto's `google.api.http` options give X's methods (the proto may be in another source).
 */
export function applyGatewayRoutes(sources: readonly SourceFacts[]): SourceFacts[] {
  if (!sources.some((s) => s.grpcCalls?.some((c) => c.gateway))) return [...sources];
  const decls = new Map<string, GrpcDecl[]>();
  for (const d of sources.flatMap((s) => s.grpcDecls ?? [])) {
    const list = decls.get(d.service);
    if (list) list.push(d);
    else decls.set(d.service, [d]);
  }
  let budget = MAX_APPLIED;
  return sources.map((s) => {
    const endpoints: Endpoint[] = [];
    for (const call of s.grpcCalls ?? []) {
      if (!call.gateway) continue;
      const simple = call.service.slice(call.service.lastIndexOf('.') + 1);
      const seen = new Set<string>();
      for (const d of decls.get(simple) ?? [])
        for (const m of d.methods)
          for (const h of m.http ?? []) {
            const key = `${h.method} ${h.path}`;
            if (seen.has(key) || budget <= 0) continue;
            budget -= 1;
            seen.add(key);
            endpoints.push({ method: h.method, path: h.path, framework: 'grpc-gateway', loc: call.loc });
          }
    }
    return endpoints.length ? { ...s, endpoints: [...s.endpoints, ...endpoints] } : s;
  });
}

/**
 * Go functional options configuring a messaging package's instance (`go-options.ts`): each configuring call
 * gets the package's amqp091 uses with the fields it sets, as the broker sees them, at that call; the
 * package's own uses (names unknown there) are then no longer reported.
 */
export function applyGoOptions(sources: readonly SourceFacts[]): SourceFacts[] {
  if (!sources.some((s) => s.goOptionSites?.length)) return [...sources];
  const fieldOf = new Map<string, string>();
  for (const s of sources) for (const o of s.goOptions ?? []) fieldOf.set(`${o.pkg}.${o.name}`, o.field);
  const uses = new Map<string, { u: GoBrokerUse; source: string }[]>();
  for (const s of sources)
    for (const u of s.goBrokerUses ?? []) {
      const list = uses.get(u.pkg);
      if (list) list.push({ u, source: s.source });
      else uses.set(u.pkg, [{ u, source: s.source }]);
    }
  const consumed = new Set<string>();
  let budget = MAX_APPLIED;
  const out = sources.map((s) => {
    const add = {
      publishes: [...s.publishes],
      consumes: [...s.consumes],
      bindings: [...s.bindings],
      exchanges: [...s.exchanges],
    };
    let changed = false;
    for (const site of s.goOptionSites ?? []) {
      const fields = new Map<string, string>();
      for (const v of site.values) {
        const f = fieldOf.get(`${site.pkg}.${v.name}`);
        if (f) fields.set(f, v.value);
      }
      if (!fields.size) continue;
      const value = (r: GoRef | undefined): string | undefined =>
        r === undefined ? undefined : 'lit' in r ? r.lit : fields.get(r.field);
      for (const { u, source } of uses.get(site.pkg) ?? []) {
        if (budget <= 0) break;
        const exchange = value(u.exchange);
        const key = value(u.key);
        const queue = value(u.queue);
        const loc = site.loc;
        if (u.kind === 'publish' && exchange !== undefined && key !== undefined)
          add.publishes.push({ broker: 'rabbitmq', exchange, key, loc });
        else if (u.kind === 'consume' && queue !== undefined) add.consumes.push({ broker: 'rabbitmq', queue, loc });
        else if (u.kind === 'bind' && exchange !== undefined && key !== undefined && queue !== undefined)
          add.bindings.push({ exchange, queue, key, loc });
        else if (u.kind === 'exchange' && exchange !== undefined)
          add.exchanges.push({ name: exchange, type: exchangeType(u.type ?? '') ?? 'direct', loc });
        else continue;
        budget -= 1;
        changed = true;
        consumed.add(`${source}|${u.loc.file}|${u.loc.line}`);
      }
    }
    return changed ? { ...s, ...add } : s;
  });
  if (!consumed.size) return out;
  // The package's own uses, now instantiated where it is configured.
  const kept = <T extends { loc: { file: string; line: number } }>(source: string, list: readonly T[]): T[] =>
    list.filter((x) => !consumed.has(`${source}|${x.loc.file}|${x.loc.line}`));
  return out.map((s) => ({
    ...s,
    publishes: kept(s.source, s.publishes),
    consumes: kept(s.source, s.consumes),
    bindings: kept(s.source, s.bindings),
    exchanges: kept(s.source, s.exchanges),
    queues: kept(s.source, s.queues),
  }));
}
