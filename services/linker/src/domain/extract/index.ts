import type { Endpoint, Loc, Mount, ObjMethod, Part, SourceFacts } from '../model';
import { applyGoNetRpc } from './go-net-rpc';
import { emptyFacts } from '../model';
import { type CodeLanguage, languageOf } from '../parsers';
import { isSpringBaseKey, relaxedKey } from '../link';
import { joinPath } from '../routes';
import {
  FIELD_REF,
  HOLE_PART,
  declaredQueueName,
  type HttpWrapper,
  SECTION_REF,
  isFieldRef,
  type MessageWrapper,
  type WrapperSite,
  Sink,
  applyEntityTables,
  streamDestination,
  concat,
  expandAlternatives,
  fieldRefOf,
  httpMethod,
  literal,
  instantiateReturns,
  instantiationBudget,
  nameOf,
  routePath,
  SOURCE_EXCHANGE,
} from './common';
import { extractProto } from './grpc';
import { IMPORTED_CLIENT, MODULE_BASE, MODULE_ELSE } from './javascript';
import { exportNestConstants, resolveNestMicroservices } from './nest-micro';
import { IMPLICIT_DATA_REST } from './java';
import { extractChannels, sidecarPublishes } from './channels';
import { type GeneratedOperation, linkGeneratedOperations } from './generated-clients';
import { CONSTANT_MARK, type EventuateFile, linkEventuate } from './eventuate';
import { HelmCharts } from './helm';
import { extractDockerfileEnv, extractKeyValues, extractNginx, extractSql, extractStructured } from './config';
import { npmDependencies } from './fs-routes';
import { jsPackage } from './js-modules';
import { type CodeFileJob, type CodeFileResult, extractCodeFile } from './code-file';
import { projectDefines } from './csharp-preprocess';
import { PARAM_REF } from './objects';

export interface SourceFile {
  /** Path relative to the source root, `/`-separated. */
  readonly path: string;
  read(): Promise<string>;
}

export interface ExtractOptions {
  /** Test folders and files are ignored unless this is set. */
  readonly includeTests?: boolean;
  /** Longer texts are left out (default 1 MiB: LINKER_MAX_FILE_BYTES). */
  readonly maxFileBytes?: number;
  /** A file whose tree-sitter parse takes longer is skipped and listed (default 10 s: LINKER_PARSE_BUDGET_MS). */
  readonly parseBudgetMs?: number;
  /** Extracts one code file (default: in this thread; a parse pool's `run` extracts in its workers). */
  readonly runCode?: (job: CodeFileJob) => Promise<CodeFileResult>;
  /** Code files extracted at once, ahead of the merge in file order (default 1; a pool: a few per worker). */
  readonly window?: number;
}

const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  'dist',
  'build',
  'bin',
  'obj',
  'target',
  'vendor',
  '.venv',
  'venv',
  '__pycache__',
  '.next',
  'coverage',
  '.idea',
  '.vscode',
]);
// api-spec/: API test harnesses (Dredd hooks and the like) that call every service: not application code.
// `src/contractTest/`, `src/integrationTest/`: Gradle test source sets.
const TEST_DIRS =
  /^(test|tests|__tests__|spec|specs|e2e|testdata|fixtures|__mocks__|api-specs?|dredd)$|[._-][Tt]ests?$|[a-z]Tests?$/;
const TEST_FILES = /(\.(test|spec)\.[cm]?[jt]sx?$)|(_test\.go$)|(^test_.*\.py$)|(_test\.py$)|(Tests?\.(cs|java)$)/;
/** Files of in-memory sources larger than this are left out (the disk listing skips them before reading). */
const MAX_FILE_BYTES = 1024 * 1024;
export const DEFAULT_PARSE_BUDGET_MS = 10_000;
/** npm packages that make a source a page's script, unless it also runs a server of its own. */
const BROWSER_FRAMEWORKS = ['@angular/core', 'vue', 'react', 'react-dom', 'svelte', 'preact'];
const SERVER_FRAMEWORKS = [
  'express',
  'next',
  'nuxt',
  'fastify',
  'koa',
  '@nestjs/core',
  '@sveltejs/kit',
  'hapi',
  '@hapi/hapi',
];

export function isIgnoredDir(name: string, includeTests: boolean): boolean {
  return SKIP_DIRS.has(name) || (!includeTests && (TEST_DIRS.test(name) || /^(test|tests|spec|specs)$/i.test(name)));
}

export function isIgnoredFile(path: string, includeTests: boolean): boolean {
  const segs = path.split('/');
  const base = segs[segs.length - 1]!;
  if (segs.slice(0, -1).some((d) => isIgnoredDir(d, includeTests))) return true;
  if (/\.min\.js$|\.bundle\.js$/.test(base)) return true; // generated, not source
  return !includeTests && TEST_FILES.test(base);
}

type ConfigKind = 'structured' | 'kv' | 'sql' | 'nginx' | 'dockerfile' | 'proto';
type Kind = { code: CodeLanguage } | { config: ConfigKind };

/** The extractor of each kind of configuration (or schema) file. */
const CONFIG_EXTRACTORS: Record<ConfigKind, (text: string, path: string, sink: Sink) => void> = {
  structured: extractStructured,
  kv: extractKeyValues,
  sql: extractSql,
  nginx: extractNginx,
  dockerfile: extractDockerfileEnv,
  proto: extractProto,
};

/**
 * Maven and Gradle build files: read for the dependencies that change what the code serves; C# project files for
 * the assembly each project's types belong to; `go.mod` for the module path its packages are imported by.
 */
const BUILD_FILE = /(^|\/)(pom\.xml|build\.gradle(\.kts)?|[^/]+\.csproj|go\.mod)$/;
const DATA_REST_DEPENDENCY = /spring-boot-starter-data-rest|spring-data-rest-webmvc/;

/** Whether extraction reads a file at all: code and configuration, and the build files it looks into. */
export function isReadPath(path: string): boolean {
  return kindOf(path) !== undefined || BUILD_FILE.test(path);
}

export function kindOf(path: string): Kind | undefined {
  const code = languageOf(path);
  if (code) return { code };
  // Vue single-file components: their <script> block (see vueScript).
  if (path.endsWith('.vue')) return { code: 'javascript' };
  const base = path.split('/').pop()!.toLowerCase();
  if (/\.(ya?ml|json)$/.test(base)) return { config: 'structured' };
  if (base === '.env' || base.startsWith('.env.') || base.endsWith('.env') || base.endsWith('.properties'))
    return { config: 'kv' };
  if (base.endsWith('.sql')) return { config: 'sql' };
  if (base.endsWith('.proto')) return { config: 'proto' };
  // nginx configuration (`nginx.conf`, `conf.d/default.conf`, envsubst templates `default.conf.template`).
  if (/\.conf(\.template)?$|^nginx.*\.template$/.test(base)) return { config: 'nginx' };
  if (/^dockerfile([._-].*)?$|\.dockerfile$/.test(base)) return { config: 'dockerfile' };
  return undefined;
}

