import type { ApiInterface, Call, Endpoint, GrpcDecl, SourceFacts } from './model';
import { joinPath } from './routes';
import { placeholder } from './extract/java';
import { concat } from './extract/common';

/**
 * Route-annotated interfaces shared between services (a `pricing-service-api` module with
 * `interface PricingOperations { @Post("/calculate") … }`): a controller of any source implementing one
 * serves its routes under the controller's prefix, a declarative client extending one calls them under
 * the client's path. Methods the class annotates itself were already read with the class.
 */
export function applyApiInterfaces(sources: readonly SourceFacts[]): SourceFacts[] {
  const byName = new Map<string, ApiInterface[]>();
  for (const s of sources)
    for (const i of s.apiInterfaces ?? []) byName.set(i.name, [...(byName.get(i.name) ?? []), i]);
  if (byName.size === 0) return [...sources];
  return sources.map((s) => {
    if (!s.apiInterfaceUses?.length) return s;
    const endpoints: Endpoint[] = [];
    const calls: Call[] = [];
    for (const use of s.apiInterfaceUses) {
      const found = byName.get(use.iface) ?? [];
      // One interface of that name; or, among several, the one of this source.
      const own = (s.apiInterfaces ?? []).find((i) => i.name === use.iface);
      const iface = found.length === 1 ? found[0] : own;
      if (!iface) continue;
      for (const op of iface.ops) {
        if (use.annotated.includes(op.name)) continue;
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
  const decls: GrpcDecl[] = sources.flatMap((s) => s.grpcDecls ?? []);
  return sources.map((s) => {
    const endpoints: Endpoint[] = [];
    for (const call of s.grpcCalls ?? []) {
      if (!call.gateway) continue;
      const simple = call.service.slice(call.service.lastIndexOf('.') + 1);
      const seen = new Set<string>();
      for (const d of decls)
        if (d.service === simple)
          for (const m of d.methods)
            for (const h of m.http ?? []) {
              const key = `${h.method} ${h.path}`;
              if (seen.has(key)) continue;
              seen.add(key);
              endpoints.push({ method: h.method, path: h.path, framework: 'grpc-gateway', loc: call.loc });
            }
    }
    return endpoints.length ? { ...s, endpoints: [...s.endpoints, ...endpoints] } : s;
  });
}
