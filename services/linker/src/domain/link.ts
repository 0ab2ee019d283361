import { applyApiInterfaces, applyGatewayRoutes, applyGoOptions } from './api-interfaces';
import { applyDeclaredClients } from './declared-clients';
import { applyJsMessaging } from './js-flows';
import { applyGoMounts, applyGoPackages } from './go-packages';
import { instantiateOutboxes } from './outbox';
import { addressExchange, instantiateBusSites } from './bus';
import { instantiateObjects } from './objects';
import { applyChannelConstants } from './extract/eventuate';
import type {
  Binding,
  Broker,
  Call,
  ConfigEntry,
  Consume,
  Endpoint,
  ExchangeType,
  GrpcCall,
  GrpcDecl,
  Loc,
  Part,
  Publish,
  ServiceDecl,
  SourceFacts,
  StoreKind,
} from './model';
import { filePath } from './extract/config';
import { SERVER_NAMED_QUEUE } from './extract/common';
import { LARAVEL_CONNECTION, LARAVEL_DEFAULT_CONNECTION } from './extract/laravel';
import { ACTIVE_JOB_ADAPTER } from './extract/active-job';
import {
  CELERY_DEFAULT_QUEUE,
  CELERY_ROUTE,
  channelName,
  globMatches,
  mqttMatches,
  starGlobMatches,
  subjectMatches,
} from './extract/channels';
import {
  CATCH_ALL,
  HOLE,
  INT_PARAM,
  PARAM,
  RouteIndex,
  displayTemplate,
  joinPath,
  matchScore,
  normaliseSegment,
  segments,
} from './routes';

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
  /** The service map's edge label: the served method and path (`GET /api/orders/{id}`, `gRPC Svc/Method`). */
  readonly edge: string;
}

export interface MessageFlow {
  readonly kind: 'message';
  readonly caller: Evidence;
  readonly calls: string;
  readonly servedBy: Evidence;
  readonly served: string;
  readonly match: string;
  /** The service map's edge label: the binding as the broker sees it (`orders / order.* → billing.orders`). */
  readonly edge: string;
}

export type Link = ApiLink | MessageFlow;

export type UnresolvedReason = 'dynamic URL' | 'external host' | 'infrastructure' | 'no matching route' | 'ambiguous';

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
  readonly broker: Broker;
  readonly exchange: string;
  /** `channel`: a name that is its own binding (every broker but RabbitMQ and Kafka). */
  readonly exchangeType: ExchangeType | 'default' | 'kafka-topic' | 'channel';
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
    .replace(/[-"]/g, '')
    .replace(/[:._]+/g, '.');
}

interface SourceEnv {
  readonly relaxed: Map<string, string>;
  /** Keys without any separator: Quarkus/MicroProfile environment names (`QUARKUS_REST_CLIENT_X_URL`) turn `-` into `_`. */
  readonly flat: Map<string, string>;
  /** Every entry in priority order, with the source that holds it (evidence of config-derived verdicts). */
  readonly entries: readonly SourcedEntry[];
}

interface SourcedEntry {
  readonly entry: ConfigEntry;
  readonly source: string;
}

function buildEnv(entries: readonly SourcedEntry[]): SourceEnv {
  const relaxed = new Map<string, string>();
  const flat = new Map<string, string>();
  for (const { entry: e } of entries) {
    const r = relaxedKey(e.key);
    if (!relaxed.has(r)) relaxed.set(r, e.value);
    const f = r.replace(/\./g, '');
    if (!flat.has(f)) flat.set(f, e.value);
  }
  return { relaxed, flat, entries };
}

function lookup(env: SourceEnv, key: string): string | undefined {
  // Relaxed first: `ApiSettings__GatewayAddress` a deployment injects overrides the file's
  // `ApiSettings:GatewayAddress` (the entries are in priority order; spellings of one key are one key).
  const r = relaxedKey(key);
  // Quarkus keys are dashed (`quarkus.stork.hero-service.…`): an environment name written for one
  // (`QUARKUS_STORK_HERO_SERVICE_…`) is only the same key without separators; it wins like any deployed entry.
  if (/[-"]/.test(key)) return env.flat.get(r.replace(/\./g, '')) ?? env.relaxed.get(r);
  return env.relaxed.get(r);
}

/**
 * SmallRye Stork: `stork://<name>/p` is the service `<name>` found by `quarkus.stork.<name>.service-discovery`:
 * its static `address-list` (first address), or the Kubernetes `application` it names, else the name itself.
 */
function storkUrl(env: SourceEnv, url: string): string {
  const m = /^stork:\/\/([^/]+)(.*)$/.exec(url);
  if (!m) return url;
  const discovery = `quarkus.stork.${m[1]}.service-discovery`;
  const list = lookup(env, `${discovery}.address-list`);
  const app = lookup(env, `${discovery}.application`);
  const host = list ? expand(env, list).split(',')[0]!.trim() : app ? expand(env, app) : m[1]!;
  return `http://${host}${m[2]}`;
}

/**
 * Expands `${NAME}` / `${NAME:default}` (Spring, compose) inside config values, nested ones too; a
 * placeholder that refers back to itself (`rates.url: ${RATES_URL:…}`, one key under relaxed binding)
 * takes its default.
 */
function expand(env: SourceEnv, value: string, seen: ReadonlySet<string> = new Set(), depth = 0): string {
  return value.replace(/\$\{([^}:]+)(?::-?([^}]*))?\}/g, (_m, name: string, def: string | undefined) => {
    const key = relaxedKey(name);
    const v = seen.has(key) || depth > 4 ? undefined : lookup(env, name);
    if (v === undefined) return def ?? HOLE;
    return v.includes('${') ? expand(env, v, new Set([...seen, key]), depth + 1) : v;
  });
}

function basename(target: string): string {
  // registry:5000/acme/orders:1.2@sha256:… → orders
  const noTag = target.replace(/@sha256:[0-9a-f]*$/i, '').replace(/:[^/:]*$/, '');
  const parts = noTag.split('/').filter((p) => p && p !== '.' && p !== '..');
  return (parts[parts.length - 1] ?? '').toLowerCase();
}

/** Spring keys whose value prefixes every route of the service (servlet context path, WebFlux base path). */
export const SPRING_BASE_KEYS = new Set([
  'server.servlet.contextpath',
  'server.contextpath',
  'spring.webflux.basepath',
  'spring.mvc.servlet.path',
]);

/** Whether a key sets a Spring base path; `SERVER_SERVLET_CONTEXT_PATH` (environment form) included. */
export function isSpringBaseKey(key: string): boolean {
  const dotless = relaxedKey(key).replace(/\./g, '');
  for (const k of SPRING_BASE_KEYS) if (k.replace(/\./g, '') === dotless) return true;
  return false;
}

/** A reverse-proxy route of a gateway (Spring Cloud Gateway, Zuul) read from configuration. */
export interface ProxyRoute {
  /** Ant pattern segments (`**`, `*` kept; parameters normalised). */
  readonly pattern: readonly string[];
  readonly patternText: string;
  /** Leading segments removed before forwarding (`StripPrefix=2`, Zuul `stripPrefix`). */
  readonly strip: number;
  /** Segments put in front of the forwarded path (`PrefixPath=/x`). */
  readonly prefix: readonly string[];
  /** Where it forwards: a host name (`lb://orders`, Zuul `serviceId`) or a URL. */
  readonly target: string;
  readonly at: Evidence;
}

export interface Topology {
  /** Deployment host name → source it resolves to. */
  readonly hosts: Map<string, string>;
  readonly env: Map<string, SourceEnv>;
  /** The environment of each deployed instance of a source deployed more than once. */
  readonly instances: Map<string, SourceEnv[]>;
  /** Reverse-proxy routes by the source (the gateway) that serves them. */
  readonly proxies: Map<string, ProxyRoute[]>;
  /**
   * Reverse-proxy routes by the deployment host whose container mounts their file (compose `volumes:`): a call
   * to that host goes through its own configuration only, not every proxy file of the gateway's source.
   */
  readonly hostProxies: Map<string, ProxyRoute[]>;
  /** Context paths a source gets only from another repository's configuration (config server). */
  readonly basePaths: Map<string, string>;
  /** ASP.NET `UsePathBase` values of the deployment: the source's routes are served under them too. */
  readonly pathBases: Map<string, string>;
  /** Sources some attached compose service or workload runs. */
  readonly deployed: ReadonlySet<string>;
  /**
   * The port each source listens on (`server.port`, `PORT`, ASP.NET listen addresses) or a compose service running it
   * is published on (`"8080:80"`), when no other source has it: what names a service behind a machine address
   * (`http://192.168.99.100:9999`, `localhost:8181`).
   */
  readonly ports: ReadonlyMap<string, string>;
}

const dirOf = (file: string): string => file.slice(0, Math.max(0, file.lastIndexOf('/')));
/** `${name:default}` → default, as far as a name is concerned. */
const placeholderDefault = (v: string): string =>
  v.replace(/\$\{[^}:]+(?::-?([^}]*))?\}/g, (_m, def: string | undefined) => def ?? '');

/**
 * Settings naming the service in a registry, by relaxed key: Spring's application name (Eureka, Consul), Spring
 * Cloud Consul's `service-name`, Steeltoe's `Consul:Discovery:ServiceName` and `Eureka:Instance:AppName`.
 */
const REGISTERED_NAME_KEYS: ReadonlySet<string> = new Set([
  'spring.application.name',
  'spring.cloud.consul.discovery.servicename',
  'consul.discovery.servicename',
  'eureka.instance.appname',
]);

export function topology(sources: readonly SourceFacts[]): Topology {
  const names = new Set(sources.map((s) => s.source.toLowerCase()));
  const byLower = new Map(sources.map((s) => [s.source.toLowerCase(), s.source] as const));
  const hosts = new Map<string, string>();
  for (const s of sources) hosts.set(s.source.toLowerCase(), s.source);
  // The name a service registers under (Eureka, Consul, Feign, `lb://`, Steeltoe discovery) is one of its host names.
  for (const s of sources)
    for (const c of s.config) {
      if (c.scope || !REGISTERED_NAME_KEYS.has(relaxedKey(c.key))) continue;
      const name = placeholderDefault(c.value).trim().toLowerCase();
      if (name && !hosts.has(name)) hosts.set(name, s.source);
    }
  const extraEnv = new Map<string, SourcedEntry[]>();
  const deployedSources = new Set<string>();
  /** Each deployed instance's own environment (compose service, workload), by the source it runs. */
  const instanceEnv = new Map<string, Map<string, SourcedEntry[]>>();
  /** Host ports a compose service running the source is published on (`"8080:80"`): `localhost:8080` reaches it. */
  const published = new Map<string, Set<string>>();
  for (const s of sources) {
    const deployed = deploymentEnv(s);
    for (const { svc, env } of deployed) {
      const target =
        svc.targets.map(basename).find((t) => names.has(t)) ??
        (names.has(svc.name.toLowerCase()) ? svc.name.toLowerCase() : undefined);
      if (!target) continue;
      const source = byBuildDir(svc, target, sources) ?? byLower.get(target)!;
      deployedSources.add(source);
      for (const port of svc.published ?? []) published.set(source, new Set([...(published.get(source) ?? []), port]));
      if (!svc.noHost) hosts.set(svc.name.toLowerCase(), source);
      const sourced = env.map((entry) => ({ entry, source: s.source }));
      const list = extraEnv.get(source) ?? [];
      list.push(...sourced);
      extraEnv.set(source, list);
      const byInstance = instanceEnv.get(source) ?? new Map<string, SourcedEntry[]>();
      const key = `${s.source}|${svc.name.toLowerCase()}`;
      byInstance.set(key, [...(byInstance.get(key) ?? []), ...sourced]);
      instanceEnv.set(source, byInstance);
    }
  }
  // Configuration one repository holds for others (a Spring Cloud Config repository): `orders.yml`
  // applies to the source that goes by `orders`; `application.yml` next to such files applies to all.
  const scoped = new Map<string, SourcedEntry[]>();
  const shared: SourcedEntry[] = [];
  for (const s of sources) {
    const configDirs = new Set<string>();
    for (const c of s.config) {
      if (!c.scope) continue;
      const owner = hosts.get(c.scope);
      if (!owner || owner === s.source) continue;
      configDirs.add(dirOf(c.loc.file));
      const list = scoped.get(owner) ?? [];
      list.push({ entry: c, source: s.source });
      scoped.set(owner, list);
    }
    if (configDirs.size === 0) continue;
    for (const c of s.config)
      if (!c.scope && configDirs.has(dirOf(c.loc.file)) && /^application[.-]/i.test(c.loc.file.split('/').pop()!))
        shared.push({ entry: c, source: s.source });
  }
  const env = new Map<string, SourceEnv>();
  const instances = new Map<string, SourceEnv[]>();
  const basePaths = new Map<string, string>();
  const pathBases = new Map<string, string>();
  const proxies = new Map<string, ProxyRoute[]>();
  const portOwners = new Map<string, string[]>();
  for (const s of sources) {
    // One repository deployed twice (two compose services or workloads of one image with other env): each
    // instance's values are its own, evaluated apart (the merged environment keeps the first of each key).
    const ownConfig = s.config.filter(
      (c) => !c.scope && !c.bundle?.startsWith('secret/') && !c.bundle?.startsWith('configfile/'),
    );
    const deployedAs = [...(instanceEnv.get(s.source)?.values() ?? [])];
    if (deployedAs.length > 1)
      instances.set(
        s.source,
        deployedAs.map((instance) => {
          const own = overlaysOrdered(ownConfig, instance).map((entry) => ({ entry, source: s.source }));
          return buildEnv([
            ...(scoped.get(s.source) ?? []),
            ...shared.filter((x) => x.source !== s.source),
            ...instance,
            ...own,
          ]);
        }),
      );
    const own = overlaysOrdered(ownConfig, extraEnv.get(s.source) ?? []).map((entry) => ({ entry, source: s.source }));
    // A config server's values override the service's own files (Spring Cloud Config); the environment a
    // deployment descriptor injects overrides the files the program reads (`appsettings.json`,
    // `application.yml`, Dockerfile `ENV`), as ASP.NET Core and Spring Boot order their sources.
    const e = buildEnv([
      ...(scoped.get(s.source) ?? []),
      ...shared.filter((x) => x.source !== s.source),
      ...(extraEnv.get(s.source) ?? []),
      ...own,
    ]);
    env.set(s.source, e);
    // The name it registers under in a service registry (Kratos on Consul): `discovery:///<name>` reaches it.
    for (const parts of s.registryNames ?? []) {
      const name = resolveParts(parts, e).trim().toLowerCase();
      if (name && !name.includes(HOLE) && !hosts.has(name)) hosts.set(name, s.source);
    }
    if (!own.some((x) => isSpringBaseKey(x.entry.key))) {
      const base = e.entries.find((x) => isSpringBaseKey(x.entry.key));
      if (base && !expand(e, base.entry.value).includes(HOLE)) basePaths.set(s.source, expand(e, base.entry.value));
    }
    for (const key of s.pathBaseKeys ?? []) {
      const v = lookup(e, key);
      const x = v === undefined ? undefined : expand(e, v);
      if (x && x.startsWith('/') && x !== '/' && !x.includes(HOLE)) pathBases.set(s.source, x);
    }
    const routes = [...proxyRoutes(e), ...yarpRoutes(e), ...ocelotRoutes(e)];
    if (routes.length) proxies.set(s.source, routes);
    for (const port of new Set([...listenPorts(e, s), ...(published.get(s.source) ?? [])]))
      portOwners.set(port, [...(portOwners.get(port) ?? []), s.source]);
  }
  const hostProxies = mountedProxies(sources, proxies, hosts);
  workloadProxies(sources, hosts, hostProxies);
  const ports = new Map<string, string>();
  for (const [port, owners] of portOwners) {
    // A container port the deployment does not publish is not reachable on the host: of several sources
    // listening on one port, the one whose deployment publishes it as a host port is the one `localhost` reaches.
    const publishing = owners.length > 1 ? owners.filter((o) => published.get(o)?.has(port)) : owners;
    if (publishing.length === 1) ports.set(port, publishing[0]!);
  }
  return { hosts, env, instances, proxies, hostProxies, basePaths, pathBases, deployed: deployedSources, ports };
}