/** Parses one source's files into facts (the parse stage). */
export async function extractSource(
  source: string,
  files: Iterable<SourceFile> | AsyncIterable<SourceFile>,
  options: ExtractOptions = {},
): Promise<SourceFacts> {
  const facts = emptyFacts(source);
  const sink = new Sink(facts);
  const includeTests = options.includeTests ?? false;
  const constants = new Map<string, Part[] | null>();
  let files_ = 0;
  let parsed = 0;
  // File-system routes wait for the source's package.json to say which framework it uses.
  const npmDeps = new Set<string>();
  // Spring Data REST exports unannotated repositories too, once the build (Maven, Gradle) depends on it.
  let dataRest = false;
  const fsRoutes: { marker: string; endpoints: Endpoint[] }[] = [];
  const helm = new HelmCharts();
  const generatedOps: GeneratedOperation[] = [];
  const generatedBases: { dir: string; path: string }[] = [];
  const eventuate: EventuateFile[] = [];
  const calledOps = new Set<string>();
  /** C# projects: folder (with its `/`, '' at the root) → assembly name. */
  const projects: { dir: string; assembly: string }[] = [];
  /** C# projects' `DefineConstants`: folder (with its `/`) → symbols, read ahead when the files are a list. */
  const defineSets: { dir: string; defines: string[] }[] = [];
  const takeDefines = (path: string, text: string): void => {
    const dir = path.slice(0, path.lastIndexOf('/') + 1);
    if (defineSets.some((d) => d.dir === dir)) return;
    defineSets.push({ dir, defines: projectDefines(text) });
    defineSets.sort((a, b) => b.dir.length - a.dir.length);
  };
  if (Array.isArray(files))
    for (const f of files as SourceFile[])
      if (f.path.endsWith('.csproj') && !isIgnoredFile(f.path, includeTests)) takeDefines(f.path, await f.read());
  const definesOf = (path: string): readonly string[] => defineSets.find((d) => path.startsWith(d.dir))?.defines ?? [];
  /** Go modules: folder (with its `/`, '' at the root) → module path. */
  const goModules: { dir: string; module: string }[] = [];
  const run = options.runCode ?? extractCodeFile;
  const budget = options.parseBudgetMs ?? DEFAULT_PARSE_BUDGET_MS;
  // Code files are extracted each on its own (possibly in parse workers, several at once) and merged in
  // file order, interleaved with the configuration files, so the facts are those of one pass in order.
  const pending: Promise<() => void>[] = [];
  const window = Math.max(1, options.window ?? 1);
  const drain = async (keep: number): Promise<void> => {
    while (pending.length > keep) (await pending.shift()!)();
  };
  for await (const f of files) {
    if (isIgnoredFile(f.path, includeTests)) continue;
    const kind = kindOf(f.path);
    const build = BUILD_FILE.test(f.path);
    if (!kind && !HelmCharts.isTemplate(f.path) && !build) continue;
    // A build file only read for its dependencies is not one of the source's files (the report counts those).
    if (kind || !build) files_++;
    const text = await f.read();
    if (text.length > (options.maxFileBytes ?? MAX_FILE_BYTES)) continue;
    if (build) {
      dataRest ||= DATA_REST_DEPENDENCY.test(text);
      if (f.path.endsWith('.csproj')) {
        const slash = f.path.lastIndexOf('/') + 1;
        const assembly = /<AssemblyName>\s*([^<\s$]+)\s*<\/AssemblyName>/.exec(text)?.[1];
        projects.push({ dir: f.path.slice(0, slash), assembly: assembly ?? f.path.slice(slash, -'.csproj'.length) });
        takeDefines(f.path, text);
      }
      if (f.path === 'go.mod' || f.path.endsWith('/go.mod')) {
        const module = /^module\s+"?([^\s"]+)"?/m.exec(text)?.[1];
        if (module) goModules.push({ dir: f.path.slice(0, f.path.lastIndexOf('/') + 1), module });
      }
      if (!kind) continue;
    }
    // A chart's templates are read once rendered with the chart's values, after every file is seen.
    if (helm.take(f.path, text) || !kind) continue;
    if (f.path === 'package.json' || f.path.endsWith('/package.json')) {
      for (const d of npmDependencies(text)) npmDeps.add(d);
      const pkg = jsPackage(f.path, text);
      if (pkg) (facts.jsPackages ??= []).push(pkg);
    }
    const path = f.path;
    if ('code' in kind) {
      const vue = path.endsWith('.vue') ? vueScript(text) : undefined;
      const job = run({
        source,
        path,
        lang: vue?.lang ?? kind.code,
        text: vue?.text ?? text,
        parseBudgetMs: budget,
        ...(kind.code === 'csharp' ? { defines: definesOf(path) } : {}),
      });
      pending.push(
        job.then((r) => () => {
          if ('skipped' in r) {
            (facts.skippedFiles ??= []).push({ path, reason: r.skipped });
            return;
          }
          sink.absorb(r.sink);
          if (r.fsRoutes) fsRoutes.push(r.fsRoutes);
          for (const [name, value] of r.known) {
            const prev = constants.get(name);
            if (prev === undefined) constants.set(name, value);
            else if (prev !== null && JSON.stringify(prev) !== JSON.stringify(value)) constants.set(name, null);
          }
          parsed++;
          // Generated OpenAPI clients: their operations count where the source's own code calls them.
          if (r.eventuate) eventuate.push(r.eventuate);
          if (r.generatedBase) generatedBases.push(r.generatedBase);
          if (r.generatedOps.length) generatedOps.push(...r.generatedOps);
          else for (const n of r.calledNames) calledOps.add(n);
        }),
      );
      // Nothing is left unobserved while it waits its turn (a rejection surfaces at its merge).
      job.catch(() => undefined);
    } else
      pending.push(
        Promise.resolve(() => {
          CONFIG_EXTRACTORS[kind.config](text, path, sink);
          if (kind.config === 'nginx' || kind.config === 'dockerfile') facts.ownServer = true;
          parsed++;
          if (kind.config === 'structured' || kind.config === 'dockerfile') extractChannels(text, path, sink);
        }),
      );
    await drain(window - 1);
  }
  await drain(0);
  // Each C# type's assembly: the project whose folder holds its file most closely.
  if (facts.typeFiles) {
    projects.sort((a, b) => b.dir.length - a.dir.length);
    for (const [type, file] of Object.entries(facts.typeFiles)) {
      const project = projects.find((p) => file.startsWith(p.dir));
      if (project && type !== '__proto__') (facts.typeAssemblies ??= {})[type] = project.assembly;
    }
    delete facts.typeFiles;
  }
  linkGeneratedOperations(generatedOps, calledOps, sink, generatedBases);
  linkEventuate(eventuate, sink);
  for (const [path, text] of helm.rendered()) {
    extractStructured(text, path, sink);
    parsed++;
  }
  for (const r of fsRoutes) if (npmDeps.has(r.marker)) facts.endpoints.push(...r.endpoints);
  if (facts.endpoints.some((e) => e.framework === IMPLICIT_DATA_REST))
    facts.endpoints.splice(
      0,
      facts.endpoints.length,
      ...facts.endpoints.flatMap((e) =>
        e.framework !== IMPLICIT_DATA_REST ? [e] : dataRest ? [{ ...e, framework: 'spring-data-rest' }] : [],
      ),
    );
  applyEntityTables(facts, sink);
  for (const [name, value] of constants) if (value && name !== '__proto__') facts.constants[name] = value;
  typedClientBases(facts);
  injectedValues(facts);
  let configKeys: Map<string, string> | undefined;
  let configTails: Map<string, string | null> | undefined;
  const ownConfigKeys = (): Map<string, string> =>
    (configKeys ??= new Map(facts.config.filter((c) => !c.scope).map((c) => [relaxedKey(c.key), c.key] as const)));
  // Cross-file references: an identifier unknown in its file resolves to a constant of the source.
  const resolveRefs = (parts: readonly Part[], depth = 0): Part[] =>
    concat(
      ...parts.map((p): Part[] => {
        // The alternatives of a value (`env.url ? env.url : ""`) resolve like the value.
        if ('hole' in p && p.alts && depth < 4)
          return [{ hole: true, alts: p.alts.map((a) => resolveRefs(a, depth + 1)) }];
        if (!('ref' in p)) return [p];
        // An object's field outside its class summary (ADR 0062): a run-time value, named as written.
        if (isFieldRef(p)) return [{ ref: p.ref.slice(FIELD_REF.length) }];
        // `options.Value.X` of an `IOptions<T>` whose section the source binds: configuration `Section:X`.
        const opt = /^IOptions<(\w+)>\.(\w+)$/.exec(p.ref);
        let section = opt ? sink.optionSections.get(opt[1]!) : undefined;
        // A section named by a constant of another file (`GetSection(RabbitMqOptions.SectionName)`).
        if (section?.startsWith(SECTION_REF))
          section =
            depth < 4 ? nameOf(resolveRefs([{ ref: section.slice(SECTION_REF.length) }], depth + 1)) : undefined;
        if (section?.includes('{}')) section = undefined;
        if (section !== undefined) return [{ config: section ? `${section}:${opt![2]!}` : opt![2]! }];
        // `settings.orders_url` / `this.baseUrl`: fall back to the member's own name when it is a known constant.
        const v =
          own(facts.constants, p.ref) ??
          own(facts.constants, p.ref.replace(/^(this|self)\./, '')) ??
          own(facts.constants, p.ref.split('.').pop()!);
        if (v && depth < 4) return resolveRefs(v, depth + 1);
        // `c.cfg.KafkaTopics.ProductCreate.TopicName`: a settings struct unmarshalled from the source's own
        // configuration file (viper, yaml) is that file's key, field names matching keys case-insensitively.
        const key = configKeyOf(p.ref, ownConfigKeys(), (configTails ??= configKeyTails(ownConfigKeys())));
        if (key) return [{ config: key }];
        // Unknown names stay references: the report shows them when it calls a URL dynamic.
        return [p];
      }),
    );
  goSiteValues(facts, (ref) => {
    const keyOf = (r: string): string | undefined =>
      configKeyOf(r, ownConfigKeys(), (configTails ??= configKeyTails(ownConfigKeys())));
    const tags = facts.goFieldTags;
    // The members as their struct tags name them (`Subject.CreateOrder` → `subject.create_order`).
    const tagged = tags
      ? ref
          .split('.')
          .map((m) => (Object.prototype.hasOwnProperty.call(tags, m) ? tags[m]! : m))
          .join('.')
      : ref;
    return keyOf(ref) ?? (tagged !== ref ? keyOf(tagged) : undefined);
  });
  // Calls of functions summarised by their returned value, instantiated with their arguments.
  const instantiations = instantiationBudget();
  const resolve = (parts: readonly Part[]): Part[] =>
    instantiateReturns(resolveRefs(parts), sink, resolveRefs, 0, instantiations);
  // A routed consumer class's handler method, where the class is declared once in the source.
  const handlers = new Map<string, Loc | null>();
  for (const h of sink.handlerMethods) handlers.set(h.name, handlers.has(h.name) ? null : h.loc);
  for (const t of sink.topicRefs) {
    const parts = resolve(t.parts);
    if (t.binding && parts.some((p) => !('lit' in p))) continue;
    const name = nameOf(parts);
    if (name === undefined) continue;
    let topic = t.binding ? streamDestination(name) : name;
    const broker = t.broker ?? 'kafka';
    // `events.OrderCreated` of a Go package no file of this source declares: another source's exported constant,
    // resolved when linking (else a run-time name).
    const only = t.parts.length === 1 ? t.parts[0]! : undefined;
    if (broker === 'nats' && topic === '{}' && only && 'ref' in only && /^[a-z]\w*\.[A-Z]\w*$/.test(only.ref))
      topic = `${CONSTANT_MARK}${only.ref}`;
    // A NATS subject wholly unknown (a wrapper's parameter) is no fact: its callers name it.
    if (broker === 'nats' && (topic === '{}' || /\s/.test(topic))) continue;
    const named = (p: Part[] | undefined): string | undefined => {
      const v = p && nameOf(resolve(p));
      return v && v !== '{}' ? v : undefined;
    };
    if (t.side === 'publish') sink.publish(broker, nameOf(resolve(t.exchange ?? [])) ?? '', topic, t.loc, t.binding);
    else if (t.side === 'consume') {
      const jetStream = named(t.stream);
      const durable = named(t.durable) ?? named(t.group);
      const at = (t.handler !== undefined ? handlers.get(t.handler) : undefined) ?? t.loc;
      sink.consume(broker, topic, at, t.binding, undefined, {
        ...(jetStream ? { jetStream } : {}),
        ...(durable ? { durable } : {}),
      });
    } else if (topic !== '') sink.queue(topic, t.loc);
  }
  resolveNestMicroservices(sink, resolve);
  exportNestConstants(sink, resolve);
  applyGoRouteTables(facts, sink);
  applyWrappers(facts, sink);
  applyMessageWrappers(facts, sink, resolve);
  summariseRegistryBinds(facts, sink, resolve);
  for (const x of sink.exchangeRefs) {
    const name = nameOf(resolve(x.parts));
    if (name !== undefined && !name.includes('{}')) sink.exchange(name, x.type, x.loc);
  }
  for (const b of sink.bindingRefs) {
    const [exchange, queue, key] = [b.exchange, b.queue, b.key].map((x) => nameOf(resolve(x)));
    if (exchange !== undefined && queue !== undefined && key !== undefined && !`${exchange}${queue}`.includes('{}'))
      sink.binding(exchange, queue, key, b.loc);
  }
  sourceExchange(facts);
  for (const r of sink.routeRefs) {
    const path = routePath(resolve(r.parts));
    if (path !== undefined) sink.endpoint(r.method, path, r.framework, r.loc, r.routerFile, r.routerPrefix);
  }
  applyHandlerScopes(facts, sink);
  applyPrefixes(facts);
  applyGoNetRpc(facts, sink);
  // A summarised helper's value may hold alternatives (a variable set in its branches): one call each.
  const resolvedCalls = new Map<string, (typeof facts.calls)[number]>();
  for (const c0 of facts.calls) {
    // The body's field values resolve like the URL (settings fields, constants of other files).
    const c = c0.body
      ? { ...c0, body: Object.fromEntries(Object.entries(c0.body).map(([k, v]) => [k, resolve(v)] as const)) }
      : c0;
    for (const url of expandAlternatives(resolve(c.url)))
      resolvedCalls.set(JSON.stringify({ ...c, url }), { ...c, url });
  }
  facts.calls.splice(0, facts.calls.length, ...resolvedCalls.values());
  // A summarised call or publish the source already resolved (every `new C(…)` of it agrees) stays where it is.
  if (facts.objClasses?.length) {
    const known = new Set<string>();
    for (const c of facts.calls)
      if (!c.url.some((p) => 'hole' in p || 'ref' in p)) known.add(`${c.loc.file}:${c.loc.line}`);
    for (const p of facts.publishes)
      if (!`${p.exchange}${p.key}`.includes('{}')) known.add(`${p.loc.file}:${p.loc.line}`);
    facts.objClasses = facts.objClasses.map((c) => ({
      ...c,
      methods: c.methods.map((m) => ({
        ...m,
        effects: m.effects.filter(
          (e) => !((e.op === 'http' || (e.op === 'publish' && e.broker)) && known.has(`${c.file}:${e.line}`)),
        ),
      })),
    }));
  }
  // Where object summaries are instantiated: their arguments resolved like every value of the source.
  if (facts.objSites?.length)
    facts.objSites = facts.objSites.map((site) => ({
      ...site,
      args: site.args.map((a) => resolve(a)),
      ...(site.named ? { named: Object.fromEntries(Object.entries(site.named).map(([k, v]) => [k, resolve(v)])) } : {}),
    }));
  // A page's script: its relative URLs are the page's own origin (link.ts), not any repository serving the path.
  if (BROWSER_FRAMEWORKS.some((d) => npmDeps.has(d)) && !SERVER_FRAMEWORKS.some((d) => npmDeps.has(d)))
    for (let i = 0; i < facts.calls.length; i++)
      if (/\.(m?[jt]sx?|vue)$/.test(facts.calls[i]!.loc.file)) facts.calls[i] = { ...facts.calls[i]!, browser: true };
  sidecarPublishes(facts, sink);
  grpcFieldCalls(facts, sink, goModules);
  importedClientCalls(facts);
  // protoc's Go output (`*_http.pb.go`, Kratos) registers routes only inside `RegisterXHTTPServer`: they are
  // served by the program that calls it (through the proto's google.api.http rules), never by the stubs' source.
  if (facts.endpoints.some((e) => /\.pb\.go$/.test(e.loc.file)))
    facts.endpoints.splice(0, facts.endpoints.length, ...facts.endpoints.filter((e) => !/\.pb\.go$/.test(e.loc.file)));
  for (let i = 0; i < facts.grpcCalls.length; i++) {
    const c = facts.grpcCalls[i]!;
    // A channel of another file (one address for that name in the whole source).
    const dialled = c.channel ? sink.grpcChannels.filter((x) => x.name === c.channel) : [];
    const one = new Set(dialled.map((x) => JSON.stringify(x.address))).size === 1 ? dialled[0]!.address : undefined;
    const address = c.address.length ? c.address : (one ?? []);
    if (address.length) facts.grpcCalls[i] = { ...c, address: resolve(address) };
  }
  if (facts.registryNames) facts.registryNames = facts.registryNames.map((n) => resolve(n));
  // A client registration without a method call of its own (`AddGrpcClient<X>`) says nothing more once the
  // source calls the service's methods elsewhere.
  const called = new Set(facts.grpcCalls.filter((c) => c.method !== '*').map((c) => c.service));
  const kept = facts.grpcCalls.filter((c) => c.method !== '*' || !called.has(c.service));
  facts.grpcCalls.splice(0, facts.grpcCalls.length, ...kept);
  for (const k of Object.keys(facts.clientBases)) facts.clientBases[k] = resolve(facts.clientBases[k]!);
  if (facts.listenUrls) facts.listenUrls = facts.listenUrls.map((u) => resolve(u));
  keepGoFuncsAroundCalls(facts);
  outboxEntries(facts);
  return { ...facts, files: files_, parsedFiles: parsed };
}

