import { LineCounter, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Node as YamlNode } from 'yaml';
import { type ConfigEntry, type HttpMethod, type ServiceDecl, OPENAPI_CONTRACT, emptyFacts } from '../model';
import { joinPath } from '../routes';
import { Sink, exchangeType } from './common';

/** A YAML/JSON value with the line it starts on. */
type Tree = { line: number } & (
  { kind: 'scalar'; value: string } | { kind: 'map'; entries: [string, Tree][] } | { kind: 'seq'; items: Tree[] }
);

function scalarText(v: unknown): string {
  return typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint'
      ? String(v)
      : '';
}

function toTree(node: YamlNode | null | undefined, lc: LineCounter): Tree | undefined {
  if (!node) return undefined;
  const line = node.range ? lc.linePos(node.range[0]).line : 0;
  if (isScalar(node)) return { line, kind: 'scalar', value: scalarText(node.value) };
  if (isMap(node)) {
    const entries: [string, Tree][] = [];
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
      const value = toTree(pair.value as YamlNode | null, lc);
      const keyLine =
        pair.key && (pair.key as YamlNode).range ? lc.linePos((pair.key as YamlNode).range![0]).line : line;
      if (key !== undefined) entries.push([key, value ?? { line: keyLine, kind: 'scalar', value: '' }]);
    }
    return { line, kind: 'map', entries };
  }
  if (isSeq(node))
    return {
      line,
      kind: 'seq',
      items: node.items.map((i) => toTree(i as YamlNode, lc)).filter((t): t is Tree => t !== undefined),
    };
  return undefined;
}

function parseTrees(text: string): Tree[] {
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [];
  return list.map((d) => toTree(d.contents as YamlNode, lc)).filter((t): t is Tree => t !== undefined);
}

const get = (t: Tree | undefined, key: string): Tree | undefined =>
  t?.kind === 'map' ? t.entries.find(([k]) => k === key)?.[1] : undefined;
const str = (t: Tree | undefined): string | undefined => (t?.kind === 'scalar' ? t.value : undefined);

function flatten(t: Tree, prefix: string, sep: string, file: string, out: ConfigEntry[], scope?: string): void {
  if (t.kind === 'scalar') {
    if (prefix) out.push({ key: prefix, value: t.value, loc: { file, line: t.line }, ...(scope ? { scope } : {}) });
  } else if (t.kind === 'map') {
    for (const [k, v] of t.entries) flatten(v, prefix ? `${prefix}${sep}${k}` : k, sep, file, out, scope);
  } else {
    t.items.forEach((v, i) => flatten(v, `${prefix}${sep}${i}`, sep, file, out, scope));
  }
}

const MAX_SCOPED_ENTRIES = 400;

/** Base names of configuration files a program reads for itself (Spring, ASP.NET, Helm, generic). */
const OWN_CONFIG = /^(application|bootstrap|config|settings|values|appsettings)([-._].*)?$/;

/**
 * The scope of a configuration file named after a service (`shared/orders.yml`, `orders.properties`
 * of a config-server repository), undefined for the files a program reads for itself.
 */
export function configScope(file: string): string | undefined {
  const base = file
    .split('/')
    .pop()!
    .replace(/\.(ya?ml|properties)$/i, '');
  if (OWN_CONFIG.test(base.toLowerCase()) || base.startsWith('.') || !/^[A-Za-z][\w.-]*$/.test(base)) return undefined;
  return base.toLowerCase();
}

function envList(t: Tree | undefined, file: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  if (t?.kind === 'map')
    for (const [k, v] of t.entries) out.push({ key: k, value: str(v) ?? '', loc: { file, line: v.line } });
  if (t?.kind === 'seq') {
    for (const item of t.items) {
      const s = str(item);
      if (s !== undefined && s.includes('='))
        out.push({
          key: s.slice(0, s.indexOf('=')),
          value: s.slice(s.indexOf('=') + 1),
          loc: { file, line: item.line },
        });
      // Kubernetes: - name: X  value: Y, or valueFrom a ConfigMap's or Secret's key.
      const name = str(get(item, 'name'));
      const value = str(get(item, 'value'));
      if (name !== undefined && value !== undefined) out.push({ key: name, value, loc: { file, line: item.line } });
      const from = get(item, 'valueFrom');
      for (const [field, kind] of [
        ['configMapKeyRef', 'configmap'],
        ['secretKeyRef', 'secret'],
      ] as const) {
        const ref = get(from, field);
        const bundle = str(get(ref, 'name'));
        const key = str(get(ref, 'key'));
        if (name !== undefined && bundle && key)
          out.push({ key: name, value: '', loc: { file, line: item.line }, ref: { bundle: `${kind}/${bundle}`, key } });
      }
    }
  }
  return out;
}