/**
 * Of several attached folders of one name (`Web.Bff.Shopping/aggregator`, `Mobile.Bff.Shopping/aggregator`:
 * the CLI names them `aggregator`, `aggregator-2`), the one whose path ends like the compose service's
 * Dockerfile folder, when exactly one ends with more of it than the others; otherwise undefined.
 */
function byBuildDir(svc: ServiceDecl, target: string, sources: readonly SourceFacts[]): string | undefined {
  if (!svc.buildDir) return undefined;
  const want = svc.buildDir.toLowerCase().split('/').reverse();
  let best: string | undefined;
  let bestLen = 1;
  let tie = false;
  for (const s of sources) {
    const have = (s.origin ?? '').toLowerCase().split('/').filter(Boolean).reverse();
    if (have[0] !== target && have[0] !== want[0]) continue;
    let n = 0;
    while (n < want.length && n < have.length && want[n] === have[n]) n++;
    if (n > bestLen) [best, bestLen, tie] = [s.source, n, false];
    else if (n === bestLen && n > 1) tie = true;
  }
  return tie ? undefined : best;
}

/** Whether a compose bind mount (a path in `composeSource`) holds `file` of `source`, across attached folders. */
function mountHolds(mount: string, composeSource: string, source: string, file: string): boolean {
  const under = (dir: string): boolean => dir === '' || file === dir || file.startsWith(`${dir}/`);
  if (source === composeSource) return under(mount);
  // Another attached folder: the mount names it by its folder name, the rest is a path inside it.
  const segs = mount.split('/');
  const i = segs.map((x) => x.toLowerCase()).lastIndexOf(source.toLowerCase());
  return i >= 0 && under(segs.slice(i + 1).join('/'));
}

/**
 * The proxy routes each compose service reads through its bind mounts (`./gateways/web:/etc/envoy`): the
 * routes of the mounted files only, for a host that runs the gateway's source or no source at all (an
 * `envoyproxy/envoy` image); such a host then names that source. Hosts no mount decides keep every route of
 * the source. Linear in the services' mounts times the proxy routes.
 */
function mountedProxies(
  sources: readonly SourceFacts[],
  proxies: ReadonlyMap<string, ProxyRoute[]>,
  hosts: Map<string, string>,
): Map<string, ProxyRoute[]> {
  const out = new Map<string, ProxyRoute[]>();
  if (proxies.size === 0) return out;
  // One service's mounts across its compose files (the base declares the image, an override the volumes).
  const mounts = new Map<string, { source: string; path: string }[]>();
  for (const s of sources)
    for (const svc of s.services) {
      if (!svc.mounts?.length) continue;
      const name = svc.name.toLowerCase();
      mounts.set(name, [...(mounts.get(name) ?? []), ...svc.mounts.map((path) => ({ source: s.source, path }))]);
    }
  for (const [host, list] of mounts) {
    for (const [gateway, routes] of proxies) {
      const owner = hosts.get(host);
      if (owner !== undefined && owner !== gateway) continue;
      const own = routes.filter((r) => list.some((m) => mountHolds(m.path, m.source, r.at.source, r.at.file)));
      if (own.length === 0) continue;
      out.set(host, own);
      if (owner === undefined) hosts.set(host, gateway);
      break;
    }
  }
  return out;
}

/**
 * Gateways that run no source (a `kong` image) configured by a file of a ConfigMap mounted into the workload
 * (Kong's declarative `kong.yml`): the Service in front of the workload (in the same manifest, or selecting
 * it by label from another one) is a host that goes through those routes, and names the source holding the
 * ConfigMap. A host some source already runs keeps its own routes.
 */
function workloadProxies(
  sources: readonly SourceFacts[],
  hosts: Map<string, string>,
  hostProxies: Map<string, ProxyRoute[]>,
): void {
  for (const s of sources) {
    const mounted = s.services.filter((x) => x.envFrom?.some((f) => f.bundle.startsWith('configfile/')));
    if (mounted.length === 0) continue;
    const byName = new Map(mounted.map((x) => [x.name.toLowerCase(), x] as const));
    for (const svc of s.services) {
      if (svc.noHost) continue;
      const host = svc.name.toLowerCase();
      if (hosts.has(host) || hostProxies.has(host)) continue;
      const workloads = [svc, ...svc.targets.flatMap((t) => byName.get(t.toLowerCase()) ?? [])];
      const bundles = new Set(workloads.flatMap((w) => (w.envFrom ?? []).map((f) => f.bundle)));
      const entries = s.config.filter((c) => c.bundle !== undefined && bundles.has(c.bundle));
      const routes = proxyRoutes(buildEnv(entries.map((entry) => ({ entry, source: s.source }))));
      if (routes.length === 0) continue;
      hostProxies.set(host, routes);
      hosts.set(host, s.source);
    }
  }
}

/**
 * One model of what a deployment descriptor gives each service it runs: its `env` (Kubernetes `valueFrom`
 * references resolved against the source's ConfigMaps and Secrets), then whole bundles (`envFrom`, compose
 * `env_file`), compose `${X}` substituted from the `.env` beside the compose file, override files first
 * (first entry wins), and the targets of a service an override file declares without a build or image taken
 * from its base declaration. Linear in the source's services and configuration entries.
 */
function deploymentEnv(s: SourceFacts): { svc: ServiceDecl; env: ConfigEntry[] }[] {
  if (s.services.length === 0) return [];
  const bundles = new Map<string, ConfigEntry[]>();
  const add = (bundle: string, e: ConfigEntry): void => {
    const list = bundles.get(bundle);
    if (list) list.push(e);
    else bundles.set(bundle, [e]);
  };
  for (const c of s.config) {
    if (c.bundle) add(c.bundle, c);
    else if (!c.scope && /(^|\/)\.env[^/]*$|\.env$/.test(c.loc.file)) add(`file/${c.loc.file}`, c);
  }
  const targets = new Map<string, string[]>();
  const buildDirs = new Map<string, string>();
  for (const svc of s.services) {
    const list = targets.get(svc.name) ?? [];
    list.push(...svc.targets);
    targets.set(svc.name, list);
    if (svc.buildDir && !buildDirs.has(svc.name)) buildDirs.set(svc.name, svc.buildDir);
  }
  const ordered = [...s.services.filter((x) => x.override), ...s.services.filter((x) => !x.override)];
  return ordered.map((svc) => {
    const projectEnv = /compose/i.test(svc.loc.file)
      ? bundles.get(`file/${filePath(dirOf(svc.loc.file), '.env')}`)
      : undefined;
    const substitute = (v: string): string =>
      v.replace(
        /\$\{(\w+)(?::?-[^}]*)?\}|\$(\w+)/g,
        (m, a?: string, b?: string) => projectEnv?.find((e) => e.key === (a ?? b))?.value ?? m,
      );
    const env: ConfigEntry[] = [];
    for (const e of svc.env) {
      if (!e.ref) env.push(projectEnv ? { ...e, value: substitute(e.value) } : e);
      else {
        const held = bundles.get(e.ref.bundle)?.find((x) => x.key === e.ref!.key);
        if (held) env.push({ key: e.key, value: held.value, loc: held.loc });
      }
    }
    for (const from of svc.envFrom ?? [])
      for (const held of bundles.get(from.bundle) ?? [])
        env.push({ key: (from.prefix ?? '') + held.key, value: held.value, loc: held.loc });
    const all = svc.targets.length ? svc.targets : (targets.get(svc.name) ?? []);
    const buildDir = svc.buildDir ?? buildDirs.get(svc.name);
    if (all === svc.targets && buildDir === svc.buildDir) return { svc, env };
    return { svc: { ...svc, targets: all, ...(buildDir ? { buildDir } : {}) }, env };
  });
}

const SCG_ROUTE =
  /^spring\.cloud\.gateway(?:\.server\.web(?:flux|mvc))?\.routes\.(\d+)\.(uri|predicates\.\d+(?:\.name|\.args\.\w+)?|filters\.\d+(?:\.name|\.args\.\w+)?)$/i;
const ZUUL_ROUTE = /^zuul\.routes\.([^.]+)(?:\.(path|serviceId|service-id|url|stripPrefix|strip-prefix))?$/i;

/** Spring Cloud Gateway and Zuul routes of one source's configuration (YAML lists or `routes[0]` keys). */
function proxyRoutes(env: SourceEnv): ProxyRoute[] {
  type Raw = { fields: Map<string, string>; at?: Evidence; kind: 'scg' | 'zuul'; name: string };
  const raws = new Map<string, Raw>();
  for (const { entry, source } of env.entries) {
    const key = entry.key.replace(/\[(\d+)\]/g, '.$1');
    const scg = SCG_ROUTE.exec(key);
    const zuul = scg ? null : ZUUL_ROUTE.exec(key);
    if (!scg && !zuul) continue;
    const id = scg ? `scg|${source}|${entry.loc.file}|${scg[1]}` : `zuul|${zuul![1]}`;
    const raw: Raw = raws.get(id) ?? {
      fields: new Map<string, string>(),
      kind: scg ? 'scg' : 'zuul',
      name: scg ? scg[1]! : zuul![1]!,
    };
    raws.set(id, raw);
    const field = scg ? scg[2]!.toLowerCase() : (zuul![2] ?? 'path').toLowerCase().replace(/-/g, '');
    if (!raw.fields.has(field)) raw.fields.set(field, expand(env, entry.value));
    if ((field.startsWith('predicates') || field === 'path') && !raw.at)
      raw.at = { source, file: entry.loc.file, line: entry.loc.line };
  }
  const out: ProxyRoute[] = [];
  for (const raw of raws.values()) {
    let paths: string[] = [];
    let strip = 0;
    let prefix: string[] = [];
    let target: string | undefined;
    if (raw.kind === 'scg') {
      target = raw.fields.get('uri');
      const values = (re: RegExp): string[] => [...raw.fields.entries()].filter(([k]) => re.test(k)).map(([, v]) => v);
      // Shortcut form `Path=/a/**,/b/**`; full form `name: Path` with `args.pattern(s)`.
      for (const v of values(/^predicates\.\d+$/)) {
        const m = /^\s*Path\s*=\s*(.+)$/i.exec(v);
        if (m) paths.push(...m[1]!.split(',').map((x) => x.trim()));
      }
      for (const [k, v] of raw.fields)
        if (
          /^predicates\.\d+\.args\./.test(k) &&
          /^path$/i.test(raw.fields.get(k.replace(/\.args\..*$/, '.name')) ?? '')
        )
          paths.push(v.trim());
      for (const v of values(/^filters\.\d+$/)) {
        const sp = /^\s*StripPrefix\s*=\s*(\d+)/i.exec(v);
        if (sp) strip = Number(sp[1]);
        const pp = /^\s*PrefixPath\s*=\s*(\S+)/i.exec(v);
        if (pp) prefix = segments(pp[1]!);
      }
    } else {
      const path = raw.fields.get('path');
      if (path) paths = [path];
      target = raw.fields.get('url') ?? raw.fields.get('serviceid') ?? raw.name;
    }
    if (!target || !raw.at) continue;
    for (const p of paths) {
      const pattern = p
        .split('/')
        .filter((x) => x.length > 0)
        .map((x) => (x === '**' || x === '*' ? x : normaliseSegment(x)));
      if (pattern.length === 0) continue;
      if (raw.kind === 'zuul' && !/^false$/i.test(raw.fields.get('stripprefix') ?? 'true')) {
        strip = pattern.findIndex((x) => x === '*' || x === '**' || x === PARAM || x === INT_PARAM);
        if (strip < 0) strip = pattern.length;
      }
      out.push({ pattern, patternText: p, strip, prefix, target, at: raw.at });
    }
  }
  return out;
}

/** `appsettings.<Environment>.json`, `application-<profile>.yml` / `.properties` (also `bootstrap-…`). */
const OVERLAY =
  /(?:^|\/)(?:(?:appsettings|ocelot)\.([^./]+)\.json|(?:application|bootstrap)-([^./]+)\.(?:ya?ml|properties))$/i;
const ENVIRONMENT_KEYS = new Set(['aspnetcore.environment', 'dotnet.environment', 'spring.profiles.active']);

/**
 * A program's own configuration in the order its framework reads it: the overlay of the active environment
 * or profile (`ASPNETCORE_ENVIRONMENT`, `SPRING_PROFILES_ACTIVE`, from the deployment or the files) before
 * the base files, inactive overlays last (they only fill keys nothing else sets). Stable and linear.
 */