/** Whether a C# class derives from HttpClient through the source's classes (`typeBases`). */
function derivesFromHttpClient(bases: Readonly<Record<string, string>>, cls: string): boolean {
  let c: string | undefined = cls;
  for (let hops = 0; c !== undefined && hops < 8; hops++) {
    if (c === 'HttpClient') return true;
    c = own(bases, c);
  }
  return false;
}

/**
 * C# typed clients deriving from HttpClient (directly or through a base class of the source) whose constructor
 * sets `BaseAddress`: the class (and its subclasses without their own) gets that base address, as a client base
 * for calls made through a field of its type and as the constant `Class.BaseAddress` the URLs built from
 * `_client.BaseAddress` name (csharp.ts). A class that is no HttpClient keeps nothing.
 */
function typedClientBases(facts: SourceFacts): void {
  const bases = facts.typeBases ?? {};
  const set = facts.ctorBaseAddresses ?? {};
  delete facts.typeBases;
  delete facts.ctorBaseAddresses;
  if (Object.keys(set).length > 0)
    for (const cls of Object.keys(bases)) {
      if (cls === '__proto__' || !derivesFromHttpClient(bases, cls)) continue;
      let c: string | undefined = cls;
      let base: Part[] | undefined;
      for (let hops = 0; c !== undefined && !base && hops < 8; hops++) {
        base = own(set, c);
        c = own(bases, c);
      }
      if (!base) continue;
      if (!Object.prototype.hasOwnProperty.call(facts.clientBases, cls)) facts.clientBases[cls] = base;
      facts.constants[`${cls}.BaseAddress`] = base;
    }
  // A call through a typed client's field uses that class's base when the calling class registers none.
  for (let i = 0; i < facts.calls.length; i++) {
    const c = facts.calls[i]!;
    if (c.clientType === undefined) continue;
    const { clientType, ...rest } = c;
    const has = (k: string | undefined): boolean =>
      k !== undefined && Object.prototype.hasOwnProperty.call(facts.clientBases, k);
    // Only for a path the code writes (`GetAsync("items")`): an unknown URI may be absolute, not below the base.
    const first = c.url[0];
    const relative = first !== undefined && 'lit' in first && !/^[a-z][a-z0-9+.-]*:/i.test(first.lit);
    facts.calls[i] = relative && !has(c.clientClass) && has(clientType) ? { ...rest, clientClass: clientType } : rest;
  }
}