/** `dir/../x/./y` → `x/y` (paths of a source are relative to its root). */
export function filePath(dir: string, rel: string): string {
  const out: string[] = [];
  for (const seg of (rel.startsWith('/') ? rel : `${dir}/${rel}`).split('/')) {
    if (!seg || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return out.join('/');
}

/** A compose service's `env_file`: one path, a list of paths, or a list of `{ path }`. */
function envFiles(t: Tree | undefined, file: string): { bundle: string }[] {
  const dir = file.slice(0, Math.max(0, file.lastIndexOf('/')));
  const items = t?.kind === 'seq' ? t.items : t ? [t] : [];
  return items
    .map((i) => str(i) ?? str(get(i, 'path')))
    .filter((p): p is string => !!p)
    .map((p) => ({ bundle: `file/${filePath(dir, p)}` }));
}

function composeServices(doc: Tree, file: string): ServiceDecl[] {
  const services = get(doc, 'services');
  if (services?.kind !== 'map') return [];
  const out: ServiceDecl[] = [];
  // `docker compose` merges `compose.override.yml` over the base file: its values win.
  const override = /override/i.test(file.split('/').pop()!);
  for (const [name, svc] of services.entries) {
    const build = get(svc, 'build');
    // `dockerfile: Services/Catalog/Catalog.API/Dockerfile` under a shared context names the project's folders.
    const dockerDirs = (str(get(build, 'dockerfile')) ?? '').split('/').slice(0, -1);
    const targets = [
      str(build) ?? str(get(build, 'context')),
      str(get(svc, 'image')),
      str(get(svc, 'container_name')),
      ...dockerDirs.slice(-2).reverse(),
    ].filter((x): x is string => !!x);
    const files = envFiles(get(svc, 'env_file'), file);
    const mounts = bindMounts(get(svc, 'volumes'), file);
    const published = publishedPorts(get(svc, 'ports'));
    const context = str(build) ?? str(get(build, 'context'));
    const buildDir =
      context !== undefined
        ? filePath(file.slice(0, Math.max(0, file.lastIndexOf('/'))), [context, ...dockerDirs].join('/'))
        : '';
    out.push({
      name,
      targets,
      env: envList(get(svc, 'environment'), file),
      loc: { file, line: svc.line },
      ...(files.length ? { envFrom: files } : {}),
      ...(override ? { override } : {}),
      ...(mounts.length ? { mounts } : {}),
      ...(buildDir ? { buildDir } : {}),
      ...(published.length ? { published } : {}),
    });
  }
  return out;
}

/**
 * A compose service's published host ports: `"8080:80"`, `"127.0.0.1:8080:80/tcp"`, `{ published: 8080, target: 80 }`.
 * A container port alone (`"80"`, a random host port), a range or a variable is none.
 */
function publishedPorts(t: Tree | undefined): string[] {
  const out = new Set<string>();
  for (const item of t?.kind === 'seq' ? t.items : []) {
    const short = str(item);
    const parts = short?.replace(/\/\w+$/, '').split(':');
    const host = parts && parts.length >= 2 ? parts[parts.length - 2] : str(get(item, 'published'));
    if (host && /^\d{2,5}$/.test(host) && Number(host) > 0) out.add(String(Number(host)));
  }
  return [...out];
}

/**
 * A compose service's bind mounts (`- ./gw/web:/etc/envoy:ro`, or `{ type: bind, source: ./gw/web }`): each
 * host path resolved against the compose file's folder. Named volumes (no `.`, `/` or `~` in front) are not
 * files of any source and are left out.
 */
function bindMounts(t: Tree | undefined, file: string): string[] {
  const dir = file.slice(0, Math.max(0, file.lastIndexOf('/')));
  const out: string[] = [];
  for (const item of t?.kind === 'seq' ? t.items : []) {
    const short = str(item);
    const type = str(get(item, 'type'));
    const host = short !== undefined ? short.split(':')[0]! : type === 'bind' ? str(get(item, 'source')) : undefined;
    if (host && /^[./~]/.test(host)) out.push(filePath(dir, host.replace(/^~\/?/, '')));
  }
  return out;
}

/** A container's `envFrom`: whole ConfigMaps and Secrets, each with its optional `prefix`. */
function envFromList(t: Tree | undefined): { bundle: string; prefix?: string }[] {
  const out: { bundle: string; prefix?: string }[] = [];
  if (t?.kind === 'seq')
    for (const item of t.items) {
      const prefix = str(get(item, 'prefix'));
      for (const [field, kind] of [
        ['configMapRef', 'configmap'],
        ['secretRef', 'secret'],
      ] as const) {
        const name = str(get(get(item, field), 'name'));
        if (name) out.push({ bundle: `${kind}/${name}`, ...(prefix ? { prefix } : {}) });
      }
    }
  return out;
}

/**
 * A Secret's value is kept only when it is an address (`scheme://…`, `host:port`), and then only its scheme,
 * host and port: a deployment's hosts matter to the links, its passwords must never be stored or shown, and
 * URLs carry them in the user information, the path (webhook tokens) and the query (SAS signatures, `?api_key=`).
 * A URL that does not parse is dropped whole (`postgres://u:p/ss@db` would otherwise keep a password).
 */
function secretAddress(value: string): string | undefined {
  if (/^[a-z][\w+.-]*:\/\//i.test(value)) {
    let url: URL;
    try {
      url = new URL(value.trim());
    } catch {
      return undefined;
    }
    return url.host ? `${url.protocol}//${url.host}` : undefined;
  }
  return /^[a-z][a-z0-9.-]*:\d{2,5}$/i.test(value) ? value : undefined;
}

/** A program's own configuration file by its name: what a ConfigMap key mounted as a file is read as. */
const MOUNTED_FILE =
  /^(?:(?:application|bootstrap|appsettings|config|settings)([-._][\w.-]*)?\.(?:ya?ml|json|properties)|\.env|[\w.-]+\.conf)$/i;
/** A ConfigMap key holding a gateway's declarative configuration (Kong's `kong.yml`: `_format_version`). */
const mountedGateway = (key: string, v: Tree): boolean =>
  /\.(?:ya?ml|json)$/i.test(key) && /^\s*["']?_format_version["']?\s*:/m.test(str(v) ?? '');

/**
 * A ConfigMap key holding a whole file (`application.yml: |`, `appsettings.json: |`, `nginx.conf: |`):
 * the file read as if it were on disk (same readers), its entries kept in the bundle `configfile/<name>`
 * that the workloads mounting the ConfigMap as a volume receive. Lines point into the manifest.
 */
function mountedFile(key: string, v: Tree, bundle: string, file: string): ConfigEntry[] {
  const text = str(v);
  if (text === undefined || !(MOUNTED_FILE.test(key) || mountedGateway(key, v))) return [];
  const sub = new Sink(emptyFacts(bundle));
  if (/\.conf$/i.test(key)) extractNginx(text, key, sub);
  else if (/\.(properties|env)$/i.test(key) || key === '.env') extractKeyValues(text, key, sub);
  else extractStructured(text, key, sub);
  return sub.facts.config.map(({ scope: _scope, ...e }) => ({
    ...e,
    loc: { file, line: v.line + e.loc.line },
    bundle: `configfile/${bundle}`,
  }));
}

/** The data of a ConfigMap or Secret, as entries of its bundle. */
function bundleEntries(d: Tree, kind: 'ConfigMap' | 'Secret', file: string): ConfigEntry[] {
  const name = str(get(get(d, 'metadata'), 'name'));
  if (!name) return [];
  const bundle = `${kind.toLowerCase()}/${name}`;
  const out: ConfigEntry[] = [];
  const add = (t: Tree | undefined, decode: boolean): void => {
    if (t?.kind !== 'map') return;
    for (const [key, v] of t.entries) {
      let value = str(v);
      if (value === undefined) continue;
      if (kind === 'ConfigMap' && (MOUNTED_FILE.test(key) || mountedGateway(key, v))) {
        out.push(...mountedFile(key, v, name, file));
        continue;
      }
      if (decode) value = Buffer.from(value, 'base64').toString('utf8');
      if (kind === 'Secret') value = secretAddress(value);
      if (value !== undefined) out.push({ key, value, loc: { file, line: v.line }, bundle });
    }
  };
  add(get(d, 'data'), kind === 'Secret');
  if (kind === 'Secret') add(get(d, 'stringData'), false);
  return out;
}

/** A pod's volumes that hold ConfigMaps (`configMap.name`, or among a `projected` volume's sources), by volume name. */
function configMapVolumes(t: Tree | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const v of t?.kind === 'seq' ? t.items : []) {
    const name = str(get(v, 'name'));
    const sources = get(get(v, 'projected'), 'sources');
    const maps = [
      get(v, 'configMap'),
      ...(sources?.kind === 'seq' ? sources.items.map((x) => get(x, 'configMap')) : []),
    ]
      .map((m) => str(get(m, 'name')))
      .filter((m): m is string => !!m);
    if (name && maps.length) out.set(name, maps);
  }
  return out;
}

function kubernetes(docs: Tree[], file: string): ServiceDecl[] {
  const workloads: {
    labels: Map<string, string>;
    images: string[];
    env: ConfigEntry[];
    envFrom: { bundle: string; prefix?: string }[];
    name: string;
    line: number;
  }[] = [];
  for (const d of docs) {
    const kind = str(get(d, 'kind'));
    if (!kind || !/^(Deployment|StatefulSet|DaemonSet|Pod)$/.test(kind)) continue;
    const template = kind === 'Pod' ? d : get(get(d, 'spec'), 'template');
    const labels = new Map<string, string>();
    const l = get(get(template, 'metadata'), 'labels');
    if (l?.kind === 'map') for (const [k, v] of l.entries) labels.set(k, str(v) ?? '');
    const containers = get(get(template, 'spec'), 'containers');
    const images: string[] = [];
    const env: ConfigEntry[] = [];
    const envFrom: { bundle: string; prefix?: string }[] = [];
    const volumes = configMapVolumes(get(get(template, 'spec'), 'volumes'));
    if (containers?.kind === 'seq')
      for (const c of containers.items) {
        const image = str(get(c, 'image'));
        if (image) images.push(image);
        env.push(...envList(get(c, 'env'), file));
        envFrom.push(...envFromList(get(c, 'envFrom')));
        const mounts = get(c, 'volumeMounts');
        for (const m of mounts?.kind === 'seq' ? mounts.items : [])
          for (const cm of volumes.get(str(get(m, 'name')) ?? '') ?? []) envFrom.push({ bundle: `configfile/${cm}` });
      }
    workloads.push({ labels, images, env, envFrom, name: str(get(get(d, 'metadata'), 'name')) ?? '', line: d.line });
  }
  const out: ServiceDecl[] = [];
  const selected = new Set<(typeof workloads)[number]>();
  for (const d of docs) {
    if (str(get(d, 'kind')) !== 'Service') continue;
    const name = str(get(get(d, 'metadata'), 'name'));
    if (!name) continue;
    const selector = get(get(d, 'spec'), 'selector');
    const sel = selector?.kind === 'map' ? selector.entries.map(([k, v]) => [k, str(v) ?? ''] as const) : [];
    const matched = workloads.filter((w) => sel.length > 0 && sel.every(([k, v]) => w.labels.get(k) === v));
    for (const w of matched) selected.add(w);
    out.push({
      name,
      targets: [...matched.flatMap((w) => [...w.images, w.name]), ...sel.map(([, v]) => v)],
      env: matched.flatMap((w) => w.env),
      loc: { file, line: d.line },
      ...(matched.some((w) => w.envFrom.length) ? { envFrom: matched.flatMap((w) => w.envFrom) } : {}),
    });
  }
  // A workload that no Service of the file exposes (a worker, a front end behind an Ingress) still runs its
  // image with its env: the env applies to that repository, the workload name is not a host.
  for (const w of workloads)
    if (!selected.has(w) && (w.env.length > 0 || w.envFrom.length > 0) && w.images.length > 0)
      out.push({
        name: w.name,
        targets: [...w.images, w.name],
        env: w.env,
        loc: w.env[0]?.loc ?? { file, line: w.line },
        noHost: true,
        ...(w.envFrom.length ? { envFrom: w.envFrom } : {}),
      });
  return out;
}

function rabbitDefinitions(doc: Tree, file: string, sink: Sink): boolean {
  const exchanges = get(doc, 'exchanges');
  const queues = get(doc, 'queues');
  const bindings = get(doc, 'bindings');
  if (!exchanges && !queues && !bindings) return false;
  if (exchanges?.kind === 'seq')
    for (const x of exchanges.items) {
      const name = str(get(x, 'name'));
      const type = exchangeType(str(get(x, 'type')));
      if (name !== undefined && type) sink.exchange(name, type, { file, line: x.line });
    }
  if (queues?.kind === 'seq')
    for (const q of queues.items) {
      const name = str(get(q, 'name'));
      if (name) sink.queue(name, { file, line: q.line });
    }
  if (bindings?.kind === 'seq')
    for (const b of bindings.items) {
      const source = str(get(b, 'source'));
      const dest = str(get(b, 'destination'));
      const type = str(get(b, 'destination_type')) ?? 'queue';
      if (source !== undefined && dest && type === 'queue')
        sink.binding(source, dest, str(get(b, 'routing_key')) ?? '', { file, line: b.line });
    }
  return true;
}

/**
 * JSON with comments (`appsettings.json`, `ocelot.json` allow `//` and `/* … *\/`): the comments become blanks
 * of the same shape (lines stay true); text inside strings is kept (`"http://x"`). One pass.
 */
export function stripJsonComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      out += text.slice(start, ++i);
    } else if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) {
      const end = text[i + 1] === '/' ? text.indexOf('\n', i) : text.indexOf('*/', i + 2) + 2;
      const stop = end <= 1 || end < i ? text.length : end;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** YAML and JSON files: compose, Kubernetes, RabbitMQ definitions, appsettings, Spring application.yml. */
export function extractStructured(text: string, file: string, sink: Sink): void {
  let docs: Tree[];
  try {
    docs = parseTrees(/\.json$/i.test(file) && /\/[/*]/.test(text) ? stripJsonComments(text) : text);
  } catch {
    return;
  }
  const base = file.split('/').pop()!.toLowerCase();
  const isJson = base.endsWith('.json');
  if (docs.some((d) => openApiOperations(d, file, sink))) return;
  if (docs.some((d) => get(d, 'services')?.kind === 'map' && /compose/.test(base))) {
    for (const d of docs) sink.facts.services.push(...composeServices(d, file));
    for (const d of docs) traefikLabels(d, file, sink);
    return;
  }
  if (docs.some((d) => kongRoutes(d, file, sink) || traefikFile(d, file, sink))) return;
  if (docs.some((d) => str(get(d, 'apiVersion')) !== undefined && str(get(d, 'kind')) !== undefined)) {
    sink.facts.services.push(...kubernetes(docs, file));
    let n = 0;
    for (const d of docs) {
      const kind = str(get(d, 'kind'));
      if (kind === 'ConfigMap' || kind === 'Secret') sink.facts.config.push(...bundleEntries(d, kind, file));
      if (kind === 'Ingress') n = ingressRoutes(d, file, sink, n);
    }
    return;
  }
  if (isJson && docs[0] && rabbitDefinitions(docs[0], file, sink)) return;
  if (docs.some((d) => envoyRoutes(d, file, sink))) return;
  // ASP.NET `launchSettings.json`: the addresses `dotnet run` listens on, per profile that runs the project.
  if (base === 'launchsettings.json') {
    const profiles = get(docs[0], 'profiles');
    for (const [, profile] of profiles?.kind === 'map' ? profiles.entries : []) {
      const url = str(get(profile, 'applicationUrl'));
      if (url && str(get(profile, 'commandName')) === 'Project') (sink.facts.launchUrls ??= []).push(url);
    }
    return;
  }
  // Ocelot's `ocelot.json` (and its environment files) hold a gateway's routes.
  if (isJson && !/^(appsettings|ocelot).*\.json$/.test(base) && !/config/.test(base)) return;
  // Other YAML files may be a config repository's configuration of another service: kept with its scope.
  const scope = isJson ? undefined : configScope(file);
  if (!isJson && !scope && !/^(application|bootstrap|config|settings|values)/.test(base)) return;
  if (scope) {
    // A service's configuration is short; a large YAML of another name (an OpenAPI document, a data
    // file) is not configuration and is not kept.
    const entries: ConfigEntry[] = [];
    for (const d of docs) flatten(d, '', '.', file, entries, scope);
    if (entries.length <= MAX_SCOPED_ENTRIES && !docs.some((d) => get(d, 'openapi') ?? get(d, 'swagger')))
      sink.facts.config.push(...entries);
    return;
  }
  for (const d of docs) flatten(d, '', isJson ? ':' : '.', file, sink.facts.config, scope);
}

const OPENAPI_VERBS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

/**
 * An OpenAPI document's operations with an `operationId`: a contract-first server (quarkus-openapi-generator,
 * openapi-generator's `jaxrs-spec`/`spring` interfaces generated at build time, absent from the source) serves
 * them where a class of the same source implements a method of that name (`api-interfaces.ts`).
 */
function openApiOperations(doc: Tree, file: string, sink: Sink): boolean {
  if (!str(get(doc, 'openapi')) && !str(get(doc, 'swagger'))) return false;
  const paths = get(doc, 'paths');
  const basePath = str(get(doc, 'basePath')) ?? '';
  const ops: { name: string; method: HttpMethod; path: string; line: number }[] = [];
  for (const [path, item] of paths?.kind === 'map' ? paths.entries : [])
    for (const [verb, op] of item.kind === 'map' ? item.entries : []) {
      const name = str(get(op, 'operationId'));
      if (OPENAPI_VERBS.has(verb) && name)
        ops.push({ name, method: verb.toUpperCase() as HttpMethod, path: joinPath(basePath, path), line: op.line });
    }
  if (ops.length) (sink.facts.apiInterfaces ??= []).push({ name: OPENAPI_CONTRACT, ops, file });
  return true;
}

/** `.env` and `.properties`: `KEY=value` / `key: value` lines; `#` and `!` comments. */
export function extractKeyValues(text: string, file: string, sink: Sink): void {
  const scope = file.endsWith('.properties') ? configScope(file) : undefined;
  const lines = text.split(/\r?\n/);
  // Quarkus profiles: `%prod.key` is what the deployed program reads, before the plain key; other profiles
  // (`%dev.`, `%test.`) are not the deployment's.
  const prod: ConfigEntry[] = [];
  const plain: ConfigEntry[] = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('!')) return;
    const m = /^(?:export\s+)?((?:%[\w-]+\.)?[\w.\-:[\]"/]+)\s*[=:]\s*(.*)$/.exec(line);
    if (!m) return;
    const profile = /^%([\w-]+)\./.exec(m[1]!);
    if (profile && profile[1] !== 'prod') return;
    let value = m[2]!.trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    const key = profile ? m[1]!.slice(profile[0].length) : m[1]!;
    (profile ? prod : plain).push({ key, value, loc: { file, line: i + 1 }, ...(scope ? { scope } : {}) });
  });
  sink.facts.config.push(...prod, ...plain);
}

/** SQL files (migrations): tables per statement, on the statement's first line. */
export function extractSql(text: string, file: string, sink: Sink): void {
  // Comments become blanks of the same shape, so statement lines stay true and `;` in comments splits nothing.
  const source = text.replace(/\/\*[\s\S]*?\*\/|--[^\n]*/g, (c) => c.replace(/[^\n]/g, ' '));
  let line = 1;
  for (const stmt of source.split(';')) {
    const lead = /^\s*/.exec(stmt)![0];
    const startLine = line + (lead.match(/\n/g)?.length ?? 0);
    sink.sql(stmt, { file, line: startLine });
    line += stmt.match(/\n/g)?.length ?? 0;
  }
}

/**
 * nginx as a reverse proxy: `location /api/orders/ { proxy_pass http://orders:8080/; }` is written down as
 * the Spring Cloud Gateway route it amounts to (one reader of proxy routes): `Path=/api/orders/**`, the
 * location prefix stripped when `proxy_pass` carries a URI (nginx replaces the prefix by it), that URI
 * put in front. `upstream name { server host:port; }` names the host. Regex locations (`~`, `~*`) are
 * followed as the prefixes they amount to (`regexPrefixes`), and a `rewrite ^/prefix/(.*)$ /target/$1` in a
 * location strips the prefix and puts the target's in front.
 */
export function extractNginx(text: string, file: string, sink: Sink): void {
  const source = text.replace(/#[^\n]*/g, (c) => c.replace(/[^\n]/g, ' '));
  const lineAt = (i: number): number => (source.slice(0, i).match(/\n/g)?.length ?? 0) + 1;
  const upstreams = new Map<string, string>();
  for (const m of source.matchAll(/\bupstream\s+([\w.-]+)\s*\{([^{}]*)\}/g)) {
    const server = /\bserver\s+([^\s;]+)/.exec(m[2]!)?.[1];
    if (server) upstreams.set(m[1]!, server);
  }
  let n = 0;
  for (const m of source.matchAll(
    /\blocation\s+(?:(=|\^~|~\*?)\s+)?("[^"\n]*"|[^\s{]+)\s*\{((?:[^{}]|\$\{[^{}]*\})*)\}/g,
  )) {
    const pass = /\bproxy_pass\s+([a-z]+:\/\/[^\s;]+)\s*;/i.exec(m[3]!)?.[1];
    if (!pass) continue;
    const u = /^([a-z]+:\/\/)([^/]+)(\/.*)?$/i.exec(pass);
    if (!u) continue;
    const host = upstreams.get(u[2]!) ?? u[2]!;
    const regex = m[1]?.startsWith('~');
    // A regex location is followed when it starts with literal path text: each prefix it amounts to.
    const locations = regex
      ? regexPrefixes(m[2]!.replace(/^"|"$/g, ''))
      : m[2]!.startsWith('/')
        ? [{ path: m[2]!, exact: m[1] === '=' }]
        : [];
    // `rewrite ^/api/(.*)$ /$1 break;` in the location: the literal prefix replaced by the target's.
    const rw = /\brewrite\s+\^?((?:\/[\w.~-]*)*\/?)\(\.\*\)\$?\s+((?:\/[\w.~-]*)*?)\/?\$1\s*(?:break|last)?\s*;/.exec(
      m[3]!,
    );
    for (const { path: location, exact } of locations) {
      const segs = location.split('/').filter((x) => x.length > 0);
      const rewrite = rw
        ? { strip: rw[1]!.split('/').filter((x) => x.length > 0).length, prefixPath: rw[2] || '/' }
        : // proxy_pass with a URI replaces the matched prefix (a regex location's URI is nginx's error).
          u[3] !== undefined && !regex
          ? { strip: segs.length, prefixPath: u[3] }
          : {};
      proxyRoute(sink, file, n++, lineAt(m.index), {
        uri: `${u[1]!.toLowerCase() === 'https://' ? 'https://' : 'http://'}${host}`,
        path: exact ? location : `/${[...segs, '**'].join('/')}`,
        ...rewrite,
      });
    }
  }
}

/**
 * The path prefixes an nginx regex location amounts to: its literal text from the start (`^`), an
 * alternation of literal words expanded (`^/api/(orders|users)/` → `/api/orders`, `/api/users`), cut at
 * the last whole segment before the first other regex syntax; `$` right after the literal text makes it
 * exact. A regex that does not start with `/` (`\.php$`) is no prefix.
 */
export function regexPrefixes(re: string): { path: string; exact: boolean }[] {
  const body = re.replace(/^\^/, '').replace(/\\\//g, '/');
  const alt = /^([^()\\[.*+?{|$]*)\((?:\?:)?([\w./-]+(?:\|[\w./-]+)+)\)(.*)$/.exec(body);
  const forms = alt ? alt[2]!.split('|').map((w) => `${alt[1]!}${w}${alt[3]!}`) : [body];
  const out: { path: string; exact: boolean }[] = [];
  for (const f of forms) {
    const lit = /^[^()\\[.*+?{|$]*/.exec(f)![0];
    if (!lit.startsWith('/')) continue;
    const rest = f.slice(lit.length);
    if (rest === '$' || rest === '') {
      out.push({ path: lit, exact: rest === '$' });
      continue;
    }
    // Cut inside a segment (`^/api/ord.*`): the whole segments before it.
    const path = lit.endsWith('/') || /^[/]/.test(rest) ? lit : lit.slice(0, lit.lastIndexOf('/') + 1);
    out.push({ path: path.replace(/\/$/, '') || '/', exact: false });
  }
  return out;
}

/**
 * A reverse-proxy route of any gateway written down as the Spring Cloud Gateway route it amounts to, the
 * one form the link stage reads proxy routes in: `Path=` pattern, `StripPrefix=` and `PrefixPath=`.
 */
function proxyRoute(
  sink: Sink,
  file: string,
  n: number,
  line: number,
  r: { uri: string; path: string; strip?: number; prefixPath?: string },
): void {
  const key = `spring.cloud.gateway.routes.${n}`;
  const loc = { file, line };
  const entry = (k: string, value: string): void => {
    sink.facts.config.push({ key: `${key}.${k}`, value, loc });
  };
  entry('uri', r.uri);
  entry('predicates.0', `Path=${r.path}`);
  if (r.strip !== undefined) entry('filters.0', `StripPrefix=${r.strip}`);
  if (r.prefixPath !== undefined && r.prefixPath !== '/')
    entry('filters.1', `PrefixPath=${r.prefixPath.replace(/\/$/, '')}`);
}

/**
 * Envoy as a front proxy: each `route_config.virtual_hosts[].routes[]` with a `prefix` or `path` match and
 * a `route.cluster` forwards to the cluster's address (`load_assignment … socket_address.address`, or v2's
 * `hosts[].socket_address.address`; an
 * unresolved `${X}` defaulting to the cluster's name); `prefix_rewrite` replaces the matched prefix.
 * Routes keep their order (Envoy takes the first match). Regex matches are not followed.
 */
/**
 * A Kubernetes Ingress is the application's front door: each rule path forwards to its backend Service
 * (`networking.k8s.io/v1` `service.name`/`port.number`, or v1beta1 `serviceName`/`servicePort`), written as
 * the proxy route it amounts to (`Prefix` and `ImplementationSpecific` paths cover everything below them,
 * `Exact` the path alone); the ingress-nginx `rewrite-target: /` annotation strips the matched prefix. The
 * routes belong to the source holding the manifest, reached like any gateway (a front door).
 */
function ingressRoutes(doc: Tree, file: string, sink: Sink, start: number): number {
  let n = start;
  const items = (t: Tree | undefined): Tree[] => (t?.kind === 'seq' ? t.items : []);
  const annotations = get(get(doc, 'metadata'), 'annotations');
  const target = str(get(annotations, 'nginx.ingress.kubernetes.io/rewrite-target'));
  for (const rule of items(get(get(doc, 'spec'), 'rules')))
    for (const p of items(get(get(rule, 'http'), 'paths'))) {
      const backend = get(p, 'backend');
      const name = str(get(get(backend, 'service'), 'name')) ?? str(get(backend, 'serviceName'));
      const port =
        str(get(get(get(backend, 'service'), 'port'), 'number')) ?? str(get(backend, 'servicePort')) ?? undefined;
      const path = str(get(p, 'path')) ?? '/';
      if (!name || !path.startsWith('/') || /[()[\]*+?$^|\\]/.test(path)) continue;
      const segs = path.split('/').filter((x) => x.length > 0);
      const exact = str(get(p, 'pathType')) === 'Exact';
      proxyRoute(sink, file, n++, p.line, {
        uri: `http://${name}${port && /^\d+$/.test(port) ? `:${port}` : ''}`,
        path: exact ? path : `/${[...segs, '**'].join('/')}`,
        ...(target !== undefined && /^\/[\w/-]*$/.test(target) ? { strip: segs.length, prefixPath: target } : {}),
      });
    }
  return n;
}

function envoyRoutes(doc: Tree, file: string, sink: Sink): boolean {
  const res = get(doc, 'static_resources');
  if (!res) return false;
  const addresses = new Map<string, string>();
  const items = (t: Tree | undefined): Tree[] => (t?.kind === 'seq' ? t.items : []);
  for (const c of items(get(res, 'clusters'))) {
    const name = str(get(c, 'name'));
    for (const e of items(get(get(c, 'load_assignment'), 'endpoints')))
      for (const lb of items(get(e, 'lb_endpoints'))) {
        const a = str(get(get(get(get(lb, 'endpoint'), 'address'), 'socket_address'), 'address'));
        if (name && a && !addresses.has(name)) addresses.set(name, a);
      }
    // The v2 form (`hosts: [{ socket_address: { address: catalog-api } }]`), which eShopOnContainers writes.
    for (const h of items(get(c, 'hosts'))) {
      const a = str(get(get(h, 'socket_address'), 'address'));
      if (name && a && !addresses.has(name)) addresses.set(name, a);
    }
  }
  let n = 0;
  const visit = (t: Tree | undefined, depth: number): void => {
    if (!t || depth > 40) return;
    if (t.kind === 'seq') for (const i of t.items) visit(i, depth + 1);
    if (t.kind !== 'map') return;
    const vhosts = get(get(t, 'route_config'), 'virtual_hosts');
    for (const vh of items(vhosts))
      for (const r of items(get(vh, 'routes'))) {
        const match = get(r, 'match');
        const route = get(r, 'route');
        const cluster = str(get(route, 'cluster'));
        const prefix = str(get(match, 'prefix'));
        const path = str(get(match, 'path'));
        if (!cluster || (prefix === undefined && path === undefined)) continue;
        const address = addresses.get(cluster) ?? cluster;
        const host = address.replace(/^\$\{([\w.-]+)\}$/, `\${$1:${cluster}}`);
        const segs = (prefix ?? path)!.split('/').filter((x) => x.length > 0);
        const rewrite = str(get(route, 'prefix_rewrite'));
        proxyRoute(sink, file, n++, r.line, {
          uri: `http://${host}`,
          path: prefix !== undefined ? `/${[...segs, '**'].join('/')}` : path!,
          ...(rewrite !== undefined && prefix !== undefined ? { strip: segs.length, prefixPath: rewrite } : {}),
        });
      }
    for (const [, v] of t.entries) visit(v, depth + 1);
  };
  visit(res, 0);
  return true;
}

/**
 * Settings a program's command line carries (`--server.port=8080`, `--urls http://+:80`, `--port 3000`,
 * `-Dspring.profiles.active=docker`), as configuration entries: Spring Boot and ASP.NET Core read their
 * arguments as configuration, above their files. Flags without a value and positional arguments say nothing.
 */
export function argumentSettings(tokens: readonly string[], loc: { file: string; line: number }): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const m = /^(?:-D|--)([A-Za-z][\w.:-]*)(?:=(.*))?$/.exec(t);
    if (!m) continue;
    let value = m[2];
    const next = tokens[i + 1];
    // `--urls http://+:80`: a long option followed by a value that is not itself an option.
    if (value === undefined && t.startsWith('--') && next !== undefined && !next.startsWith('-')) value = tokens[++i];
    if (value !== undefined)
      out.push({ key: m[1]!, value: value.replace(/^(["'])(.*)\1$/, '$2'), loc, argument: true });
  }
  return out;
}

/** The words of a Dockerfile instruction: the JSON exec form (`["java", "-jar", …]`) or the shell form. */
function instructionWords(body: string): string[] {
  if (body.startsWith('[')) {
    try {
      const list: unknown = JSON.parse(body);
      if (Array.isArray(list)) return list.filter((x): x is string => typeof x === 'string');
    } catch {
      // not JSON: read as the shell form
    }
  }
  return [...body.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((w) => w[1] ?? w[2] ?? w[3]!);
}

/**
 * Dockerfile `ENV KEY=value …` / `ENV KEY value`: defaults of the image's environment; `-D` settings inside
 * `JAVA_OPTS`-like values and the arguments of `CMD`/`ENTRYPOINT` (`--server.port=…`, `--urls …`,
 * `-Dspring.profiles.active=…`): the program's command-line configuration.
 */
export function extractDockerfileEnv(text: string, file: string, sink: Sink): void {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i]!;
    while (line.endsWith('\\') && i + 1 < lines.length) line = line.slice(0, -1) + ' ' + lines[++i]!;
    const loc = { file, line: start + 1 };
    const cmd = /^\s*(?:CMD|ENTRYPOINT)\s+(.+)$/i.exec(line);
    if (cmd) {
      sink.facts.config.push(...argumentSettings(instructionWords(cmd[1]!.trim()), loc));
      continue;
    }
    const m = /^\s*ENV\s+(.+)$/i.exec(line);
    if (!m) continue;
    const body = m[1]!.trim();
    const entries: ConfigEntry[] = [];
    if (!body.includes('=')) {
      const kv = /^(\S+)\s+(.*)$/.exec(body);
      if (kv) entries.push({ key: kv[1]!, value: kv[2]!.replace(/^(["'])(.*)\1$/, '$2'), loc });
    } else
      for (const kv of body.matchAll(/([\w.-]+)=("([^"]*)"|'([^']*)'|\S*)/g))
        entries.push({ key: kv[1]!, value: kv[3] ?? kv[4] ?? kv[2]!, loc });
    sink.facts.config.push(...entries);
    for (const e of entries)
      if (/JAVA_(TOOL_)?OPTS|JAVA_OPTIONS|_OPTS$/i.test(e.key))
        sink.facts.config.push(...argumentSettings(instructionWords(e.value), loc).filter((x) => x.key !== e.key));
  }
}

/** The next free index of proxy routes in the source (several gateway files never share an index). */
function nextRoute(sink: Sink): number {
  let n = 0;
  for (const c of sink.facts.config) {
    const m = /^spring\.cloud\.gateway\.routes\.(\d+)\./.exec(c.key);
    if (m) n = Math.max(n, Number(m[1]) + 1);
  }
  return n;
}

const segsOf = (path: string): string[] => path.split('/').filter((x) => x.length > 0);

/**
 * Kong's declarative configuration (`kong.yml`, `_format_version`): each route of a service forwards its
 * `paths` prefixes to the service's `url` (or `protocol`/`host`/`port`/`path`); `strip_path` (Kong's default:
 * true) removes the matched prefix and the service's path goes in front. Regex paths (`~…`) are not followed.
 */
function kongRoutes(doc: Tree, file: string, sink: Sink): boolean {
  const services = get(doc, 'services');
  if (str(get(doc, '_format_version')) === undefined || services?.kind !== 'seq') return false;
  let n = nextRoute(sink);
  for (const svc of services.items) {
    const url = str(get(svc, 'url'));
    const host = str(get(svc, 'host'));
    const u = url ? /^([a-z]+):\/\/([^/]+)(\/.*)?$/i.exec(url) : null;
    const protocol = u?.[1] ?? str(get(svc, 'protocol')) ?? 'http';
    const authority =
      u?.[2] ?? (host ? `${host}${str(get(svc, 'port')) ? `:${str(get(svc, 'port'))!}` : ''}` : undefined);
    if (!authority) continue;
    const servicePath = u?.[3] ?? str(get(svc, 'path')) ?? '/';
    const routes = get(svc, 'routes');
    for (const r of routes?.kind === 'seq' ? routes.items : []) {
      const paths = get(r, 'paths');
      const strip = str(get(r, 'strip_path')) !== 'false';
      for (const p of paths?.kind === 'seq' ? paths.items : []) {
        const path = str(p);
        if (!path?.startsWith('/')) continue;
        const segs = segsOf(path);
        proxyRoute(sink, file, n++, p.line, {
          uri: `${protocol === 'https' ? 'https' : 'http'}://${authority}`,
          path: `/${[...segs, '**'].join('/')}`,
          ...(strip ? { strip: segs.length, prefixPath: servicePath } : { prefixPath: servicePath }),
        });
      }
    }
  }
  return true;
}

/** The path prefix of a Traefik rule (`Host(`x`) && PathPrefix(`/api`)`, `Path(`/x`)`), when it has one. */
function traefikRulePath(rule: string): { path: string; exact: boolean } | undefined {
  const m = /\b(PathPrefix|Path)\(\s*[`'"]([^`'"]+)[`'"]/.exec(rule);
  return m ? { path: m[2]!, exact: m[1] === 'Path' } : undefined;
}

/** A Traefik route written down as a proxy route: the stripPrefix middleware removes the rule's prefix. */
function traefikRoute(sink: Sink, file: string, line: number, rule: string, uri: string, stripped: string[]): void {
  const rp = traefikRulePath(rule);
  if (!rp) return;
  const segs = segsOf(rp.path);
  const strip = stripped.find((x) => segsOf(x).join('/') === segs.join('/'));
  proxyRoute(sink, file, nextRoute(sink), line, {
    uri,
    path: rp.exact ? rp.path : `/${[...segs, '**'].join('/')}`,
    ...(strip !== undefined ? { strip: segs.length } : {}),
  });
}

/**
 * Traefik's file provider (`http.routers.<r>.rule`/`service`/`middlewares`, `http.services.<s>.loadBalancer
 * .servers[].url`, `http.middlewares.<m>.stripPrefix.prefixes`).
 */
function traefikFile(doc: Tree, file: string, sink: Sink): boolean {
  const http = get(doc, 'http');
  const routers = get(http, 'routers');
  if (routers?.kind !== 'map') return false;
  const services = get(http, 'services');
  const middlewares = get(http, 'middlewares');
  const list = (t: Tree | undefined): string[] =>
    t?.kind === 'seq' ? t.items.flatMap((x) => str(x) ?? []) : (str(t)?.split(',') ?? []).map((x) => x.trim());
  for (const [, r] of routers.entries) {
    const rule = str(get(r, 'rule'));
    const svc = (str(get(r, 'service')) ?? '').replace(/@.*$/, '');
    const servers = get(get(get(services, svc), 'loadBalancer'), 'servers');
    const url = servers?.kind === 'seq' ? str(get(servers.items[0], 'url')) : undefined;
    if (!rule || !url) continue;
    const stripped = list(get(r, 'middlewares')).flatMap((m) =>
      list(get(get(get(middlewares, m.replace(/@.*$/, '')), 'stripPrefix'), 'prefixes')),
    );
    traefikRoute(sink, file, r.line, rule, url.replace(/\/+$/, ''), stripped);
  }
  return true;
}

/**
 * Traefik's Docker provider: a compose service labelled `traefik.http.routers.<r>.rule=PathPrefix(`/x`)`
 * is the router's target (`http://<service>:<loadbalancer.server.port>`); `stripprefix` middlewares of the
 * labels remove the prefix.
 */
function traefikLabels(doc: Tree, file: string, sink: Sink): void {
  const services = get(doc, 'services');
  if (services?.kind !== 'map') return;
  const all = new Map<string, { name: string; labels: Map<string, string>; line: number }>();
  for (const [name, svc] of services.entries) {
    const l = get(svc, 'labels') ?? get(get(svc, 'deploy'), 'labels');
    const labels = new Map<string, string>();
    if (l?.kind === 'map') for (const [k, v] of l.entries) labels.set(k.toLowerCase(), str(v) ?? '');
    if (l?.kind === 'seq')
      for (const x of l.items) {
        const t = str(x) ?? '';
        const eq = t.indexOf('=');
        if (eq > 0) labels.set(t.slice(0, eq).trim().toLowerCase(), t.slice(eq + 1).trim());
      }
    if ([...labels.keys()].some((k) => k.startsWith('traefik.http.routers.')))
      all.set(name, { name, labels, line: svc.line });
  }
  // Middlewares may be declared on any service's labels.
  const strips = new Map<string, string[]>();
  for (const { labels } of all.values())
    for (const [k, v] of labels) {
      const m = /^traefik\.http\.middlewares\.([^.]+)\.stripprefix\.prefixes$/.exec(k);
      if (m)
        strips.set(
          m[1]!,
          v.split(',').map((x) => x.trim()),
        );
    }
  for (const { name, labels, line } of all.values()) {
    const port = [...labels].find(([k]) => /^traefik\.http\.services\.[^.]+\.loadbalancer\.server\.port$/.test(k))?.[1];
    for (const [k, rule] of labels) {
      const m = /^traefik\.http\.routers\.([^.]+)\.rule$/.exec(k);
      if (!m) continue;
      const mws = (labels.get(`traefik.http.routers.${m[1]!}.middlewares`) ?? '')
        .split(',')
        .map((x) => x.trim().replace(/@.*$/, ''));
      traefikRoute(
        sink,
        file,
        line,
        rule,
        `http://${name}${port ? `:${port}` : ''}`,
        mws.flatMap((x) => strips.get(x) ?? []),
      );
    }
  }
}