function overlaysOrdered(all: readonly ConfigEntry[], deployed: readonly SourcedEntry[]): ConfigEntry[] {
  // Program arguments (`CMD ["--x=1"]`, `-Dspring.profiles.active=docker`) come before the files.
  const own = all.some((c) => c.argument) ? [...all.filter((c) => c.argument), ...all.filter((c) => !c.argument)] : all;
  if (!own.some((c) => OVERLAY.test(c.loc.file))) return [...own];
  const active = new Set<string>();
  const setting = [...deployed.map((d) => d.entry), ...own].find((c) => ENVIRONMENT_KEYS.has(relaxedKey(c.key)));
  for (const v of (setting?.value ?? '').split(',')) if (v.trim()) active.add(v.trim().toLowerCase());
  const rank = (c: ConfigEntry): number => {
    if (c.argument) return -1;
    const m = OVERLAY.exec(c.loc.file);
    if (!m) return 1;
    return active.has((m[1] ?? m[2]!).toLowerCase()) ? 0 : 2;
  };
  return own
    .map((c, i) => ({ c, i, r: rank(c) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.c);
}

const YARP_KEY = /^ReverseProxy(?::|__|\.)(Routes|Clusters)(?::|__|\.)([^:]+?)(?::|__|\.)(.+)$/i;

/**
 * YARP routes from configuration (`ReverseProxy:Routes:<id>` with `ClusterId`, `Match:Path` and path
 * transforms; `ReverseProxy:Clusters:<id>:Destinations:<d>:Address`), written as the one proxy-route form:
 * `{**rest}` is `**`; `PathPattern: "/api/{**rest}"` strips what precedes the catch-all and puts `/api` in
 * front, `PathRemovePrefix` strips, `PathPrefix` prepends. The first destination is the target.
 */
function yarpRoutes(env: SourceEnv): ProxyRoute[] {
  type Route = { cluster?: string; path?: string; at?: Evidence; pattern?: string; remove?: string; prefix?: string };
  const routes = new Map<string, Route>();
  const clusters = new Map<string, string>();
  for (const { entry, source } of env.entries) {
    const m = YARP_KEY.exec(entry.key);
    if (!m) continue;
    const field = m[3]!.replace(/__|\./g, ':').toLowerCase();
    const value = expand(env, entry.value);
    if (m[1]!.toLowerCase() === 'clusters') {
      if (/^destinations:[^:]+:address$/.test(field) && !clusters.has(m[2]!)) clusters.set(m[2]!, value);
      continue;
    }
    const r = routes.get(m[2]!) ?? {};
    routes.set(m[2]!, r);
    if (field === 'clusterid') r.cluster ??= value;
    else if (field === 'match:path') {
      r.path ??= value;
      r.at ??= { source, file: entry.loc.file, line: entry.loc.line };
    } else if (/^transforms:\d+:pathpattern$/.test(field)) r.pattern ??= value;
    else if (/^transforms:\d+:pathremoveprefix$/.test(field)) r.remove ??= value;
    else if (/^transforms:\d+:pathprefix$/.test(field)) r.prefix ??= value;
  }
  const catchAll = (x: string): boolean => /^\{\*\*?[^}]*\}$/.test(x);
  const out: ProxyRoute[] = [];
  for (const r of routes.values()) {
    const target = r.cluster !== undefined ? clusters.get(r.cluster) : undefined;
    if (!target || !r.path || !r.at) continue;
    const raw = r.path.split('/').filter((x) => x.length > 0);
    const pattern = raw.map((x) => (catchAll(x) ? '**' : normaliseSegment(x)));
    if (pattern.length === 0) continue;
    let strip = r.remove ? segments(r.remove).length : 0;
    let prefix = r.prefix ? segments(r.prefix) : [];
    if (r.pattern !== undefined) {
      const to = r.pattern.split('/').filter((x) => x.length > 0);
      const at = to.findIndex(catchAll);
      const from = pattern.indexOf('**');
      if (at < 0 || from < 0) continue; // a fixed target path is no forwarding of the call's path
      strip = from;
      prefix = to.slice(0, at);
    }
    out.push({ pattern, patternText: r.path, strip, prefix, target, at: r.at });
  }
  return out;
}

const OCELOT_KEY = /^(?:Re)?Routes(?::|__|\.)(\d+)(?::|__|\.)(.+)$/i;

/**
 * Ocelot routes (`Routes` / `ReRoutes` of `ocelot.json`): `UpstreamPathTemplate` is the pattern, the call is
 * forwarded to `DownstreamPathTemplate` on the first `DownstreamHostAndPorts`. A trailing `{everything}` of
 * both is a catch-all (what follows is kept); otherwise the downstream template replaces the whole path.
 */
function ocelotRoutes(env: SourceEnv): ProxyRoute[] {
  type Route = { up?: string; down?: string; host?: string; port?: string; scheme?: string; at?: Evidence };
  const routes = new Map<string, Route>();
  // One file: the first in priority order (the active environment's `ocelot.<Env>.json` before `ocelot.json`).
  let file: string | undefined;
  for (const { entry, source } of env.entries) {
    if (!/ocelot/i.test(entry.loc.file) || (file !== undefined && entry.loc.file !== file)) continue;
    const m = OCELOT_KEY.exec(entry.key);
    if (!m) continue;
    file = entry.loc.file;
    const id = m[1]!;
    const r = routes.get(id) ?? {};
    routes.set(id, r);
    const field = m[2]!.replace(/__|\./g, ':').toLowerCase();
    const value = expand(env, entry.value);
    if (field === 'upstreampathtemplate') {
      r.up ??= value;
      r.at ??= { source, file: entry.loc.file, line: entry.loc.line };
    } else if (field === 'downstreampathtemplate') r.down ??= value;
    else if (field === 'downstreamscheme') r.scheme ??= value;
    else if (field === 'downstreamhostandports:0:host') r.host ??= value;
    else if (field === 'downstreamhostandports:0:port') r.port ??= value;
  }
  const out: ProxyRoute[] = [];
  for (const r of routes.values()) {
    if (!r.up || r.down === undefined || !r.host || !r.at) continue;
    const up = r.up.split('/').filter((x) => x.length > 0);
    const down = r.down.split('/').filter((x) => x.length > 0);
    const tailUp = up.length > 0 && /^\{[^}]+\}$/.test(up[up.length - 1]!) ? up[up.length - 1] : undefined;
    const catchAll = tailUp !== undefined && down[down.length - 1] === tailUp && /^\{everything\}$/i.test(tailUp);
    const pattern = (catchAll ? up.slice(0, -1) : up).map(normaliseSegment);
    if (catchAll) pattern.push('**');
    if (pattern.length === 0) continue;
    const target = `${r.scheme ?? 'http'}://${r.host}${r.port ? `:${r.port}` : ''}`;
    const prefix = (catchAll ? down.slice(0, -1) : down).map(normaliseSegment);
    out.push({ pattern, patternText: r.up, strip: catchAll ? up.length - 1 : up.length, prefix, target, at: r.at });
  }
  return out;
}

/** Ant-style matching of a call's segments against a proxy pattern; a call's parameter never equals a literal. */
function antMatch(pattern: readonly string[], segs: readonly string[], i = 0, j = 0): boolean {
  if (i === pattern.length) return j === segs.length;
  const p = pattern[i]!;
  if (p === '**') {
    for (let k = j; k <= segs.length; k++) if (antMatch(pattern, segs, i + 1, k)) return true;
    return false;
  }
  if (j === segs.length) return false;
  if (p === '*' || p === PARAM) return antMatch(pattern, segs, i + 1, j + 1);
  if (p === INT_PARAM) return (segs[j] === PARAM || /^\d+$/.test(segs[j]!)) && antMatch(pattern, segs, i + 1, j + 1);
  return p === segs[j] && antMatch(pattern, segs, i + 1, j + 1);
}