/**
 * Angular DI: a provider `{ provide: TOKEN, useValue: V }` (or a `useFactory` returning V) makes V the value of
 * every `@Inject(TOKEN)` parameter (javascript.ts names them `@Inject(TOKEN)`); two providers disagreeing: none.
 */
function injectedValues(facts: SourceFacts): void {
  const given = facts.injectionValues ?? [];
  delete facts.injectionValues;
  const byToken = new Map<string, Part[] | null>();
  for (const { token, value } of given) {
    const prev = byToken.get(token);
    if (prev === undefined) byToken.set(token, value);
    else if (prev !== null && JSON.stringify(prev) !== JSON.stringify(value)) byToken.set(token, null);
  }
  for (const [token, value] of byToken) if (value) facts.constants[`@Inject(${token})`] = value;
}

/** Publishes and bindings on an exchange object of unknown origin: the source's one declared exchange, else unknown. */
function sourceExchange(facts: SourceFacts): void {
  const names = new Set(facts.exchanges.map((x) => x.name));
  const one = names.size === 1 ? [...names][0]! : '{}';
  facts.publishes.forEach((p, i) => {
    if (p.exchange === SOURCE_EXCHANGE) facts.publishes[i] = { ...p, exchange: one };
  });
  facts.bindings.forEach((b, i) => {
    if (b.exchange === SOURCE_EXCHANGE) facts.bindings[i] = { ...b, exchange: one };
  });
}

/**
 * Calls on an instance imported from another module of the source (`import http from './api'`,
 * `http.post('/v1/login')`): when that module creates an HTTP client with a base address (`axios.create({
 * baseURL })`), its base joined here (one call per base a condition chooses); else a receiver that reads as a
 * client keeps the source's instance of its name, and any other (an imported store's `get`) is no call.
 */
function importedClientCalls(facts: SourceFacts): void {
  if (!facts.calls.some((c) => c.clientClass?.startsWith(MODULE_BASE))) return;
  const kept = facts.calls.flatMap((c) => {
    if (!c.clientClass?.startsWith(MODULE_BASE)) return [c];
    const [mod, otherwise] = c.clientClass.split(MODULE_ELSE) as [string, string | undefined];
    // `./api` is `./api.js` or `./api/index.js`.
    const key = [mod, `${mod}/index`].find((k) => Object.prototype.hasOwnProperty.call(facts.clientBases, k));
    // A protocol-relative base (`//localhost:8000`) takes the page's scheme: http for an address.
    const base = (key ? facts.clientBases[key]! : []).map((p) => protocolRelative(p));
    const { clientClass: _, ...rest } = c;
    const client = c.client === IMPORTED_CLIENT ? 'axios' : c.client;
    if (base.length) return expandAlternatives(base).map((b) => ({ ...rest, client, url: concat(b, c.url) }));
    if (c.client === IMPORTED_CLIENT) return [];
    return [otherwise ? { ...rest, clientClass: otherwise } : rest];
  });
  facts.calls.splice(0, facts.calls.length, ...kept);
}

function protocolRelative(p: Part): Part {
  if ('lit' in p) return p.lit.startsWith('//') ? { lit: `http:${p.lit}` } : p;
  if ('hole' in p && p.alts)
    return { hole: true, alts: p.alts.map((a) => a.map((x, i) => (i ? x : protocolRelative(x)))) };
  return p;
}

/**
 * Go: a struct field typed as a generated client in one file of a package (`uc userv1.UserClient`) and
 * called through a receiver in another file of the same folder (`r.data.uc.GetUser(ctx, …)`) is a call of
 * that service's method, with the address the source builds that client with (`typed:` channel). A field
 * of a struct declared in another package of the same Go module (`App *config.Config`, `config.Config {
 * TaskClient pb.TaskServiceClient }`) is reached through the calling file's imports of that module's
 * packages, and theirs (`api.App.TaskClient.CreateTask(…)`, embedded structs alike). A field name typed as
 * two services among the packages reached says nothing. The method calls found make the client's
 * whole-service row (its constructor, where no call of it was seen) redundant: it goes.
 */