function resolveParts(parts: readonly Part[], env: SourceEnv, base?: readonly Part[]): string {
  let out = '';
  for (const p of parts) {
    if ('lit' in p) out += p.lit;
    else if ('env' in p) out += expand(env, lookup(env, p.env) ?? p.fallback ?? HOLE, new Set([relaxedKey(p.env)]));
    else if ('config' in p)
      out += storkUrl(env, expand(env, lookup(env, p.config) ?? p.fallback ?? HOLE, new Set([relaxedKey(p.config)])));
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

/**
 * The fixed ports a source listens on: its code's listen addresses (ASP.NET `UseUrls`, Kestrel `Listen*`), else
 * the ASP.NET `urls` setting (`ASPNETCORE_URLS`, several separated by `;`), else Kestrel's configured endpoints
 * (`Kestrel:Endpoints:<name>:Url`), else `server.port`/`PORT`, else `launchSettings.json` profiles' `applicationUrl`;
 * 0 is none.
 */
function listenPorts(env: SourceEnv, facts: SourceFacts): string[] {
  const portOf = (url: string): string | undefined => {
    const p = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[^\]]*\]|[^/:?#]*):(\d{2,5})(?:[/?#]|$)/i.exec(url.trim())?.[1];
    return p && Number(p) > 0 ? String(Number(p)) : undefined;
  };
  const fromUrls = (urls: readonly string[]): string[] => [
    ...new Set(urls.flatMap((u) => u.split(';')).flatMap((u) => portOf(u) ?? [])),
  ];
  const code = fromUrls((facts.listenUrls ?? []).map((u) => resolveParts(u, env)));
  if (code.length) return code;
  for (const key of ['urls', 'aspnetcore_urls']) {
    const v = lookup(env, key);
    const set = v === undefined ? [] : fromUrls([expand(env, v)]);
    if (set.length) return set;
  }
  // Kestrel's endpoints from configuration (`Kestrel:Endpoints:Http:Url`, `Kestrel__Endpoints__Http__Url`).
  const kestrel = fromUrls(
    [...env.relaxed].filter(([k]) => /^kestrel\.endpoints\.[^.]+\.url$/.test(k)).map(([, v]) => expand(env, v)),
  );
  if (kestrel.length) return kestrel;
  const one = listenPort(env);
  // Last, the addresses `dotnet run` takes from `launchSettings.json` (a template's shared defaults: ambiguous).
  return one ? [one] : fromUrls(facts.launchUrls ?? []);
}

/** The fixed port a source's configuration says it listens on (`server.port`, `PORT`); 0 (random) is none. */
function listenPort(env: SourceEnv): string | undefined {
  for (const key of ['server.port', 'port', 'server.http.addr']) {
    const v = lookup(env, key);
    // A listen address (`server.http.addr: 0.0.0.0:8000`, Kratos) names its port after the colon.
    const x =
      v === undefined
        ? undefined
        : expand(env, v)
            .trim()
            .replace(/^[\w.-]*:(?=\d+$)/, '');
    if (x && /^\d{2,5}$/.test(x) && Number(x) > 0) return String(Number(x));
  }
  return undefined;
}

/**
 * The source a host names, else, for a machine address (`localhost`, a private IP) with a port, the one
 * source listening on that port: services published on one Docker host differ only by their port.
 */
function hostPortSource(host: string, port: string | undefined, topo: Topology): string | undefined {
  return hostSource(host, topo) ?? (port && isMachine(host) ? topo.ports.get(String(Number(port))) : undefined);
}

function isMachine(host: string): boolean {
  return (
    host === 'localhost' ||
    host === 'host.docker.internal' ||
    /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|0\.0\.0\.0$)/.test(host)
  );
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

const routeIndexes = new WeakMap<readonly Endpoint[], { size: number; index: RouteIndex }>();
/** The route index of a source's endpoints, built once (rebuilt if the list grew). */
function routeIndex(eps: readonly Endpoint[]): RouteIndex {
  let entry = routeIndexes.get(eps);
  if (!entry || entry.size !== eps.length) {
    entry = { size: eps.length, index: new RouteIndex(eps.map(templateSegments)) };
    routeIndexes.set(eps, entry);
  }
  return entry.index;
}

/**
 * Rule 1 within one source: the endpoint with the most literal segments wins; ties by position.
 * `catchAll: false`: a prefix that serves everything below it does not count (no host says the call goes there).
 */
function bestIn(
  source: SourceFacts,
  method: Call['method'],
  callSegs: string[],
  catchAll = true,
): Candidate | undefined {
  let best: Candidate | undefined;
  const eps = source.endpoints;
  for (const i of routeIndex(eps).candidates(callSegs)) {
    const ep = eps[i]!;
    // Go net/rpc methods are no HTTP routes: `RPC` matches `RPC` only.
    if ((ep.method === 'RPC') !== (method === 'RPC')) continue;
    if (ep.method !== 'ANY' && method !== 'ANY' && ep.method !== method) continue;
    const tSegs = templateSegments(ep);
    if (!catchAll && tSegs[tSegs.length - 1] === CATCH_ALL) continue;
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

/** Which parts of a URL make it dynamic, in words. */
function whyDynamic(parts: readonly Part[], env: SourceEnv): string {
  const why: string[] = [];
  for (const p of parts) {
    if ('ref' in p) why.push(`\`${p.ref}\` is no constant of the source`);
    else if ('env' in p && lookup(env, p.env) === undefined && p.fallback === undefined)
      why.push(`environment variable \`${p.env}\` is set in no attached configuration`);
    else if ('config' in p && lookup(env, p.config) === undefined && p.fallback === undefined)
      why.push(`configuration key \`${p.config}\` is set in no attached configuration`);
    else if ('hole' in p) why.push('a part is computed at run time');
  }
  return [...new Set(why)].join('; ') || 'its host is computed at run time';
}

function describeCall(method: string, target: Target | undefined, raw: string): string {
  if (!target) return `${method} ${raw.replaceAll(HOLE, '…')}`;
  // A net/rpc method is case-sensitive (`/RPCServer.CreateTask`): shown as written.
  const path = method === 'RPC' ? target.path : displayTemplate(segments(target.path));
  return target.host ? `${method} ${target.host}${path}` : `${method} ${path}`;
}

function matchLabel(c: Candidate, via: string | undefined): string {
  const segs = templateSegments(c.endpoint);
  const kind = c.exact ? 'exact path' : segs[segs.length - 1] === CATCH_ALL ? 'route prefix' : 'route template';
  return via ? `${via} + ${kind}` : kind;
}

/**
 * Images of infrastructure a deployment runs beside the application's own services: databases, brokers, caches,
 * mail catchers and relays, search, object stores, observability. Matched on the image's last path part.
 */
const INFRA_IMAGE =
  /^(postgres|postgis|mysql|mariadb|mongo|mssql|sqlserver|azure-sql-edge|oracle|cockroach|cassandra|scylla|couchdb|couchbase|neo4j|redis|valkey|keydb|memcached|rabbitmq|kafka|cp-kafka|zookeeper|cp-zookeeper|nats|pulsar|activemq|artemis|eventstore|mailhog|mailpit|mailcatcher|maildev|smtp|postfix|exim|greenmail|elasticsearch|opensearch|solr|minio|azurite|localstack|jaeger|all-in-one|zipkin|opentelemetry-collector|otel-collector|prometheus|grafana|consul|vault|etcd|keycloak|seq)([-_.].*)?$/i;

/**
 * Deployed infrastructure by host: a compose or Kubernetes service that is no source of the application and
 * runs an infrastructure image (or is named like one), with that image.
 */
export function infrastructureHosts(sources: readonly SourceFacts[], topo: Topology): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of sources)
    for (const svc of s.services) {
      const host = svc.name.toLowerCase();
      if (svc.noHost || topo.hosts.has(host)) continue;
      const image = svc.targets.find((t) => INFRA_IMAGE.test(basename(t).replace(/:.*$/, '')));
      if (image ?? INFRA_IMAGE.test(host)) out.set(host, image ?? host);
    }
  return out;
}

/** What a kind of infrastructure is to the service that uses it. */
function infraKind(image: string): string {
  const i = basename(image);
  if (/^(mailhog|mailpit|mailcatcher|maildev|smtp|postfix|exim|greenmail)/.test(i)) return 'SMTP';
  if (/^(redis|valkey|keydb|memcached)/.test(i)) return 'cache';
  if (/^(elasticsearch|opensearch|solr)/.test(i)) return 'search';
  if (/^(minio|azurite|localstack)/.test(i)) return 'storage';
  if (/^(jaeger|all-in-one|zipkin|opentelemetry-collector|otel-collector|prometheus|grafana|seq)/.test(i))
    return 'telemetry';
  if (
    /^(postgres|postgis|mysql|mariadb|mongo|mssql|sqlserver|azure-sql-edge|oracle|cockroach|cassandra|scylla|couchdb|couchbase|neo4j|eventstore)/.test(
      i,
    )
  )
    return 'database';
  return 'service';
}

/** Brokers are modelled by the message flows: a setting naming one is not a finding. */
const BROKER_IMAGE = /^(rabbitmq|kafka|cp-kafka|zookeeper|cp-zookeeper|nats|pulsar|activemq|artemis)/;

/** Host names in a setting: a URL's host, an ADO.NET `Host=`/`Server=`, or a bare host of a `…_HOST` key. */
function hostsInSetting(key: string, value: string): string[] {
  const out: string[] = [];
  const url = /^[a-z][a-z0-9+.:-]*:\/\/(?:[^@/]*@)?([^/?#:;,]+)/i.exec(value.trim());
  if (url) out.push(url[1]!);
  for (const m of value.matchAll(/(?:^|;)\s*(?:server|host|data source|address)\s*=\s*(?:tcp:)?([^;,:]+)/gi))
    out.push(m[1]!.trim());
  const last = relaxedKey(key).split('.').pop() ?? '';
  const bare = /^([a-z0-9][a-z0-9-]*)(:\d+)?$/i.exec(value.trim());
  if (bare && /(host|hostname|server|addr|address)$/.test(last)) out.push(bare[1]!);
  return out.map((h) => h.toLowerCase());
}

/**
 * Database, SMTP, cache, search and storage a service is configured to reach (its own settings or the
 * deployment's env for it), when that is a deployed infrastructure component: one unresolved call per (service,
 * component), at the setting, so the service's use of it is listed, not dropped.
 */
function linkInfrastructure(sources: readonly SourceFacts[], topo: Topology, out: LinkResult): void {
  const infra = infrastructureHosts(sources, topo);
  if (infra.size === 0) return;
  const names = new Set(sources.map((s) => s.source));
  for (const src of sources) {
    const env = topo.env.get(src.source);
    if (!env) continue;
    const seen = new Set<string>();
    for (const { entry, source: holder } of env.entries) {
      // The holder's own settings, or a deployment's env for this service (evidence in the deployment's file).
      if (!names.has(holder) || entry.bundle?.startsWith('secret/')) continue;
      for (const host of hostsInSetting(entry.key, entry.value)) {
        const image = infra.get(host);
        if (!image || BROKER_IMAGE.test(basename(image)) || seen.has(host)) continue;
        seen.add(host);
        out.unresolved.push({
          caller: {
            source: src.source,
            file: holder === src.source ? entry.loc.file : `${holder}:${entry.loc.file}`,
            line: entry.loc.line,
          },
          calls: `${infraKind(image)} \`${host}\` (\`${entry.key}\`)`,
          reason: 'infrastructure',
          detail: `\`${host}\` is deployed infrastructure (\`${image}\`), not a repository of this application`,
          candidates: [],
        });
      }
    }
  }
}

function linkCalls(sources: readonly SourceFacts[], topo: Topology, out: LinkResult): void {
  const bySource = new Map(sources.map((s) => [s.source, s] as const));
  const infra = infrastructureHosts(sources, topo);
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
          detail: `the URL is only known at run time (${whyDynamic(call.url, env)})`,
          candidates: [],
        });
        continue;
      }
      const callSegs = segments(target.path);
      // A net/rpc method is case-sensitive: shown as written.
      const shown = call.method === 'RPC' ? target.path : displayTemplate(callSegs);
      // Placeholders never match: a path made only of run-time values fits any route of that shape.
      if (callSegs.length > 0 && callSegs.every((x) => x === PARAM)) {
        // Say what is known: the host (and the repository it names) when only the path is computed.
        const known = target.host ? hostSource(target.host, topo) : undefined;
        unresolved(
          'dynamic URL',
          (target.host
            ? `the host \`${target.host}\` is known${known ? ` (\`${known}\`)` : ''}, but the path is only known at run time`
            : 'the path is only known at run time') + ' (every segment is a run-time value)',
        );
        continue;
      }
      const relative =
        !target.host && (raw.startsWith('/') || !raw.startsWith(HOLE)) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(raw);
      let restrictTo: string | undefined;
      let via: string | undefined;
      if (target.host) {
        const port = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/@]*@)?[^/:?#]*:(\d+)/i.exec(raw)?.[1];
        const hs = hostPortSource(target.host, port, topo);
        const component = hs ? undefined : infra.get(target.host);
        if (hs) {
          restrictTo = hs;
          via = `host \`${target.host}\``;
        } else if (component) {
          unresolved(
            'infrastructure',
            `\`${target.host}\` is deployed infrastructure (\`${component}\`), not a repository of this application`,
          );
          continue;
        } else if (isExternal(target.host)) {
          unresolved('external host', `\`${target.host}\` is not a service of this application`);
          continue;
        }
      }
      if (!restrictTo && call.serviceName) {
        // @FeignClient(name = "${orders.service:orders}"): the name through configuration, else its default.
        const service = expand(env, call.serviceName);
        const hs = service.includes(HOLE) ? undefined : hostSource(service.toLowerCase(), topo);
        if (hs) {
          restrictTo = hs;
          via = `client \`${service}\``;
        }
      }
      // A relative URL goes to the caller's own origin (a UI served by its gateway): the caller's routes,
      // then its proxy routes, then (a front end served elsewhere) whichever other repository serves it.
      const self = restrictTo ?? (relative ? src.source : undefined);
      if (self) {
        const target_ = bySource.get(self)!;
        if (self === src.source && bestIn(src, call.method, callSegs)) continue; // internal: not a link
        if (self !== src.source) {
          const c = bestIn(target_, call.method, callSegs);
          if (c) {
            out.links.push(apiLink(caller, calls, c, via));
            continue;
          }
        }
        const forwarded = forward(self, call.method, callSegs, topo, bySource, target.host?.toLowerCase());
        if (forwarded) {
          if ('link' in forwarded) out.links.push(apiLink(caller, calls, forwarded.link, forwarded.via));
          else unresolved(forwarded.reason, forwarded.detail);
          continue;
        }
        if (restrictTo) {
          const method = call.method === 'ANY' ? '' : call.method + ' ';
          unresolved(
            'no matching route',
            restrictTo === src.source
              ? `\`${restrictTo}\` (the caller itself, by its host) serves no ${method}${shown}`
              : `\`${restrictTo}\` serves no ${method}${shown}`,
          );
          continue;
        }
      }
      const own = relative ? undefined : bestIn(src, call.method, callSegs);
      // A page's script: a relative URL is the page's own origin, which only a server of the page decides (its
      // own routes, proxy, image or a deployment running it). With none (a dev server, a CDN), no repository is
      // chosen by the path alone: the browser cannot reach a backend but through the page's server.
      const pageUnknown =
        relative &&
        call.browser === true &&
        !restrictTo &&
        src.endpoints.length === 0 &&
        !topo.proxies.has(src.source) &&
        !topo.deployed.has(src.source) &&
        src.ownServer !== true;
      const candidates = sources
        .filter((s) => s.source !== src.source)
        .map((s) => bestIn(s, call.method, callSegs, false))
        .filter((c): c is Candidate => c !== undefined);
      // A front door: a load generator's or browser's path that exactly one gateway of the application
      // forwards to a repository serving it (the caller's host is a setting or the page's origin).
      const door = (): { link: Candidate; via: string } | undefined => {
        const doors = [...topo.proxies.keys()]
          .filter((g) => g !== src.source)
          .map((g) => forward(g, call.method, callSegs, topo, bySource))
          .filter((f): f is { link: Candidate; via: string } => f !== undefined && 'link' in f);
        return doors.length > 0 &&
          new Set(doors.map((d) => d.link.source)).size === 1 &&
          new Set(doors.map((d) => d.via)).size === 1
          ? doors[0]
          : undefined;
      };
      // A relative path several repositories serve: the one front door that forwards it decides.
      const decided = relative && candidates.length > 1 && !pageUnknown ? door() : undefined;
      if (decided && candidates.some((c) => c.source === decided.link.source)) {
        out.links.push(apiLink(caller, calls, decided.link, decided.via));
        continue;
      }
      if (candidates.length === 0) {
        const d = door();
        if (d) {
          out.links.push(apiLink(caller, calls, d.link, d.via));
          continue;
        }
        // Catch-all prefixes (`/**`) fit any path below them: named, but no evidence where the call goes.
        const prefixes = sources
          .filter((s) => s.source !== src.source)
          .map((s) => bestIn(s, call.method, callSegs))
          .filter((c): c is Candidate => c !== undefined)
          .map((c) => `\`${c.source}\` ${c.endpoint.path} (${c.endpoint.loc.file}:${c.endpoint.loc.line})`);
        if (!relative)
          unresolved(
            // A literal host that names no attached repository is known, not a run-time value.
            target.host ? 'no matching route' : 'dynamic URL',
            (target.host
              ? `the host \`${target.host}\` names no attached repository, and no other repository serves ${shown}`
              : `the host is only known at run time and no other repository serves ${shown}`) +
              (prefixes.length
                ? ` except through a catch-all prefix, which alone does not tell where the call goes: ${prefixes.join(', ')}`
                : '') +
              (own
                ? ` (it also fits the caller's own route ${own.endpoint.path}, ${own.endpoint.loc.file}:${own.endpoint.loc.line}; only a host that resolves to the caller makes a call internal)`
                : ''),
          );
        else unresolved('no matching route', 'no attached repository serves it');
      } else if (pageUnknown) {
        unresolved(
          'dynamic URL',
          `relative to the page's own origin, and no attached source serves the page (no route, proxy, image or deployment of \`${src.source}\`); served by ${candidates
            .map((c) => `\`${c.source}\``)
            .sort()
            .join(' and ')}, which a browser reaches only through the page's server`,
          candidates.map((c) => ev(c.source, c.endpoint.loc)).sort(compareEvidence),
        );
      } else if (!target.host && !relative && isProbePath(callSegs)) {
        // Every service answers a health or readiness probe: under a host only known at run time, one other
        // repository serving the path says nothing about which service is probed.
        unresolved(
          'dynamic URL',
          `the host is only known at run time and ${shown} is a generic health/readiness probe path, which does not tell services apart`,
        );
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

/** Probe endpoints every service may expose (`/health`, `/actuator/health`, `/healthz`, `/ready`, `/health/live`). */
const PROBE_SEGMENTS = new Set([
  'health',
  'healthz',
  'healthcheck',
  'health-check',
  'hc',
  'ready',
  'readyz',
  'readiness',
  'live',
  'livez',
  'liveness',
  'alive',
  'ping',
  'status',
  'actuator',
]);
function isProbePath(segs: readonly string[]): boolean {
  return segs.length > 0 && segs.every((s) => PROBE_SEGMENTS.has(s.toLowerCase()));
}

type Forwarded = { link: Candidate; via: string } | { reason: UnresolvedReason; detail: string };

/** A call that reaches a gateway and fits one of its proxy routes: the route's target serves it, or not. */
function forward(
  gateway: string,
  method: Call['method'],
  callSegs: string[],
  topo: Topology,
  bySource: ReadonlyMap<string, SourceFacts>,
  calledHost?: string,
  hops = 0,
): Forwarded | undefined {
  // The most specific matching route (most literal segments; the first of equals): `/basket/checkout`
  // before `/basket/{user}`, as Ocelot and YARP rank them. A host that mounts its own proxy file uses it only.
  let route: ProxyRoute | undefined;
  let best = -1;
  for (const r of (calledHost !== undefined ? topo.hostProxies.get(calledHost) : undefined) ??
    topo.proxies.get(gateway) ??
    []) {
    if (!antMatch(r.pattern, callSegs)) continue;
    const literals = r.pattern.filter((x) => x !== '**' && x !== '*' && x !== PARAM && x !== INT_PARAM).length;
    if (literals > best) [route, best] = [r, literals];
  }
  if (!route) return undefined;
  const rule = `\`${gateway}\` route \`${route.patternText}\` (${route.at.source} ${route.at.file}:${route.at.line})`;
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(route.target) ? route.target : `lb://${route.target}`;
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]*)(?::(\d+))?/i.exec(url);
  const host = authority?.[1]?.toLowerCase() ?? '';
  const to = host ? hostPortSource(host, authority?.[2], topo) : undefined;
  if (!to) {
    return isExternal(host) || !host
      ? {
          reason: 'external host',
          detail: `${rule} forwards to \`${route.target}\`, not a service of this application`,
        }
      : {
          reason: 'no matching route',
          detail: `${rule} forwards to \`${route.target}\`, which no attached repository is`,
        };
  }
  const fwd = [...route.prefix, ...callSegs.slice(route.strip)];
  const c = to === gateway ? undefined : bestIn(bySource.get(to)!, method, fwd);
  // A gateway behind a gateway (a UI's own proxy `/api/**` → an edge service → the services): on through its routes.
  if (!c && to !== gateway && hops < 4 && topo.proxies.has(to)) {
    const next = forward(to, method, fwd, topo, bySource, undefined, hops + 1);
    if (next && 'link' in next)
      return {
        link: next.link,
        via: `gateway route \`${route.patternText}\` of \`${gateway}\` (${route.at.source} ${route.at.file}:${route.at.line}), then ${next.via}`,
      };
    if (next) return next;
  }
  if (!c)
    return {
      reason: 'no matching route',
      detail: `${rule} forwards it to \`${to}\` as ${displayTemplate(fwd)}, which \`${to}\` does not serve`,
    };
  return {
    link: c,
    via: `gateway route \`${route.patternText}\` of \`${gateway}\` (${route.at.source} ${route.at.file}:${route.at.line})`,
  };
}