function grpcFieldCalls(facts: SourceFacts, sink: Sink, modules: readonly { dir: string; module: string }[]): void {
  if (!sink.grpcFields.some((f) => f.service)) return;
  const dir = (file: string): string => file.slice(0, Math.max(0, file.lastIndexOf('/')));
  /** Field name → service, per folder (null: two services). */
  const typed = new Map<string, Map<string, string | null>>();
  for (const f of sink.grpcFields)
    if (f.service) {
      const d = dir(f.file);
      const byName = typed.get(d) ?? new Map<string, string | null>();
      const prev = byName.get(f.name);
      byName.set(f.name, prev === undefined || prev === f.service ? f.service : null);
      typed.set(d, byName);
    }
  // The folders of the module's packages each folder imports (a package of the source's own Go module).
  const imports = new Map<string, Set<string>>();
  const packageDir = (path: string): string | undefined => {
    for (const m of modules)
      if (path === m.module || path.startsWith(`${m.module}/`))
        return (m.dir + path.slice(m.module.length + 1)).replace(/\/$/, '');
    return undefined;
  };
  for (const f of sink.grpcFields)
    for (const p of f.imports ?? []) {
      const d = packageDir(p);
      if (d === undefined) continue;
      const set = imports.get(dir(f.file)) ?? new Set<string>();
      set.add(d);
      imports.set(dir(f.file), set);
    }
  const serviceOf = (folder: string, name: string): string | null | undefined => {
    const own = typed.get(folder)?.get(name);
    if (own !== undefined) return own;
    // The packages reached through imports, breadth first (a handler's struct of another package holding a
    // config struct of a third).
    const seen = new Set([folder]);
    let frontier = [folder];
    let found: string | null | undefined;
    for (let depth = 0; depth < 3 && frontier.length && found === undefined; depth++) {
      const next: string[] = [];
      for (const d of frontier)
        for (const i of imports.get(d) ?? []) {
          if (seen.has(i)) continue;
          seen.add(i);
          next.push(i);
          const s = typed.get(i)?.get(name);
          if (s !== undefined) found = found === undefined || found === s ? s : null;
        }
      frontier = next;
    }
    return found;
  };
  const seen = new Set(facts.grpcCalls.map((c) => `${c.loc.file}:${c.loc.line}|${c.method}`));
  const called = new Set<string>();
  for (const f of sink.grpcFields) {
    if (!f.method) continue;
    const service = serviceOf(dir(f.file), f.name);
    const key = `${f.file}:${f.line}|${f.method}`;
    if (!service || seen.has(key)) continue;
    seen.add(key);
    called.add(service);
    facts.grpcCalls.push({
      service,
      method: f.method,
      address: [],
      client: 'grpc-go',
      loc: { file: f.file, line: f.line },
      channel: `typed:${service}`,
      weak: true,
    });
  }
  if (called.size)
    facts.grpcCalls.splice(
      0,
      facts.grpcCalls.length,
      ...facts.grpcCalls.filter(
        (c) => !(c.method === '*' && !c.gateway && c.client === 'grpc-go' && called.has(c.service)),
      ),
    );
}

/**
 * The configuration key a member chain of a settings object reads (`s.cfg.KafkaTopics.ProductCreate.TopicName`
 * → `kafkaTopics.productCreate.topicName`): the longest tail of two or more of its members that is a key of
 * the source's own configuration files (relaxed: case, `-` and `_` ignored), as viper and mapstructure bind
 * them. Receivers and fields before the tail (`s.cfg`) are the program's names for the object; a tail of one
 * member (`cfg.Port`) is too weak to say which key it is.
 */
export function configKeyOf(
  ref: string,
  keys: ReadonlyMap<string, string>,
  tails?: ReadonlyMap<string, string | null>,
): string | undefined {
  if (keys.size === 0 || !/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*){2,}$/.test(ref)) return undefined;
  const members = ref.split('.');
  for (let i = 1; i <= members.length - 2; i++) {
    const key = keys.get(relaxedKey(members.slice(i).join('.')));
    if (key !== undefined) return key;
  }
  // A section's own struct (Kratos `c *conf.Data` of a `data:` section: `c.Catalog.Endpoint`): the one key
  // ending in that tail of two or more members.
  for (let i = 1; tails && i <= members.length - 2; i++) {
    const key = tails.get(relaxedKey(members.slice(i).join('.')));
    if (key) return key;
  }
  return undefined;
}

/** The tails of two or more members of each key (`data.catalog.endpoint` → `catalog.endpoint`), unique or null. */
export function configKeyTails(keys: ReadonlyMap<string, string>): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const [relaxed, key] of keys) {
    const members = relaxed.split('.');
    for (let i = 1; i <= members.length - 2; i++) {
      const tail = members.slice(i).join('.');
      const prev = out.get(tail);
      out.set(tail, prev === undefined || prev === key ? key : null);
    }
  }
  return out;
}

/**
 * The arguments of Go calls of another package's functions (`s.Queue.Publish(ctx, s.Config.Broker.Subject.X, m)`,
 * `vs.Broker.QueueSubscribe(ctx, vs.CreateOrder.Subject, …)`), resolved before the package's summaries are
 * instantiated with them in another source: a member chain of a settings struct is its configuration key, and a
 * field of one of the package's own types (`CreateOrder *CreateOrderService`) is what the type's constructor (its
 * one function returning `&CreateOrderService{Subject: cfg.Broker.Subject.CreateOrder}`) sets it to.
 */
function goSiteValues(facts: SourceFacts, configKey: (ref: string) => string | undefined): void {
  if (!facts.goSites?.length && !facts.goFieldSites?.length && !facts.goTypedSites?.length) return;
  /** A field's type by package and name (a name two types of the package declare differently: neither). */
  const typeOf = new Map<string, string | null>();
  for (const f of facts.goLocalFields ?? []) {
    const key = `${f.pkg}|${f.field}`;
    const prev = typeOf.get(key);
    typeOf.set(key, prev === undefined || prev === f.type ? f.type : null);
  }
  const made = new Map<string, Readonly<Record<string, readonly Part[]>> | null>();
  for (const f of facts.goFuncs ?? []) if (f.made && f.fields) made.set(f.made, made.has(f.made) ? null : f.fields);
  const valueOf = (ref: string, pkg: string | undefined): Part[] | undefined => {
    const members = ref.split('.');
    // `x.CreateOrder.Subject`: the field's type's constructor sets `Subject`.
    if (members.length >= 3 && pkg) {
      const type = typeOf.get(`${pkg}|${members[members.length - 2]!}`);
      const fields = type ? made.get(type) : undefined;
      const last = members[members.length - 1]!;
      const v = fields && Object.prototype.hasOwnProperty.call(fields, last) ? fields[last] : undefined;
      const only = v?.length === 1 ? v[0]! : undefined;
      if (only && 'ref' in only) {
        const key = configKey(only.ref);
        return key ? [{ config: key }] : undefined;
      }
      if (v && v.every((p) => 'lit' in p)) return [...v];
    }
    const key = configKey(ref);
    return key ? [{ config: key }] : undefined;
  };
  const resolved = (args: readonly (readonly Part[])[], pkg?: string): Part[][] =>
    args.map((a) =>
      a.flatMap((p): Part[] => ('ref' in p && /^\w+(\.\w+){2,}$/.test(p.ref) ? (valueOf(p.ref, pkg) ?? [p]) : [p])),
    );
  if (facts.goSites) facts.goSites = facts.goSites.map((x) => ({ ...x, args: resolved(x.args) }));
  if (facts.goFieldSites) facts.goFieldSites = facts.goFieldSites.map((x) => ({ ...x, args: resolved(x.args, x.in) }));
  if (facts.goTypedSites) facts.goTypedSites = facts.goTypedSites.map((x) => ({ ...x, args: resolved(x.args, x.in) }));
}

/**
 * Calls through wrappers: a function of the source whose HTTP call takes its URL from a parameter is
 * called by name with the URL (`helpers.simpleHttpRequest(endpoints.usersUrl, res, next)`); each such
 * call is the HTTP call, with the wrapper's method and the URL around the parameter. The wrapper's own
 * call (a dynamic URL) stays only when nothing in the source calls it. Names two wrappers share with
 * different URLs or methods are not followed.
 */
/** A keyword argument of a call by the parameter's name (never an inherited member). */
const kwarg = (named: Readonly<Record<string, Part[]>> | undefined, key: string): Part[] | undefined =>
  named && Object.prototype.hasOwnProperty.call(named, key) ? named[key] : undefined;

/** The property `field` of the object literal a call passes at `index`. */
const fieldArg = (site: WrapperSite, index: number, field: string): Part[] | undefined => {
  const obj = site.fields?.[index];
  return obj && Object.prototype.hasOwnProperty.call(obj, field) ? obj[field] : undefined;
};

function applyWrappers(facts: SourceFacts, sink: Sink): void {
  if (sink.wrappers.length === 0 || sink.sites.length === 0) return;
  const byName = new Map<string, HttpWrapper | null>();
  for (const w of sink.wrappers) {
    const prev = byName.get(w.name);
    const same = (a: HttpWrapper, b: HttpWrapper): boolean =>
      a.index === b.index &&
      a.method === b.method &&
      JSON.stringify([a.before, a.after, a.field, a.methodFrom]) ===
        JSON.stringify([b.before, b.after, b.field, b.methodFrom]);
    if (prev === undefined) byName.set(w.name, w);
    else if (prev !== null && !same(prev, w)) byName.set(w.name, null);
  }
  const used = new Set<HttpWrapper>();
  for (const site of sink.sites) {
    if (site.messageOnly) continue;
    const w = byName.get(site.name);
    // By position, else by keyword (`get_order(path="/orders/2")`); a property of an object argument.
    const arg = !w
      ? undefined
      : w.field !== undefined
        ? fieldArg(site, w.index, w.field)
        : (site.args[w.index] ?? (w.param !== undefined ? kwarg(site.named, w.param) : undefined));
    if (!w || !arg || (w.arity !== undefined && site.args.length !== w.arity)) continue;
    let method = w.method;
    if (w.methodFrom) {
      const { index, field } = w.methodFrom;
      const given = literal(field !== undefined ? fieldArg(site, index, field) : site.args[index]);
      if (given === undefined && w.methodFrom.literalOnly) continue;
      // A literal that is no HTTP method (`client[op](key)` of another library) is no call of this wrapper.
      if (given !== undefined && !httpMethod(given)) continue;
      method = httpMethod(given) ?? w.method;
    }
    used.add(w);
    sink.call(method, concat(w.before, arg, w.after), w.client, site.loc);
  }
  const dropped = new Set(
    sink.wrappers.filter((w) => used.has(byName.get(w.name)!)).map((w) => `${w.loc.file}:${w.loc.line}`),
  );
  const kept = facts.calls.filter((c) => !dropped.has(`${c.loc.file}:${c.loc.line}`));
  facts.calls.splice(0, facts.calls.length, ...kept);
}

/**
 * Publishes through a method of another class or file whose exchange, routing key or topic is one of its
 * parameters (`client.publish(self.subject, msg)` → `basic_publish(exchange=X, routing_key=subject)`):
 * each call of it by name is the publish, with the call's arguments (cross-file constants resolved) in
 * place of the parameters. A call that passes one of its own function's parameters on makes that function
 * a wrapper too (`UnitOfWork.publish(queue, msg)` → `self.client.publish_message(queue, msg)`), summarised
 * once and instantiated at its callers, to any depth (8 levels, a step budget): the publish is reported at
 * the outermost call that names it. A wrapper's own publish (a dynamic key) stays only when nothing calls
 * it. A name two wrappers share with different names is not followed.
 */
function applyMessageWrappers(facts: SourceFacts, sink: Sink, resolve: (parts: readonly Part[]) => Part[]): void {
  if (sink.messageWrappers.length === 0 || sink.sites.length === 0) return;
  const KINDS = ['publish', 'bind', 'consume', 'exchange'] as const;
  const byName = new Map<string, MessageWrapper[] | null>();
  const add = (w: MessageWrapper): void => {
    const key = `${w.kind ?? 'publish'}:${w.within.name}`;
    const prev = byName.get(key);
    const same = (a: MessageWrapper, b: MessageWrapper): boolean =>
      JSON.stringify([a.broker, a.exchange, a.key, a.queue, a.within.params]) ===
      JSON.stringify([b.broker, b.exchange, b.key, b.queue, b.within.params]);
    if (prev === undefined) byName.set(key, [w]);
    else if (prev !== null && !same(prev[0]!, w)) byName.set(key, null);
  };
  /** The wrapper a site calls, with its arguments bound in place of the parameters (unresolved). */
  const bound = (
    site: WrapperSite,
    kind: (typeof KINDS)[number],
  ): { w: MessageWrapper; bind: (parts: readonly Part[]) => Part[] } | undefined => {
    const w = byName.get(`${kind}:${site.name}`)?.[0];
    if (!w) return undefined;
    const { params, arity, defaults } = w.within;
    const given = site.args.length + Object.keys(site.named ?? {}).length;
    if (arity !== undefined ? given !== arity : site.args.length > params.length) return undefined;
    if (w.fixed) {
      const required = params.filter((_, i) => defaults?.[i] === undefined).length;
      if (given < required) return undefined;
      // The function's own body calling it again is no calling site.
      if (site.within?.name === w.within.name && site.loc.file === w.loc.file) return undefined;
    }
    // A keyword the wrapper does not take is another function of that name.
    if (Object.keys(site.named ?? {}).some((k) => !params.includes(k))) return undefined;
    const bind = (parts: readonly Part[]): Part[] =>
      concat(
        ...parts.map((p): readonly Part[] => {
          const i = 'ref' in p ? params.indexOf(p.ref) : -1;
          if (i < 0) return [p];
          return site.args[i] ?? kwarg(site.named, params[i]!) ?? defaults?.[i] ?? [HOLE_PART];
        }),
      );
    return { w, bind };
  };
  for (const w of sink.messageWrappers) add(w);
  // Wrappers over wrappers: a call inside a function that passes that function's parameters on.
  const derived = new Set<string>();
  let budget = 4000;
  let fresh = true;
  for (let depth = 0; fresh && depth < 8; depth++) {
    fresh = false;
    for (const site of sink.sites) {
      const outer = site.within;
      if (!outer || outer.params.length === 0) continue;
      for (const kind of KINDS) {
        const id = `${kind}@${site.loc.file}:${site.loc.line}`;
        if (derived.has(id)) continue;
        // A map lookup per site and kind: the budget counts only the sites that call a wrapper (every call
        // with arguments is a site, so counting them all ended the search after about 1,000 of them).
        const b = bound(site, kind);
        if (!b || --budget < 0) continue;
        // A function calling itself is no new wrapper.
        if (b.w.within.name === outer.name && b.w.loc.file === site.loc.file) continue;
        const exchange = b.bind(b.w.exchange);
        const key = b.bind(b.w.key);
        const queue = b.w.queue ? b.bind(b.w.queue) : undefined;
        const isParam = (p: Part): boolean => 'ref' in p && outer.params.includes(p.ref);
        if (![...exchange, ...key, ...(queue ?? [])].some(isParam)) continue;
        derived.add(id);
        fresh = true;
        add({ ...b.w, within: outer, exchange, key, ...(queue ? { queue } : {}), loc: site.loc });
      }
    }
  }
  const used = new Set<string>();
  /** The topics of the source's kafka-go writer maps (none known: a guarded wrapper publishes every topic). */
  const writerKeys = new Set((facts.goWriterMaps ?? []).flatMap((m) => m.keys));
  let guardedCalls = false;
  for (const site of sink.sites) {
    for (const kind of KINDS) {
      const b = bound(site, kind);
      if (!b) continue;
      const { w } = b;
      const bind = (parts: readonly Part[]): Part[] => resolve(b.bind(parts));
      const exchange = nameOf(bind(w.exchange)) ?? '';
      const key = nameOf(bind(w.key)) ?? '';
      if (w.guard === 'writerMap' && writerKeys.size > 0) {
        guardedCalls = true;
        used.add(`${w.loc.file}:${w.loc.line}`);
        // A topic no writer is kept for: the helper returns before writing.
        if (!writerKeys.has(key)) continue;
      }
      // A queue the call leaves unnamed (None): the broker names it, one per call.
      const queue = nameOf(declaredQueueName(bind(w.queue ?? []), site.loc.file, site.loc.line))!;
      // A key read from a value's field (`payment.metadata.receiver`): maybe a request's field, named when linking.
      if (kind === 'publish')
        sink.publish(w.broker, exchange, key, site.loc, undefined, undefined, fieldRefOf(b.bind(w.key)));
      else if (kind === 'bind') sink.binding(exchange, queue, key, site.loc);
      else if (kind === 'exchange') {
        if (w.exchangeType) sink.exchange(exchange, w.exchangeType, site.loc);
      } else sink.consume(w.broker, queue, site.loc);
      used.add(`${w.loc.file}:${w.loc.line}`);
    }
  }
  /** A writer of a map that a called helper reads: its topic is published where the helper is called, if at all. */
  const mapWriter = (x: { loc: Loc }): boolean =>
    guardedCalls &&
    (facts.goWriterMaps ?? []).some((m) => m.file === x.loc.file && x.loc.line >= m.start && x.loc.line <= m.end);
  const own = (x: { loc: Loc }): boolean => !used.has(`${x.loc.file}:${x.loc.line}`);
  injectedWrappers(facts, sink.messageWrappers.filter(own));
  facts.publishes.splice(
    0,
    facts.publishes.length,
    ...facts.publishes.filter((x) => own(x) && !(x.broker === 'kafka' && mapWriter(x))),
  );
  facts.bindings.splice(0, facts.bindings.length, ...facts.bindings.filter(own));
  facts.consumes.splice(0, facts.consumes.length, ...facts.consumes.filter(own));
}