function apiLink(caller: Evidence, calls: string, c: Candidate, via: string | undefined): ApiLink {
  return {
    kind: 'api',
    caller,
    calls,
    servedBy: ev(c.source, c.endpoint.loc),
    served: `${c.endpoint.method} ${c.endpoint.path} (${c.endpoint.framework})`,
    match: matchLabel(c, via),
    edge: `${c.endpoint.method} ${c.endpoint.path}`,
  };
}

// ---------------------------------------------------------------------------------------------
// gRPC calls: API links to the repository that registers a server of the service

interface GrpcEndpoint {
  readonly source: string;
  /** `package.Service` when a proto or generated code of the application names the package. */
  readonly service: string;
  /** Method names as declared (proto), or undefined when no declaration says. */
  readonly methods?: readonly { readonly name: string; readonly at?: Evidence }[];
  readonly framework: string;
  readonly loc: Loc;
}

const simpleName = (service: string): string => service.slice(service.lastIndexOf('.') + 1);
/**
 * The name protoc-gen-go gives a proto identifier (`readerService`, `reader_service` → `ReaderService`):
 * generated Go code names the service so, the wire keeps the proto's spelling.
 */
const goCamel = (name: string): string =>
  name
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
const sameMethod = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Rule 1 for gRPC: a call reaches `package.Service/Method` where a repository registers a server of that
 * service (a `.proto` or generated stub alone serves nothing). The package and the methods come from the
 * `.proto` files and generated code of the caller's (or the server's) repository, else of any attached
 * repository that declares the service once. The target address, when the code and configuration give it,
 * picks the repository (rule 2); otherwise two servers of one service are ambiguous.
 */