/**
 * A Java publishing helper no code of its own source calls (`RabbitMQMessageProducer.publish(exchange, key,
 * payload)` → `amqpTemplate.convertAndSend(exchange, key, payload)` in a shared module): summarised as a
 * class held by injection (a Spring bean, never created with `new`), named after its file, so that the calls
 * of other sources through a receiver of that declared type publish at their own sites, and the helper's
 * own publish (names only its callers give) goes once one does (`objects.ts`).
 */
function injectedWrappers(facts: SourceFacts, unused: readonly MessageWrapper[]): void {
  const byClass = new Map<string, { file: string; methods: ObjMethod[] }>();
  for (const w of unused) {
    if ((w.kind ?? 'publish') !== 'publish' || !w.loc.file.endsWith('.java')) continue;
    const cls = w.loc.file.replace(/^.*\//, '').replace(/\.java$/, '');
    if (facts.objClasses?.some((c) => c.name === cls)) continue;
    const params = w.within.params;
    const asParam = (parts: readonly Part[]): Part[] =>
      parts.map((p) => ('ref' in p && params.includes(p.ref) ? { ref: `${PARAM_REF}${p.ref}` } : p));
    const entry = byClass.get(cls) ?? { file: w.loc.file, methods: [] };
    entry.methods.push({
      name: w.within.name,
      params: [...params],
      effects: [
        { op: 'publish', broker: w.broker, exchange: asParam(w.exchange), key: asParam(w.key), line: w.loc.line },
      ],
    });
    byClass.set(cls, entry);
  }
  for (const [name, { file, methods }] of byClass)
    (facts.objClasses ??= []).push({ name, file, ctors: [], methods, injected: true });
}

/**
 * A bus library's subscription: a generic method that registers its type argument's name in a registry
 * member, and a bind of one queue to an exchange for each key of that member, make one `subscribe`
 * summary (instantiated at each call of the method, in any source). The library's own consume and
 * declaration of that queue (a name only its users' configuration gives) are the users' once instantiated.
 */
function summariseRegistryBinds(facts: SourceFacts, sink: Sink, resolve: (parts: readonly Part[]) => Part[]): void {
  const queues = new Set<string>();
  const files = new Set<string>();
  for (const b of sink.registryBinds) {
    const queue = nameOf(resolve(b.queue));
    if (queue === undefined) continue;
    for (const r of sink.registrations) {
      if (r.registry !== b.registry) continue;
      sink.busSummary({
        kind: 'subscribe',
        method: r.method,
        broker: 'rabbitmq',
        exchange: b.exchange,
        queue,
        typeIndex: r.typeIndex,
        loc: b.loc,
      });
      queues.add(queue);
      files.add(b.loc.file);
    }
  }
  if (queues.size === 0) return;
  // In the library's file, a queue whose name is that configuration value (or was computed) is the same one.
  const libraryQueue = (name: string, loc: Loc): boolean =>
    files.has(loc.file) && (queues.has(name) || name.includes('{}'));
  facts.consumes.splice(0, facts.consumes.length, ...facts.consumes.filter((c) => !libraryQueue(c.queue, c.loc)));
  facts.queues.splice(0, facts.queues.length, ...facts.queues.filter((q) => !libraryQueue(q.name, q.loc)));
}

/**
 * actix-web handlers registered by name under scopes (`web::scope("/api").service(health::check)`): the
 * attribute route of the handler (`#[get("/check")]`) is served under each prefix it is registered with.
 * A qualified name (`health::check`) names the module's file (`health.rs`, `health/mod.rs`); an unqualified one
 * a handler of that name in one file only.
 */
function applyHandlerScopes(facts: SourceFacts, sink: Sink): void {
  if (sink.handlerScopes.length === 0 || sink.handlerRoutes.length === 0) return;
  const routes = new Map<string, Loc[]>();
  for (const r of sink.handlerRoutes) routes.set(r.handler, [...(routes.get(r.handler) ?? []), r.loc]);
  const moduleOf = (file: string): string => file.replace(/(\/mod)?\.rs$/, '').replace(/^.*\//, '');
  /** Route locations (`file:line`) → the prefixes they are registered under. */
  const prefixes = new Map<string, Set<string>>();
  for (const h of sink.handlerScopes) {
    const segs = h.path.split('::');
    const name = segs.pop()!;
    const mod = segs.pop();
    const locs = (routes.get(name) ?? []).filter((l) => mod === undefined || moduleOf(l.file) === mod);
    if (locs.length === 0 || (mod === undefined && new Set(locs.map((l) => l.file)).size > 1)) continue;
    for (const l of locs) {
      const key = `${l.file}:${l.line}`;
      prefixes.set(key, (prefixes.get(key) ?? new Set()).add(h.prefix));
    }
  }
  if (![...prefixes.values()].some((p) => [...p].some((x) => x !== '/'))) return;
  const out: Endpoint[] = [];
  for (const ep of facts.endpoints) {
    const under = ep.framework === 'actix-web' ? prefixes.get(`${ep.loc.file}:${ep.loc.line}`) : undefined;
    if (under) for (const p of under) out.push({ ...ep, path: joinPath(p, ep.path) });
    else out.push(ep);
  }
  facts.endpoints.splice(0, facts.endpoints.length, ...out);
}

/**
 * Prefixes known only once the whole source is read: Express routers mounted from another file,
 * NestJS `setGlobalPrefix`, Spring `server.servlet.context-path` / `spring.webflux.base-path`.
 */
function applyPrefixes(facts: SourceFacts): void {
  /** The path of a router's route once mounted from another file; undefined when nothing mounts it. */
  const moduleOf = (file: string): string =>
    file.replace(/\.(ts|tsx|js|mjs|cjs|jsx|py)$/, '').replace(/\/(index|__init__)$/, '');
  // Python modules are named from the source root or from a src/ folder: match on the path's end.
  const mountOf = (mod: string): Mount | undefined =>
    facts.mounts.find((x) => mod === x.target || mod.endsWith(`/${x.target}`));
  /** The prefixes above a mounting file that is itself a router mounted elsewhere (`app → users → me`). */
  const above = (file: string, path: string, depth: number): string => {
    const m = depth < 8 ? mountOf(moduleOf(file)) : undefined;
    return m && !m.replace ? above(m.loc.file, joinPath(m.prefix, path), depth + 1) : path;
  };
  const mounted = (ep: Endpoint): string | undefined => {
    const m = mountOf(moduleOf(ep.routerFile!));
    if (!m) return undefined;
    if (!m.replace) return above(m.loc.file, joinPath(m.prefix, ep.path), 0);
    // Flask: the registration's url_prefix replaces the blueprint's own (already in the path).
    const own = ep.routerPrefix ? joinPath(ep.routerPrefix) : '';
    const rest = own && own !== '/' && ep.path.startsWith(own) ? ep.path.slice(own.length) : ep.path;
    return joinPath(m.prefix, rest);
  };
  const springBase = facts.config.find((c) => !c.scope && isSpringBaseKey(c.key))?.value;
  // Spring Data REST's own prefix, below the context path.
  const dataRestBase = facts.config.find(
    (c) => !c.scope && relaxedKey(c.key).replace(/[.-]/g, '') === 'springdatarestbasepath',
  )?.value;
  const nestPrefix = facts.globalPrefixes.find((g) => g.framework === 'nestjs')?.prefix;
  // NestJS URI versioning: /{global prefix}/v{version}/{controller}/{route}, one endpoint per version.
  const nestVersion = facts.globalPrefixes.find((g) => g.framework === 'nestjs-uri-version')?.prefix;
  const nestDefault = facts.globalPrefixes
    .find((g) => g.framework === 'nestjs-default-version')
    ?.prefix.split(',')
    .filter(Boolean);
  const versioned: Endpoint[] = [];
  for (let i = 0; i < facts.endpoints.length; i++) {
    const ep = facts.endpoints[i]!;
    let path: string | undefined;
    if (ep.routerFile) path = mounted(ep);
    else if (ep.framework === 'nestjs' && nestVersion !== undefined && (ep.versions ?? nestDefault)?.length) {
      const [first, ...more] = (ep.versions ?? nestDefault)!.map((v) =>
        joinPath(nestPrefix ?? '', `${nestVersion}${v}`, ep.path),
      );
      path = first;
      for (const p of more) versioned.push({ ...ep, path: p });
    } else if (ep.framework === 'nestjs' && nestPrefix) path = joinPath(nestPrefix, ep.path);
    else if (ep.framework === 'spring' && springBase) path = joinPath(springBase, ep.path);
    else if (ep.framework === 'spring-data-rest' && (springBase || dataRestBase))
      path = joinPath(springBase ?? '', dataRestBase ?? '', ep.path);
    if (path !== undefined) facts.endpoints[i] = { ...ep, path };
  }
  facts.endpoints.push(...versioned);
}

/**
 * Go functions are kept in the facts only when a call or a package site lies inside them: the others can never
 * be a summary instantiated at an importer (generated `.pb.go` files declare hundreds).
 */
function keepGoFuncsAroundCalls(facts: SourceFacts): void {
  if (!facts.goFuncs?.length) return;
  const lines = new Map<string, number[]>();
  for (const x of [
    ...facts.calls,
    ...facts.grpcCalls,
    ...(facts.goSites ?? []),
    ...(facts.goFieldSites ?? []),
    ...facts.endpoints,
  ]) {
    const l = lines.get(x.loc.file) ?? [];
    l.push(x.loc.line);
    lines.set(x.loc.file, l);
  }
  const kept = new Set(
    facts.goFuncs.filter(
      (f) =>
        f.mounts?.length ||
        f.forwards?.length ||
        f.fields ||
        // A constructor of the package's own type: an importer's name bound to it runs that type's methods.
        (f.returned && !f.recv && /^New/.test(f.name)) ||
        lines.get(f.file)?.some((l) => f.start <= l && l <= f.end),
    ),
  );
  // A function that calls a kept one of its package leads a callback to routes (`HandlerFromMux` → `HandlerWithOptions`).
  if (facts.goCallbacks?.length)
    for (let round = 0, grew = true; grew && round < 8; round++) {
      grew = false;
      const names = new Set([...kept].map((f) => `${f.pkg}.${f.name}`));
      for (const f of facts.goFuncs)
        if (!kept.has(f) && f.calls?.some((c) => names.has(c))) {
          kept.add(f);
          grew = true;
        }
    }
  facts.goFuncs = facts.goFuncs.filter((f) => kept.has(f));
}

/**
 * C# outbox: with a publish of run-time typed messages in the source, the names of its methods that lead (by
 * calls, within the source) to one that stores a message's type name are the outbox's entries; the method
 * list itself is not kept.
 */
function outboxEntries(facts: SourceFacts): void {
  const methods = facts.outboxMethods ?? [];
  delete facts.outboxMethods;
  if (!facts.outboxPublishes?.length) return;
  const entries = new Set(methods.filter((m) => m.saves).map((m) => m.name));
  for (let round = 0, grew = entries.size > 0; grew && round < 8; round++) {
    grew = false;
    for (const m of methods)
      if (!entries.has(m.name) && m.calls.some((c) => entries.has(c))) {
        entries.add(m.name);
        grew = true;
      }
  }
  if (entries.size) facts.outboxEntries = [...entries].sort();
  else delete facts.outboxPublishes;
}

/** Own keys only: identifiers such as `constructor` or `toString` must not reach Object.prototype. */
export function own<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/**
 * A Vue single-file component's `<script>` blocks (`lang="ts"` → TypeScript), every other line blanked so
 * that lines keep their numbers in the component.
 */
export function vueScript(text: string): { lang: CodeLanguage; text: string } {
  let lang: CodeLanguage = 'javascript';
  const blank = (s: string): string => s.replace(/[^\n]/g, ' ');
  const out: string[] = [];
  let at = 0;
  // indexOf, not one regular expression: `<script\b([^>]*)>([\s\S]*?)<\/script>` rescanned the rest of the
  // file from every opening tag that had no `>` or no `</script>` after it (64 KB of `<script ` took 1 s).
  for (let open = text.indexOf('<script'); open >= 0; open = text.indexOf('<script', open + 7)) {
    if (open < at || /\w/.test(text[open + 7] ?? '')) continue;
    const gt = text.indexOf('>', open + 7);
    const close = gt < 0 ? -1 : text.indexOf('</script>', gt + 1);
    if (close < 0) break; // no block can close after here
    if (/\blang\s*=\s*["']tsx?["']/.test(text.slice(open + 7, gt))) lang = 'typescript';
    out.push(blank(text.slice(at, gt + 1)), text.slice(gt + 1, close));
    at = close;
  }
  out.push(blank(text.slice(at)));
  return { lang, text: out.join('') };
}

/** Go route tables registered in a loop of a file of the same package folder: each row a route (`go.ts`). */
function applyGoRouteTables(facts: SourceFacts, sink: Sink): void {
  const dir = (f: string): string => f.slice(0, f.lastIndexOf('/') + 1);
  for (const loop of facts.goRouteLoops ?? [])
    for (const t of facts.goRouteTables ?? []) {
      if (t.table !== loop.table || dir(t.file) !== dir(loop.file)) continue;
      for (const row of t.rows)
        sink.endpoint((loop.methods && row.method) || 'ANY', joinPath(loop.prefix, row.path), loop.framework, {
          file: t.file,
          line: row.line,
        });
    }
}