function linkGrpc(sources: readonly SourceFacts[], topo: Topology, out: LinkResult): void {
  if (!sources.some((s) => (s.grpcCalls ?? []).length > 0)) return;
  const declsOf = (s: SourceFacts): readonly GrpcDecl[] => s.grpcDecls ?? [];
  /** Declarations of a simple service name: the source's own first, else the application's when they agree. */
  const declare = (src: SourceFacts, service: string): { decl: GrpcDecl; source: string } | undefined => {
    const simple = simpleName(service);
    const pkg = service.includes('.') ? service.slice(0, service.lastIndexOf('.')) : undefined;
    const fits = (d: GrpcDecl): boolean =>
      (d.service === simple || goCamel(d.service) === simple) && (pkg === undefined || d.package === pkg);
    const own = declsOf(src).filter(fits);
    const pick = (list: { decl: GrpcDecl; source: string }[]) => {
      const pkgs = new Set(list.map((x) => x.decl.package));
      if (pkgs.size !== 1) return undefined;
      // The declaration that lists methods (a .proto) before one that names a few (generated code).
      return [...list].sort((a, b) => b.decl.methods.length - a.decl.methods.length)[0];
    };
    if (own.length) return pick(own.map((decl) => ({ decl, source: src.source })));
    return pick(
      sources.flatMap((s) =>
        declsOf(s)
          .filter(fits)
          .map((decl) => ({ decl, source: s.source })),
      ),
    );
  };
  const qualified = (d: GrpcDecl | undefined, service: string): string =>
    d ? (d.package ? `${d.package}.${d.service}` : d.service) : service;
  const endpoints: GrpcEndpoint[] = [];
  for (const s of sources) {
    const impls = s.grpcImpls ?? {};
    for (const reg of s.grpcServers ?? []) {
      const service = reg.implClass
        ? Object.prototype.hasOwnProperty.call(impls, reg.implClass)
          ? impls[reg.implClass]
          : undefined
        : reg.service;
      if (!service) continue;
      const d = declare(s, service);
      // A method registered by its handler's name (`login`) is the proto's rpc (`Login`) when one is declared.
      const rpc = reg.method ? d?.decl.methods.find((m) => sameMethod(m.name, reg.method!)) : undefined;
      const methods = reg.method
        ? [{ name: rpc?.name ?? reg.method }]
        : d?.decl.methods.map((m) => ({
            name: m.name,
            at: { source: d.source, file: d.decl.file, line: m.line },
          }));
      endpoints.push({
        source: s.source,
        service: qualified(d?.decl, service),
        ...(methods && methods.length ? { methods } : {}),
        framework: reg.framework,
        loc: reg.loc,
      });
    }
  }
  // Go commits its generated stubs: a `NewXClient(…)` no attached code declares (`redis.NewUniversalRedisClient`)
  // and no source serves is some other library's constructor, not a gRPC client.
  const declared = new Set(sources.flatMap((s) => declsOf(s).flatMap((d) => [d.service, goCamel(d.service)])));
  const undeclaredGo = (call: GrpcCall): boolean =>
    call.client === 'grpc-go' && !call.gateway && !declared.has(simpleName(call.service));
  const sameService = (a: string, b: string): boolean =>
    a === b || ((!a.includes('.') || !b.includes('.')) && simpleName(a) === simpleName(b));
  /**
   * grpc-gateway forwards a registered service's methods, not the service: the ones its generated handlers
   * (`x.pb.gw.go`) name, else the proto's `google.api.http` ones; none known, the service as a whole.
   */
  const forwarded = (src: SourceFacts, call: GrpcCall): readonly GrpcCall[] => {
    if (!call.gateway || call.method !== '*') return [call];
    const d = declare(src, call.service);
    const fits = (x: GrpcDecl): boolean =>
      (x.service === d?.decl.service || goCamel(x.service) === simpleName(call.service)) &&
      (!d || x.package === d.decl.package);
    const all = sources.flatMap((s) => declsOf(s).filter(fits));
    const generated = all.filter((x) => x.gateway).flatMap((x) => x.methods.map((m) => m.name));
    const annotated = all.flatMap((x) => x.methods.filter((m) => m.http?.length).map((m) => m.name));
    const names = [...new Set(generated.length ? generated : annotated)];
    return names.length ? names.map((method) => ({ ...call, method })) : [call];
  };
  for (const src of sources) {
    const env = topo.env.get(src.source)!;
    for (const call of (src.grpcCalls ?? []).flatMap((c) => forwarded(src, c))) {
      const service = qualified(declare(src, call.service)?.decl, call.service);
      const servers = endpoints.filter((e) => sameService(e.service, service));
      if ((call.weak || undeclaredGo(call)) && servers.length === 0) continue;
      const caller = ev(src.source, call.loc);
      const what = call.method === '*' ? service : `${service}/${call.method}`;
      const address = call.address.length ? resolveParts(call.address, env) : '';
      // `dns:///cart:7070`, `http://cart:7070`, `cart.ns.svc.cluster.local:7070` → the host.
      const host = address
        .replace(/^(?:[a-z][a-z0-9+.-]*:\/\/\/?|(?:dns|ipv4|ipv6|unix|passthrough|xds):\/*)/i, '')
        .replace(/^[^@/]*@/, '')
        .replace(/[:/].*$/, '')
        .toLowerCase();
      const knownHost = host && !host.includes(HOLE) ? host : undefined;
      const calls = `gRPC ${what}${knownHost ? ` at \`${knownHost}\`` : ''}`;
      const unresolved = (reason: UnresolvedReason, detail: string, candidates: Evidence[] = []): void => {
        out.unresolved.push({ caller, calls, reason, detail, candidates });
      };
      let chosen: GrpcEndpoint[] = servers.filter((e) => e.source !== src.source);
      let via: string | undefined;
      if (knownHost) {
        const hs = hostSource(knownHost, topo);
        if (hs === src.source && servers.some((e) => e.source === src.source)) continue; // internal
        if (hs) {
          chosen = servers.filter((e) => e.source === hs);
          via = `host \`${knownHost}\``;
          if (chosen.length === 0) {
            unresolved(
              'no matching route',
              `\`${hs}\` (by its host \`${knownHost}\`) registers no gRPC server of ${service}`,
            );
            continue;
          }
        } else if (isExternal(knownHost)) {
          unresolved('external host', `\`${knownHost}\` is not a service of this application`);
          continue;
        }
      }
      if (!via && chosen.length === 0 && servers.some((e) => e.source === src.source)) continue; // its own server
      if (chosen.length === 0) {
        unresolved(
          'no matching route',
          `no attached repository registers a gRPC server of ${service} (a .proto file or generated stub alone serves nothing)`,
        );
        continue;
      }
      const bySource = new Set(chosen.map((e) => e.source));
      if (bySource.size > 1) {
        unresolved(
          'ambiguous',
          `served by ${[...bySource]
            .sort()
            .map((x) => `\`${x}\``)
            .join(' and ')}, nothing tells them apart${address ? '' : ' (the client names no address)'}`,
          chosen.map((e) => ev(e.source, e.loc)).sort(compareEvidence),
        );
        continue;
      }
      // One repository may register a service's methods one by one (NestJS @GrpcMethod): the one with the method.
      const server =
        chosen.find((e) => call.method !== '*' && e.methods?.some((m) => sameMethod(m.name, call.method))) ??
        chosen.find((e) => !e.methods) ??
        chosen[0]!;
      const method = call.method === '*' ? undefined : server.methods?.find((m) => sameMethod(m.name, call.method));
      if (call.method !== '*' && server.methods && !method) {
        unresolved(
          'no matching route',
          `\`${server.source}\` serves ${server.service} (${server.loc.file}:${server.loc.line}) but no method ${call.method}`,
        );
        continue;
      }
      const served = method ? `${server.service}/${method.name}` : server.service;
      const proto = method?.at ? `, rpc at ${method.at.source} ${method.at.file}:${method.at.line}` : '';
      const kind = method
        ? 'service and method'
        : call.method === '*'
          ? 'service (no method call found)'
          : 'service (methods not declared)';
      out.links.push({
        kind: 'api',
        caller,
        calls,
        servedBy: ev(server.source, server.loc),
        served: `gRPC ${served} (${server.framework}${proto})`,
        match: via ? `${via} + ${kind}` : kind,
        edge: `gRPC ${served}`,
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Message flows (rule 4)

/** What a named-channel broker calls its names, in the report. */
const CHANNEL_LABEL: Record<Exclude<Broker, 'rabbitmq'>, string> = {
  kafka: 'Kafka topic',
  celery: 'Celery task',
  bullmq: 'Bull queue',
  nats: 'NATS subject',
  sqs: 'SQS queue',
  sns: 'SNS topic',
  dapr: 'Dapr topic',
  sidekiq: 'Sidekiq worker',
  redis: 'Redis channel',
  dramatiq: 'Dramatiq actor',
  rq: 'RQ queue',
  mqtt: 'MQTT topic',
  laravel: 'Laravel job',
  activejob: 'Active Job',
};
const channelLabel = (b: Exclude<Broker, 'rabbitmq'>): string => CHANNEL_LABEL[b];

/**
 * Row wording as the broker sees the name (ADR 0072). A queue broker's name is the queue it is sent to and
 * read from (`publish to queue \`orders\` (SQS)`); the others publish a name that is no queue (a topic, a
 * channel, a task, worker or actor name: `publish Celery / \`tasks.add\``), consumed from a queue only where
 * one is known (Celery's, Dramatiq's and Sidekiq's queue of the task or job). Kafka and NATS keep their own wording.
 */
const QUEUE_BROKER: Partial<Record<Broker, string>> = { sqs: 'SQS', bullmq: 'Bull', rq: 'RQ' };
const NAME_BROKER: Partial<Record<Broker, string>> = {
  celery: 'Celery',
  sns: 'SNS',
  dapr: 'Dapr',
  sidekiq: 'Sidekiq',
  redis: 'Redis',
  dramatiq: 'Dramatiq',
  mqtt: 'MQTT',
  laravel: 'Laravel',
  activejob: 'Active Job',
};
/** A Dapr name `<pubsub>/<topic>`: the broker sees the topic; the pubsub component is the sidecar's. */
function daprParts(name: string): { pubsub: string; topic: string } | undefined {
  const i = name.indexOf('/');
  return i > 0 ? { pubsub: name.slice(0, i), topic: name.slice(i + 1) } : undefined;
}
/** The queue a Celery task, Dramatiq message, Sidekiq or Laravel job is sent to, when known (Publish.exchange). */
const taskQueue = (p: Publish): string =>
  (p.broker === 'celery' ||
    p.broker === 'dramatiq' ||
    p.broker === 'sidekiq' ||
    p.broker === 'laravel' ||
    p.broker === 'activejob') &&
  p.exchange
    ? p.exchange
    : '';

/** A named-channel publish, as its row's `calls` and a publisher gap's `what`. */
function channelPublish(p: Publish): string {
  const b = p.broker as Exclude<Broker, 'rabbitmq'>;
  const queueBroker = QUEUE_BROKER[b];
  if (queueBroker) return `publish to queue \`${p.key}\` (${queueBroker})`;
  const nameBroker = NAME_BROKER[b];
  if (!nameBroker) return `produce ${channelLabel(b)} \`${p.key}\``;
  const dapr = b === 'dapr' ? daprParts(p.key) : undefined;
  if (dapr) return `publish Dapr / \`${dapr.topic}\` (pubsub \`${dapr.pubsub}\`)`;
  const queue = taskQueue(p);
  return `publish ${nameBroker} / \`${p.key}\`${queue ? ` (queue \`${queue}\`)` : ''}`;
}

/** A named-channel consumer, as its row's `served` (with the queue its publisher sends to) or a consumer gap's `what`. */
function channelConsume(c: Consume, queue = ''): string {
  const b = c.broker as Exclude<Broker, 'rabbitmq'>;
  const queueBroker = QUEUE_BROKER[b];
  if (queueBroker) return `consume queue \`${c.queue}\` (${queueBroker})`;
  if (queue) return `consume queue \`${queue}\` (${channelLabel(b)} \`${c.queue}\`)`;
  const dapr = b === 'dapr' ? daprParts(c.queue) : undefined;
  if (dapr) return `consume Dapr topic \`${dapr.topic}\` (pubsub \`${dapr.pubsub}\`)`;
  return `consume ${channelLabel(b)} \`${c.queue}\``;
}

/**
 * A NATS publish as the server sees it: JetStream stores the subject in the stream the consumer reads
 * (`publish \`ORDERS\` / \`orders.created\``, stream / subject as exchange / key); core NATS has the subject only.
 */
const natsPublish = (subject: string, c: Consume): string =>
  c.jetStream ? `publish \`${c.jetStream}\` / \`${subject}\`` : `publish NATS / \`${subject}\``;
/** A NATS consumer's stream and durable name (JetStream) or queue group (core NATS). */
function natsConsumer(c: Consume): string {
  if (c.jetStream) return ` (JetStream stream \`${c.jetStream}\`${c.durable ? `, durable \`${c.durable}\`` : ''})`;
  return c.durable ? ` (queue group \`${c.durable}\`)` : '';
}

export function describeBinding(b: UsedBinding): string {
  if (b.broker !== 'rabbitmq')
    return `${channelLabel(b.broker)} \`${b.queue}\`${b.exchange ? ` on queue \`${b.exchange}\`` : ''}`;
  if (b.exchangeType === 'default') return `default exchange → queue \`${b.queue}\``;
  if (b.exchangeType === 'fanout' || b.exchangeType === 'headers')
    return `${b.exchangeType} exchange \`${b.exchange}\` → queue \`${b.queue}\``;
  return `${b.exchangeType} exchange \`${b.exchange}\` —\`${b.key}\`→ queue \`${b.queue}\``;
}

/** A binding in a few words, for a map's edge: `exchange / key → queue`, a topic or a channel's name. */
export function shortBinding(b: UsedBinding): string {
  if (b.broker === 'kafka') return `topic ${b.queue}`;
  if (b.broker !== 'rabbitmq') return `${b.broker} ${b.queue}`;
  if (b.exchangeType === 'default') return `(default) → ${b.queue}`;
  if (b.exchangeType === 'fanout' || b.exchangeType === 'headers') return `${b.exchange} → ${b.queue}`;
  return `${b.exchange} / ${b.key} → ${b.queue}`;
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

/** A name with a part only known at run time (`{}` where a value was computed): it matches nothing. */
export function isDynamicName(name: string): boolean {
  return name.includes('{}') || name.includes(HOLE);
}

/** A queue the broker names (declared without a name), by its declaration (`amq.gen@<file>:<line>`). */
const serverNamed = (queue: string): boolean => queue.startsWith(SERVER_NAMED_QUEUE);

interface Routed {
  readonly queue: string;
  readonly binding: UsedBinding;
}

/**
 * Whether a consumer takes a message of this routing key: an RPC entrypoint only the keys it answers, a
 * handler with routing-key patterns only the keys they match.
 */
const takes = (c: Consume, key: string): boolean =>
  (!c.rpcKeys || c.rpcKeys.includes(key)) &&
  (!c.routingKeys || c.routingKeys.some((k) => !isDynamicName(k) && !isDynamicName(key) && topicMatches(k, key)));

const sameLoc = (loc: Loc, at: Evidence, source: string): boolean =>
  at.source === source && at.file === loc.file && at.line === loc.line;

/**
 * A reply-to carried in a request: a publish whose routing key is a value's field known only at run time
 * (`payment.metadata.receiver`) in a source whose routes another source calls (an API link found) with a
 * request body naming that field (`MetadataSchema(receiver=config.service_name)` → `metadata.receiver` =
 * `OrderService`, resolved in the caller's configuration) is published with that value, when every such call
 * agrees on one. The field is matched on the key's path without its first name (the receiving code's own
 * variable: the request model, or the record stored from it), the longest path first.
 */
function carryRequestFields(sources: readonly SourceFacts[], topo: Topology, out: LinkResult): SourceFacts[] {
  if (!sources.some((s) => s.publishes.some((p) => p.keyRef !== undefined))) return [...sources];
  const bySource = new Map(sources.map((s) => [s.source, s] as const));
  /** Served source → body field path → the values its callers send (and the first call sending each path). */
  const sent = new Map<string, Map<string, Set<string>>>();
  const firstSent = new Map<string, Evidence>();
  for (const l of out.links) {
    if (l.kind !== 'api' || l.caller.source === l.servedBy.source) continue;
    const src = bySource.get(l.caller.source);
    const env = topo.env.get(l.caller.source);
    if (!src || !env) continue;
    for (const c of src.calls) {
      if (!c.body || c.loc.file !== l.caller.file || c.loc.line !== l.caller.line) continue;
      let fields = sent.get(l.servedBy.source);
      if (!fields) sent.set(l.servedBy.source, (fields = new Map<string, Set<string>>()));
      for (const [path, parts] of Object.entries(c.body)) {
        let values = fields.get(path);
        if (!values) fields.set(path, (values = new Set()));
        values.add(resolveParts(parts, env));
        const k = `${l.servedBy.source}|${path}`;
        const prev = firstSent.get(k);
        if (!prev || compareEvidence(l.caller, prev) < 0) firstSent.set(k, l.caller);
      }
    }
  }
  if (sent.size === 0) return [...sources];
  return sources.map((s) => {
    const fields = sent.get(s.source);
    if (!fields) return s;
    const valueOf = (ref: string): { key: string; keyFrom: string } | undefined => {
      const names = ref.split('.');
      for (let i = 1; i < names.length; i++) {
        const path = names.slice(i).join('.');
        const values = fields.get(path);
        if (!values) continue;
        const [v] = values;
        const by = firstSent.get(`${s.source}|${path}`)!;
        return values.size === 1 && v && !v.includes(HOLE) && !isDynamicName(v)
          ? { key: v, keyFrom: `key \`${ref}\` = request field \`${path}\` sent by ${by.source} ${by.file}:${by.line}` }
          : undefined;
      }
      return undefined;
    };
    let changed = false;
    const publishes = s.publishes.map((p) => {
      const v = p.keyRef && isDynamicName(p.key) ? valueOf(p.keyRef) : undefined;
      if (v === undefined) return p;
      changed = true;
      return { ...p, ...v };
    });
    return changed ? { ...s, publishes } : s;
  });
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
    // SQS queue URLs and ARNs, SNS topic ARNs: compared by the name they end with.
    for (const c of s.consumes)
      consumers.push({
        c: c.broker === 'sqs' || c.broker === 'sns' ? { ...c, queue: channelName(c.broker, c.queue) } : c,
        source: s.source,
      });
    for (const p of s.publishes)
      publishers.push({
        p: p.broker === 'sqs' || p.broker === 'sns' ? { ...p, key: channelName(p.broker, p.key) } : p,
        source: s.source,
      });
  }

  // A queue consumed by its name exists on the broker (consuming a missing queue fails), so the default
  // exchange, which binds every queue under its own name, delivers to it even when no attached source declares it.
  const consumedQueues = new Map<string, Evidence>();
  for (const { c, source } of consumers) {
    if (c.broker !== 'rabbitmq' || isDynamicName(c.queue) || serverNamed(c.queue) || c.queue === '') continue;
    const e = ev(source, c.loc);
    const prev = consumedQueues.get(c.queue);
    if (!prev || compareEvidence(e, prev) < 0) consumedQueues.set(c.queue, e);
  }

  const route = (p: Publish): Routed[] => {
    if (p.broker !== 'rabbitmq' || isDynamicName(p.exchange)) return [];
    const routed: Routed[] = [];
    if (p.exchange === '') {
      if (isDynamicName(p.key)) return routed;
      const at = declaredQueues.get(p.key) ?? consumedQueues.get(p.key);
      if (at)
        routed.push({
          queue: p.key,
          binding: { broker: 'rabbitmq', exchange: '', exchangeType: 'default', queue: p.key, key: p.key, at },
        });
      return routed;
    }
    const type = exchangeTypes.get(p.exchange) ?? 'direct';
    for (const { b, source } of bindings) {
      if (b.exchange !== p.exchange || isDynamicName(b.queue)) continue;
      const hit =
        type === 'fanout' || type === 'headers'
          ? true
          : isDynamicName(b.key)
            ? false // placeholders never match: a computed key equals no binding key
            : isDynamicName(p.key)
              ? p.anyKey === true // a key set per message may be any key a binding names
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
  // One row per (call site, consumer): a subscription naming two matching channels on one line is one flow.
  const flowRows = new Set<string>();
  const firstRow = (at: Evidence, what: string, cs: string, c: Consume): boolean => {
    const k = `${at.source}|${at.file}|${at.line}|${what}|${cs}|${c.loc.file}|${c.loc.line}`;
    if (flowRows.has(k)) return false;
    flowRows.add(k);
    return true;
  };
  for (const { p, source } of publishers) {
    const at = ev(source, p.loc);
    const what =
      p.broker !== 'rabbitmq'
        ? channelPublish(p)
        : p.exchange === ''
          ? `publish to queue \`${p.key}\` (default exchange)`
          : p.key === ''
            ? `publish \`${p.exchange}\``
            : `publish \`${p.exchange}\` / \`${p.key}\``;
    let reached = 0;
    const reasons: string[] = [];
    if (p.broker !== 'rabbitmq') {
      const label = channelLabel(p.broker);
      let untyped = 0;
      for (const { c, source: cs } of consumers) {
        if (c.broker !== p.broker || isDynamicName(p.key) || isDynamicName(c.queue)) continue;
        // NATS subscriptions match subjects with wildcards, Redis PSUBSCRIBE patterns by glob; the others by equal names.
        if (
          p.broker === 'nats'
            ? !subjectMatches(c.queue, p.key)
            : p.broker === 'redis'
              ? !globMatches(c.queue, p.key)
              : p.broker === 'mqtt'
                ? !mqttMatches(c.queue, p.key)
                : c.queue !== p.key
        )
          continue;
        // A Laravel job goes through its connection's driver: a worker reading another broker never sees it.
        if ((p.broker === 'laravel' || p.broker === 'activejob') && !sameDriver(p.connection, c.connection)) continue;
        // Both sides name their message types and none is shared: delivered, but no handler takes it.
        if (p.types && c.types && !p.types.some((t) => c.types!.includes(t))) {
          untyped++;
          continue;
        }
        reached++;
        fedConsumers.add(c);
        if (cs === source) continue;
        // A send naming no queue (`actor.send`, `perform_async`) goes to the queue its actor or worker declares.
        const queue = taskQueue(p) || c.taskQueue || '';
        const binding: UsedBinding = {
          broker: p.broker,
          exchange: queue,
          exchangeType: p.broker === 'kafka' ? 'kafka-topic' : 'channel',
          queue: c.queue,
          key: p.key,
          at,
        };
        const bk = `${p.broker}|${c.queue}|${p.key}|${binding.exchange}`;
        if (!usedBindings.has(bk)) usedBindings.set(bk, binding);
        if (!firstRow(at, what, cs, c)) continue;
        out.links.push({
          kind: 'message',
          caller: at,
          calls:
            p.broker === 'nats'
              ? natsPublish(p.key, c)
              : queue && !taskQueue(p)
                ? channelPublish({ ...p, exchange: queue })
                : what,
          servedBy: ev(cs, c.loc),
          served: p.broker === 'nats' ? `consume ${label} \`${c.queue}\`${natsConsumer(c)}` : channelConsume(c, queue),
          match:
            (c.queue === p.key
              ? `${label} \`${p.key}\` (its own binding)`
              : `${label} \`${c.queue}\` matches \`${p.key}\``) +
            (binding.exchange ? ` on queue \`${binding.exchange}\`` : '') +
            (p.keyFrom ? `; ${p.keyFrom}` : ''),
          edge: shortBinding(binding),
        });
      }
      if (reached === 0)
        reasons.push(
          isDynamicName(p.key)
            ? `dynamic key: the ${p.broker === 'kafka' ? 'topic' : 'name'} is only known at run time, and a placeholder matches no ${p.broker === 'kafka' ? 'topic' : 'consumer'}`
            : untyped
              ? `no consumer of ${label} \`${p.key}\` handles ${p.types!.map((t) => `\`${t}\``).join(', ')}`
              : `no consumer of ${label} \`${p.key}\``,
        );
    } else {
      const routed = route(p);
      if (!anyRabbitConfig) reasons.push('no binding configuration in any attached repository');
      else if (isDynamicName(p.exchange))
        reasons.push('dynamic key: the exchange is only known at run time, and a placeholder matches no exchange');
      else if (routed.length === 0 && isDynamicName(p.key))
        reasons.push(
          p.exchange === ''
            ? 'dynamic key: the queue is only known at run time, and a placeholder matches no queue'
            : `dynamic key: the routing key is only known at run time, and a placeholder matches no binding key of \`${p.exchange}\``,
        );
      else if (routed.length === 0)
        reasons.push(
          p.exchange === ''
            ? `queue \`${p.key}\` is declared nowhere`
            : p.key === ''
              ? `no binding routes \`${p.exchange}\` to a queue`
              : `no binding routes \`${p.exchange}\` / \`${p.key}\` to a queue`,
        );
      // One row per (call site, consumer): two bindings into one queue are one delivery path to it.
      const rowsOf = new Set<string>();
      for (const r of routed) {
        let queueReached = 0;
        let rpcOnly = false;
        for (const { c, source: cs } of consumers) {
          if (c.broker !== 'rabbitmq' || c.queue !== r.queue) continue;
          // A queue the broker named is only known to the connection that declared it: its source's.
          if (serverNamed(r.queue) && cs !== r.binding.at.source) continue;
          // An RPC entrypoint answers its own keys only (nameko: `<service>.<method>` on `rpc-<service>`).
          if (!takes(c, p.key)) {
            rpcOnly = true;
            continue;
          }
          reached++;
          queueReached++;
          fedConsumers.add(c);
          if (cs === source) continue;
          // A queue several subscriptions of one source consume: the one the binding was made at.
          const same = consumers.filter(
            (x) => x.source === cs && x.c.broker === 'rabbitmq' && x.c.queue === r.queue && takes(x.c, p.key),
          );
          // When both sides name their message types (NServiceBus handlers), the handler of the type published.
          const typed = p.types ? same.find((x) => x.c.types?.some((t) => p.types!.includes(t))) : undefined;
          const at_ = typed?.c ?? same.find((x) => sameLoc(x.c.loc, r.binding.at, cs))?.c ?? same[0]!.c;
          if (c !== at_) continue;
          const rowKey = `${cs}|${c.queue}`;
          if (rowsOf.has(rowKey)) continue;
          rowsOf.add(rowKey);
          const bk = `rabbitmq|${r.binding.exchange}|${r.queue}|${r.binding.key}|${serverNamed(r.queue) ? cs : ''}`;
          if (!usedBindings.has(bk)) usedBindings.set(bk, r.binding);
          if (!firstRow(at, what, cs, c)) continue;
          const via = describeBinding(r.binding);
          out.links.push({
            kind: 'message',
            caller: at,
            calls: what,
            servedBy: ev(cs, c.loc),
            served: `consume queue \`${c.queue}\``,
            match: `binding: ${via}${p.keyFrom ? `; ${p.keyFrom}` : ''}`,
            edge: shortBinding(r.binding),
          });
        }
        if (queueReached === 0)
          reasons.push(
            rpcOnly
              ? `no RPC entrypoint of queue \`${r.queue}\` answers \`${p.key}\``
              : `queue \`${r.queue}\` has no consumer`,
          );
      }
    }
    if (reached === 0 && !p.implicit) out.gaps.push({ side: 'publisher', at, what, reason: reasons.join('; ') });
  }

  for (const { c, source } of consumers) {
    // An RPC entrypoint nobody calls is an API without a caller here, not a lost message.
    if (fedConsumers.has(c) || c.rpcKeys) continue;
    // A dispatching service's own copy of a Laravel job class (it serialises it) is no lost consumer.
    if (
      c.broker === 'laravel' &&
      publishers.some((x) => x.source === source && x.p.broker === 'laravel' && x.p.key === c.queue)
    )
      continue;
    const at = ev(source, c.loc);
    const what = c.broker !== 'rabbitmq' ? channelConsume(c) : `consume queue \`${c.queue}\``;
    let reason: string;
    if (isDynamicName(c.queue))
      reason = `dynamic key: the ${c.broker === 'kafka' ? 'topic' : c.broker === 'rabbitmq' ? 'queue' : 'name'} is only known at run time, and a placeholder matches nothing`;
    else if (c.broker !== 'rabbitmq') reason = `no producer for ${channelLabel(c.broker)} \`${c.queue}\``;
    else if (!anyRabbitConfig) reason = 'no binding configuration in any attached repository';
    else if (
      !declaredQueues.has(c.queue) &&
      !bindings.some(({ b, source: bs }) => b.queue === c.queue && (!serverNamed(c.queue) || bs === source))
    )
      reason = `queue \`${c.queue}\` is bound to no exchange`;
    else reason = `no publisher routes to queue \`${c.queue}\``;
    out.gaps.push({ side: 'consumer', at, what, reason });
  }
  out.bindings.push(...usedBindings.values());
}

// ---------------------------------------------------------------------------------------------
// Shared data

/** `host/database` of a connection string (Mongo URL, JDBC URL, ADO.NET keywords), when it names both. */
export function databaseOf(value: string): string | undefined {
  if (value.includes(HOLE)) return undefined;
  const url = /^(?:jdbc:)?[a-z][a-z0-9+.:-]*:\/\/(?:[^@/]*@)?([^/?#]+)\/([^/?#;]+)/i.exec(value.trim());
  if (url) return `${url[1]!.replace(/:\d+$/, '').toLowerCase()}/${url[2]!.toLowerCase()}`;
  const host = /(?:^|;)\s*(?:server|host|data source)\s*=\s*([^;]+)/i.exec(value)?.[1];
  const db = /(?:^|;)\s*(?:database|initial catalog)\s*=\s*([^;]+)/i.exec(value)?.[1];
  if (host && db)
    return `${host
      .trim()
      .replace(/[:,]\d+$/, '')
      .toLowerCase()}/${db.trim().toLowerCase()}`;
  return undefined;
}

/**
 * The database a source's stores of one kind live in, from its configuration (its own, a config
 * server's, the deployment's): undefined when nothing says.
 */
function databaseOfSource(env: SourceEnv, kind: StoreKind): string | undefined {
  const value = (key: string): string | undefined => {
    const v = lookup(env, key);
    return v === undefined ? undefined : expand(env, v);
  };
  if (kind === 'collection') {
    const uri = value('spring.data.mongodb.uri');
    if (uri) return databaseOf(uri);
    const host = value('spring.data.mongodb.host');
    const db = value('spring.data.mongodb.database');
    if (host && db && !host.includes(HOLE) && !db.includes(HOLE)) return `${host.toLowerCase()}/${db.toLowerCase()}`;
    for (const { entry } of env.entries)
      if (/mongo/i.test(entry.key) && /^mongodb(\+srv)?:\/\//i.test(entry.value.trim()))
        return databaseOf(expand(env, entry.value));
    return undefined;
  }
  if (kind === 'table') {
    const url = value('spring.datasource.url') ?? value('DATABASE_URL');
    return url ? databaseOf(url) : undefined;
  }
  return undefined;
}

function linkData(sources: readonly SourceFacts[], topo: Topology, out: LinkResult): void {
  // store → database (or '' when unknown) → source → first evidence
  const stores = new Map<string, Map<string, Map<string, Evidence>>>();
  for (const s of sources) {
    const env = topo.env.get(s.source)!;
    const dbs = new Map<StoreKind, string>();
    for (const d of s.data) {
      const key = `${d.kind} \`${d.name.toLowerCase()}\``;
      if (!dbs.has(d.kind)) dbs.set(d.kind, databaseOfSource(env, d.kind) ?? '');
      const db = dbs.get(d.kind)!;
      const byDb = stores.get(key) ?? new Map<string, Map<string, Evidence>>();
      const bySource = byDb.get(db) ?? new Map<string, Evidence>();
      const e = ev(s.source, d.loc);
      const prev = bySource.get(s.source);
      if (!prev || compareEvidence(e, prev) < 0) bySource.set(s.source, e);
      byDb.set(db, bySource);
      stores.set(key, byDb);
    }
  }
  for (const [store, byDb] of stores) {
    const known = [...byDb.keys()].filter((k) => k !== '');
    if (known.length <= 1) {
      // One database (or none named): every touch is of the same store.
      const all = new Map<string, Evidence>();
      for (const bySource of byDb.values())
        for (const [src, e] of bySource) {
          const prev = all.get(src);
          if (!prev || compareEvidence(e, prev) < 0) all.set(src, e);
        }
      if (all.size >= 2) out.shared.push({ store, touchedBy: [...all.values()].sort(compareEvidence) });
      continue;
    }
    // Same name in different databases is not one store.
    for (const [db, bySource] of byDb) {
      if (bySource.size < 2) continue;
      out.shared.push({
        store: db ? `${store} in \`${db}\`` : store,
        touchedBy: [...bySource.values()].sort(compareEvidence),
      });
    }
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * A source deployed more than once with different environments: every value that depends on configuration
 * (a call's settings, a messaging name's `${X}`) is evaluated in each instance's environment, and a site
 * whose instances disagree becomes one site per distinct value (a worker deployed for `QUEUE_NAME=a` and
 * for `QUEUE_NAME=b` consumes both). Sites every instance agrees on are left as they are.
 */
function perInstance(s: SourceFacts, topo: Topology): SourceFacts {
  const envs = topo.instances.get(s.source);
  if (!envs) return s;
  const spread = <T>(list: readonly T[], variants: (x: T, env: SourceEnv) => T): T[] =>
    list.flatMap((x) => {
      const seen = new Map<string, T>();
      for (const env of envs) {
        const v = variants(x, env);
        seen.set(JSON.stringify(v), v);
      }
      return seen.size > 1 ? [...seen.values()] : [x];
    });
  // An instance that does not set a value has the one every instance would have (the merged environment).
  const merged = topo.env.get(s.source)!;
  const known = (text: string, ...order: SourceEnv[]): string | undefined =>
    order.map((env) => expand(env, text)).find((v) => !v.includes(HOLE));
  const named = (env: SourceEnv, text: string): string =>
    text.includes('${') ? (known(text, env, merged) ?? text) : text;
  const setting = (env: SourceEnv, p: Part): Part => {
    const key = 'env' in p ? p.env : 'config' in p ? p.config : undefined;
    if (key === undefined) return p;
    const value = [env, merged]
      .map((e) => {
        const v = lookup(e, key);
        return v === undefined ? undefined : expand(e, v, new Set([relaxedKey(key)]));
      })
      .find((v) => v !== undefined && !v.includes(HOLE));
    return value === undefined ? p : { lit: value };
  };
  return {
    ...s,
    calls: spread(s.calls, (c, env) => ({ ...c, url: c.url.map((p) => setting(env, p)) })),
    publishes: spread(s.publishes, (x, env) => ({ ...x, exchange: named(env, x.exchange), key: named(env, x.key) })),
    consumes: spread(s.consumes, (x, env) => ({ ...x, queue: named(env, x.queue) })),
    bindings: spread(s.bindings, (x, env) => ({
      ...x,
      exchange: named(env, x.exchange),
      queue: named(env, x.queue),
      key: named(env, x.key),
    })),
    queues: spread(s.queues, (x, env) => ({ ...x, name: named(env, x.name) })),
  };
}

const REACTIVE_CHANNEL = /^\$\{mp\.messaging\.(incoming|outgoing)\.([^.]+)\.topic:[^}]*\}$/;

/** A MicroProfile Reactive Messaging channel is broker traffic only where configuration gives it a connector or topic. */
function reactiveChannelBound(env: SourceEnv, name: string): boolean {
  const m = REACTIVE_CHANNEL.exec(name);
  if (!m) return true;
  const at = `mp.messaging.${m[1]}.${m[2]}`;
  return lookup(env, `${at}.connector`) !== undefined || lookup(env, `${at}.topic`) !== undefined;
}

const STREAM_BINDING = /^\$\{spring\.cloud\.stream\.bindings\.([^.]+)\.destination:[^}]*\}$/;

/**
 * Spring Cloud Stream bindings of a source whose binder is RabbitMQ (`spring.cloud.stream.rabbit.*`, a binder
 * of type `rabbit`, per binding or by default): the destination is a topic exchange the producer publishes to
 * with the destination as routing key; a consumer's group is the queue `<destination>.<group>` bound with `#`
 * (without a group, an anonymous queue of its own, `<destination>.anonymous.<source>` standing for the random
 * suffix). Bindings of the Kafka binder stay topics.
 */
function rabbitStream(s: SourceFacts, env: SourceEnv): SourceFacts {
  if (!s.publishes.some((x) => x.stream) && !s.consumes.some((x) => x.stream)) return s;
  const setting = (key: string): string | undefined => lookup(env, key)?.trim();
  const binderType = (name: string | undefined): string | undefined =>
    name === undefined ? undefined : (setting(`spring.cloud.stream.binders.${name}.type`) ?? name).toLowerCase();
  const rabbitOnly =
    [...env.relaxed.keys()].some(
      (k) => k.startsWith('spring.cloud.stream.rabbit.') || k.startsWith('spring.rabbitmq.'),
    ) &&
    ![...env.relaxed.keys()].some((k) => k.startsWith('spring.cloud.stream.kafka.') || k.startsWith('spring.kafka.'));
  const isRabbit = (binding: string): boolean => {
    const type =
      binderType(setting(`spring.cloud.stream.bindings.${binding}.binder`)) ??
      binderType(setting('spring.cloud.stream.default-binder'));
    return type !== undefined ? type.startsWith('rabbit') : rabbitOnly;
  };
  const bindingOf = (name: string): string | undefined => {
    const b = STREAM_BINDING.exec(name)?.[1];
    return b !== undefined && isRabbit(b) ? b : undefined;
  };
  const destination = (name: string): string => {
    const v = expand(env, name);
    return v.includes(HOLE) ? name : v;
  };
  const bindings = [...s.bindings];
  const exchanges = [...s.exchanges];
  const queues = [...s.queues];
  const publishes = s.publishes.map((x): Publish => {
    if (!x.stream || x.broker !== 'kafka' || bindingOf(x.key) === undefined) return x;
    const dest = destination(x.key);
    exchanges.push({ name: dest, type: 'topic', loc: x.loc });
    // A literal `routing-key-expression` (`'orders.created'`) replaces the destination as the routing key.
    const expr = setting(`spring.cloud.stream.rabbit.bindings.${bindingOf(x.key)!}.producer.routing-key-expression`);
    const literal = expr ? /^'([^']*)'$/.exec(expr)?.[1] : undefined;
    return { ...x, broker: 'rabbitmq', exchange: dest, key: literal ?? (expr ? '{}' : dest) };
  });
  const consumes = s.consumes.map((x): Consume => {
    const binding = x.stream && x.broker === 'kafka' ? bindingOf(x.queue) : undefined;
    if (binding === undefined) return x;
    const dest = destination(x.queue);
    const group = setting(`spring.cloud.stream.bindings.${binding}.group`);
    const queue = group ? `${dest}.${group}` : `${dest}.anonymous.${s.source}`;
    exchanges.push({ name: dest, type: 'topic', loc: x.loc });
    queues.push({ name: queue, loc: x.loc });
    const key = setting(`spring.cloud.stream.rabbit.bindings.${binding}.consumer.binding-routing-key`) ?? '#';
    bindings.push({ exchange: dest, queue, key, loc: x.loc });
    return { ...x, broker: 'rabbitmq', queue };
  });
  return { ...s, publishes, consumes, bindings, exchanges, queues };
}

/**
 * The queue each Celery task is sent to, as the broker sees it: the call's `queue=`, else the first
 * `task_routes` pattern (`*` globs) matching the task name, else `task_default_queue`, else `celery`. Routes
 * are the publishing source's configuration, else those of the one source that configures any (the worker's
 * shared `celeryconfig`).
 */
function celeryQueues(s: SourceFacts, env: SourceEnv, shared: readonly ConfigEntry[]): SourceFacts {
  if (!s.publishes.some((p) => p.broker === 'celery')) return s;
  const own = env.entries
    .map((e) => e.entry)
    .filter((e) => e.key.startsWith(CELERY_ROUTE) || e.key === CELERY_DEFAULT_QUEUE);
  const settings = own.length ? own : shared;
  const routes = settings
    .filter((e) => e.key.startsWith(CELERY_ROUTE))
    .map((e) => ({ glob: e.key.slice(CELERY_ROUTE.length), queue: e.value }));
  const fallback = settings.find((e) => e.key === CELERY_DEFAULT_QUEUE)?.value ?? 'celery';
  return {
    ...s,
    publishes: s.publishes.map((p) =>
      p.broker !== 'celery' || p.exchange
        ? p
        : { ...p, exchange: routes.find((r) => starGlobMatches(r.glob, p.key))?.queue ?? fallback },
    ),
  };
}

/**
 * Celery tasks named by their module path from the source's root (`worker.tasks.add`) that no call sends by that
 * name, where calls send a dotted tail of it (`send_task('tasks.add')`): the worker imports its modules from a
 * deeper root (`celery -A tasks` in `worker/`), so the task is that name. Only when one such task has that tail and
 * no task is already named so.
 */
function celeryModuleNames(sources: readonly SourceFacts[]): SourceFacts[] {
  const sent = new Set<string>();
  const named = new Set<string>();
  for (const s of sources) {
    for (const p of s.publishes) if (p.broker === 'celery') sent.add(p.key);
    for (const c of s.consumes) if (c.broker === 'celery') named.add(c.queue);
  }
  if (sent.size === 0) return [...sources];
  const tailOf = (name: string): string | undefined => {
    if (sent.has(name)) return undefined;
    const segs = name.split('.');
    // The longest tail first: a module and its function at least.
    for (let i = 1; i <= segs.length - 2; i++) {
      const tail = segs.slice(i).join('.');
      if (sent.has(tail)) return named.has(tail) ? undefined : tail;
    }
    return undefined;
  };
  const claims = new Map<string, number>();
  for (const s of sources)
    for (const c of s.consumes)
      if (c.broker === 'celery' && c.moduleNamed) {
        const t = tailOf(c.queue);
        if (t !== undefined) claims.set(t, (claims.get(t) ?? 0) + 1);
      }
  if (claims.size === 0) return [...sources];
  return sources.map((s) => {
    if (!s.consumes.some((c) => c.broker === 'celery' && c.moduleNamed)) return s;
    const consumes = s.consumes.map((c) => {
      const t = c.broker === 'celery' && c.moduleNamed ? tailOf(c.queue) : undefined;
      return t !== undefined && claims.get(t) === 1 ? { ...c, queue: t } : c;
    });
    return { ...s, consumes };
  });
}

/** Laravel queue drivers and Active Job adapters that queue nothing: the job runs in the dispatching process. */
const LARAVEL_INLINE = new Set(['sync', 'null', 'deferred', 'background', 'async', 'inline', 'test']);
/** Two Laravel drivers that may be one broker: equal, or either unknown (a run-time value, no configuration). */
const sameDriver = (a?: string, b?: string): boolean =>
  !a || !b || isDynamicName(a) || isDynamicName(b) || LARAVEL_INLINE.has(b) || a === b;

/**
 * Laravel queued jobs as the queue sees them (`extract/laravel.ts`). A dispatch of class X is a message only
 * when the dispatching source declares X as a queued job (`ShouldQueue`; it serialises its own class); it goes
 * through the connection the dispatch names, else the one the class declares, else the default one
 * (`config/queue.php` `default`, `QUEUE_CONNECTION` from the source's `.env`), to the queue the dispatch names
 * (`onQueue`), else the class's, else the connection's `queue` (`default`). A connection whose driver is `sync`
 * or `null` queues nothing. An event dispatched (`E::dispatch`, `event(new E)`) queues one job per queued listener
 * of E the source declares (the listener's class names the job). A job class's consumer is its source's worker,
 * on its default connection's driver.
 */
function laravelQueues(s: SourceFacts, env: SourceEnv): SourceFacts {
  if (!s.publishes.some((p) => p.broker === 'laravel') && !s.consumes.some((c) => c.broker === 'laravel')) return s;
  const value = (v: string): string => expand(env, v).replaceAll(HOLE, '{}');
  const setting = (key: string): string | undefined => {
    const e = s.config.find((c) => c.key === key);
    return e ? value(e.value) : undefined;
  };
  // Without `config/queue.php` (Laravel 11), the framework's own: `QUEUE_CONNECTION`, else `database`.
  const defaultConnection = setting(LARAVEL_DEFAULT_CONNECTION) ?? value('${QUEUE_CONNECTION:database}');
  // A connection's driver; the built-in connections are named after theirs.
  const driverOf = (conn: string): string => setting(`${LARAVEL_CONNECTION}${conn}.driver`) ?? conn;
  const queueOf = (conn: string): string => setting(`${LARAVEL_CONNECTION}${conn}.queue`) ?? 'default';
  const jobs = new Map<string, Consume>();
  for (const c of s.consumes) if (c.broker === 'laravel' && !jobs.has(c.queue)) jobs.set(c.queue, c);
  const publishes = s.publishes.flatMap((p): Publish[] => {
    if (p.broker !== 'laravel') return [p];
    // A job class, else an event whose queued listeners (`handle(E $event)`) the source queues one job each.
    const job = jobs.get(p.key);
    const targets = job ? [job] : s.consumes.filter((c) => c.broker === 'laravel' && c.types?.includes(p.key));
    return targets.flatMap((t): Publish[] => {
      const conn = value(p.connection ?? t.connection ?? defaultConnection);
      const driver = driverOf(conn);
      if (LARAVEL_INLINE.has(driver)) return [];
      const queue = value(p.exchange || t.taskQueue || queueOf(conn));
      return [{ ...p, key: t.queue, exchange: queue, connection: driver }];
    });
  });
  const worker = driverOf(defaultConnection);
  const consumes = s.consumes.map((c) => (c.broker === 'laravel' ? { ...c, connection: worker } : c));
  return { ...s, publishes, consumes };
}

/**
 * Rails Active Job as the queue sees it (`extract/active-job.ts`): `X.perform_later` is a message only when the
 * source declares X as a job (`< ApplicationJob`) and its adapter queues (`self.queue_adapter`, else
 * `config.active_job.queue_adapter`, a queueing one over `:inline`/`:async`/`:test` of another environment; none:
 * Rails' `:async`, in the process); the queue is `.set(queue:)`, else `queue_as`, else `default`. A job class's
 * consumer is its source's adapter's worker.
 */
function activeJobQueues(s: SourceFacts): SourceFacts {
  if (!s.publishes.some((p) => p.broker === 'activejob') && !s.consumes.some((c) => c.broker === 'activejob')) return s;
  const adapters = s.config.filter((e) => e.key === ACTIVE_JOB_ADAPTER).map((e) => e.value);
  const adapter = adapters.find((a) => !LARAVEL_INLINE.has(a)) ?? adapters[0] ?? 'async';
  const jobs = new Map<string, Consume>();
  for (const c of s.consumes) if (c.broker === 'activejob' && !jobs.has(c.queue)) jobs.set(c.queue, c);
  const publishes = s.publishes.flatMap((p): Publish[] => {
    if (p.broker !== 'activejob') return [p];
    const job = jobs.get(p.key);
    const via = job?.connection ?? adapter;
    if (!job || LARAVEL_INLINE.has(via)) return [];
    return [{ ...p, exchange: p.exchange || job.taskQueue || 'default', connection: via }];
  });
  // A class's own `self.queue_adapter` is the worker that runs it; else the source's adapter.
  const consumes = s.consumes.map((c) =>
    c.broker === 'activejob' ? { ...c, connection: c.connection ?? adapter } : c,
  );
  return { ...s, publishes, consumes };
}

/**
 * One row per (call site, target): two rules that reach the same call (a wrapper's summary and a field followed
 * across files) must not report it twice. The first of equal rows is kept.
 */
export function oneRowPerSite(links: readonly Link[]): Link[] {
  const seen = new Set<string>();
  return links.filter((l) => {
    const key = [l.kind, l.caller.source, l.caller.file, l.caller.line, l.calls]
      .concat([l.servedBy.source, l.servedBy.file, l.servedBy.line, l.served])
      .join('|');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Dapr input bindings: the sidecar of each app a binding component scopes (every app when it scopes none) reads the
 * component's topics and POSTs each message to the app's `/<component name>`; that route consumes them. An app is
 * the source named by the app-id or the one its host names; a component with no such route consumes nothing.
 */
function applyDaprBindings(sources: readonly SourceFacts[], topo: Topology): SourceFacts[] {
  const components = sources.flatMap((s) => s.daprBindings ?? []);
  if (!components.length) return [...sources];
  const extra = new Map<string, Consume[]>();
  for (const b of components) {
    const apps = b.scopes.length
      ? new Set(b.scopes.map((id) => sources.find((s) => s.source === id)?.source ?? hostSource(id, topo)))
      : new Set(sources.map((s) => s.source));
    const route = `/${b.name}`.toLowerCase();
    for (const s of sources) {
      if (!apps.has(s.source)) continue;
      for (const e of s.endpoints) {
        if ((e.method !== 'POST' && e.method !== 'ANY') || e.path.replace(/\/+$/, '').toLowerCase() !== route) continue;
        const list = extra.get(s.source) ?? [];
        for (const channel of b.channels)
          if (!list.some((c) => c.queue === channel && c.loc.file === e.loc.file && c.loc.line === e.loc.line))
            list.push({ broker: b.broker, queue: channel, loc: e.loc });
        extra.set(s.source, list);
      }
    }
  }
  return sources.map((s) => (extra.has(s.source) ? { ...s, consumes: [...s.consumes, ...extra.get(s.source)!] } : s));
}

export function link(sources: readonly SourceFacts[]): LinkResult {
  const sorted = instantiateBusSites(
    instantiateOutboxes(
      instantiateObjects(
        applyGoMounts(
          applyGoPackages(
            applyGoOptions(
              applyGatewayRoutes(
                applyApiInterfaces(
                  applyDeclaredClients(
                    celeryModuleNames(
                      applyChannelConstants(applyJsMessaging([...sources].sort((a, b) => cmp(a.source, b.source)))),
                    ),
                  ),
                ),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  const out: LinkResult = { links: [], bindings: [], unresolved: [], gaps: [], shared: [] };
  const topo = topology(sorted);
  // Context paths that only another repository's configuration gives (a config server's `orders.yml`).
  // Placeholders left in messaging names resolve against the effective configuration, then their default;
  // without either they are run-time values (`{}`), which match nothing.
  const celeryConfigured = sorted.filter((s) =>
    s.config.some((c) => c.key.startsWith(CELERY_ROUTE) || c.key === CELERY_DEFAULT_QUEUE),
  );
  const celerySettings = celeryConfigured.length === 1 ? celeryConfigured[0]!.config : [];
  const linked = sorted.map((s0) => {
    const env = topo.env.get(s0.source)!;
    const s = activeJobQueues(
      laravelQueues(celeryQueues(rabbitStream(perInstance(s0, topo), env), env, celerySettings), env),
    );
    const base = topo.basePaths.get(s.source);
    const name = (text: string): string => (text.includes('${') ? expand(env, text).replaceAll(HOLE, '{}') : text);
    const named = JSON.stringify([s.publishes, s.consumes, s.bindings, s.queues, s.exchanges]).includes('${');
    // `UsePathBase("/catalog-api")`: ASP.NET serves each route both under the base and without it.
    const pathBase = topo.pathBases.get(s.source);
    const endpoints = pathBase
      ? [
          ...s.endpoints,
          ...s.endpoints
            .filter((e) => e.framework.startsWith('aspnetcore'))
            .map((e) => ({ ...e, path: joinPath(pathBase, e.path) })),
        ]
      : s.endpoints;
    if (!base && !named) return pathBase ? { ...s, endpoints } : s;
    // Spring Cloud Stream bindings count only where the configuration says Spring Cloud Stream is used (a
    // `@Bean Consumer<T>` is not a binding otherwise).
    const stream = [...env.relaxed.keys()].some((k) => /^spring\.cloud\.(stream|function)\./.test(k));
    const kept = <T extends { stream?: boolean }>(list: readonly T[], name: (x: T) => string): T[] =>
      list.filter((x) => (stream || !x.stream) && reactiveChannelBound(env, name(x)));
    return {
      ...s,
      endpoints: base
        ? endpoints.map((e) =>
            e.framework === 'spring' || e.framework === 'spring-data-rest' ? { ...e, path: joinPath(base, e.path) } : e,
          )
        : endpoints,
      publishes: kept(s.publishes, (x) => x.key).map((x) => ({
        ...x,
        exchange: x.address ? addressExchange(name(x.exchange)) : name(x.exchange),
        key: name(x.key),
      })),
      consumes: kept(s.consumes, (x) => x.queue).map((x) => ({
        ...x,
        queue: name(x.queue),
        ...(x.durable?.includes('${') ? { durable: name(x.durable) } : {}),
      })),
      bindings: s.bindings.map((x) => ({ ...x, exchange: name(x.exchange), queue: name(x.queue), key: name(x.key) })),
      queues: s.queues.map((x) => ({ ...x, name: name(x.name) })),
      exchanges: s.exchanges.map((x) => ({ ...x, name: name(x.name) })),
    };
  });
  linkCalls(linked, topo, out);
  linkInfrastructure(linked, topo, out);
  linkGrpc(linked, topo, out);
  linkMessages(applyDaprBindings(carryRequestFields(linked, topo, out), topo), out);
  linkData(linked, topo, out);
  out.links.sort(
    (a, b) =>
      (a.kind === b.kind ? 0 : a.kind === 'api' ? -1 : 1) ||
      compareEvidence(a.caller, b.caller) ||
      compareEvidence(a.servedBy, b.servedBy) ||
      cmp(a.calls, b.calls),
  );
  out.links.splice(0, out.links.length, ...oneRowPerSite(out.links));
  out.unresolved.sort((a, b) => compareEvidence(a.caller, b.caller) || cmp(a.calls, b.calls));
  out.gaps.sort((a, b) => compareEvidence(a.at, b.at) || cmp(a.what, b.what));
  out.shared.sort((a, b) => cmp(a.store, b.store));
  out.bindings.sort(
    (a, b) => cmp(a.broker, b.broker) || cmp(a.exchange, b.exchange) || cmp(a.queue, b.queue) || cmp(a.key, b.key),
  );
  return out;
}
