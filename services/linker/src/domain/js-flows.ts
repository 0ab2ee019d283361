import type { JsClass, JsEffect, JsFunction, JsModule, JsPackage, JsVal } from './js-values';
import type { Call, Consume, HttpMethod, Loc, Part, Publish, SourceFacts } from './model';
import { httpMethod } from './extract/common';

/**
 * JavaScript/TypeScript messaging through functions and classes of any attached source (issue 20): values
 * are followed across files and packages (imports, `export *`, package names of `package.json`, object
 * spreads, enums, functions returning their argument such as `defineEvent(def)`), and a function or class
 * method whose NATS publish or consumer configuration takes its subject from its parameters or from
 * `this` is summarised once and instantiated at each call site, to any depth within a budget: the flow is
 * reported where the subject becomes known (the service's `publishEvent(OrderCreatedEvent, …)`, a
 * `new TicketCreatedPublisher(client).publish(…)` of a subclass setting `subject`), never inside the library.
 */

/** Bounds: call depth of one instantiation, evaluation steps per source. */
const MAX_CALL_DEPTH = 8;
const STEPS_PER_SOURCE = 200_000;

interface Mod {
  readonly source: string;
  readonly m: JsModule;
}

/** A value evaluated as far as the attached sources tell. */
type Res =
  | { readonly k: 's'; readonly s: string }
  | { readonly k: 'env'; readonly env: string; readonly fallback?: string }
  | { readonly k: 'obj'; readonly v: Extract<JsVal, { obj: unknown }>; readonly ctx: Ctx }
  | { readonly k: 'arr'; readonly items: readonly JsVal[]; readonly ctx: Ctx }
  | { readonly k: 'alt'; readonly alts: readonly Res[] }
  /** A concatenation with a part that is not one known string (a URL under a setting). */
  | { readonly k: 'cat'; readonly items: readonly Res[] }
  | { readonly k: 'fn'; readonly mod: Mod; readonly fn: JsFunction; readonly self?: Res }
  | { readonly k: 'cls'; readonly mod: Mod; readonly cls: JsClass }
  | { readonly k: 'inst'; readonly mod: Mod; readonly cls: JsClass; readonly fields: ReadonlyMap<string, Res> }
  | { readonly k: 'ns'; readonly mod: Mod }
  /** Unknown; `call`: a function's result (a query-string builder after a path, `/x${qs(p)}`). */
  | { readonly k: 'unknown'; readonly call?: true };

interface Ctx {
  readonly mod: Mod;
  readonly params: readonly Res[];
  readonly self?: Res;
}

const UNKNOWN: Res = { k: 'unknown' };

/** One instantiated operation: the names as strings. */
interface Op {
  readonly op: 'publish' | 'consume' | 'http';
  readonly subjects: readonly string[];
  readonly stream?: string;
  readonly durable?: string;
  readonly group?: string;
  /** The library's own evidence, for the rule. */
  readonly at: string;
  /** `http`: the URL as parts and the method. */
  readonly url?: readonly Part[];
  readonly method?: HttpMethod;
}

export function applyJsMessaging(sources: readonly SourceFacts[]): SourceFacts[] {
  if (
    !sources.some((s) =>
      s.jsModules?.some(
        (m) => m.functions.some((f) => f.effects.length) || m.sites.some((x) => BULL_ADD.has(x.method ?? '')),
      ),
    )
  )
    return [...sources];
  const modules = new Map<string, Map<string, Mod>>();
  for (const s of sources) {
    const files = new Map<string, Mod>();
    for (const m of s.jsModules ?? []) files.set(m.file, { source: s.source, m });
    modules.set(s.source, files);
  }
  const packages: (JsPackage & { source: string })[] = sources.flatMap((s) =>
    (s.jsPackages ?? []).map((p) => ({ ...p, source: s.source })),
  );
  let steps = 0;

  const find = (source: string, base: string): Mod | undefined => {
    const files = modules.get(source);
    if (!files) return undefined;
    const b = base.replace(/\/+$/, '').replace(/\.[cm]?js$/, '');
    for (const ext of ['', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '/index.ts', '/index.tsx', '/index.js'])
      if (files.has(b + ext)) return files.get(b + ext);
    return undefined;
  };
  const resolveModule = (from: Mod, spec: string): Mod | undefined => {
    if (spec.startsWith('.')) return find(from.source, joinPath(dirOf(from.m.file), spec));
    // `@/x`, `~/x`: the usual alias of the project's `src/` (or its root).
    const alias = /^[@~]\/(.*)$/.exec(spec);
    if (alias) return find(from.source, `src/${alias[1]!}`) ?? find(from.source, alias[1]!);
    const pkg = packages.find((p) => spec === p.name || spec.startsWith(`${p.name}/`));
    if (!pkg) return undefined;
    const rest = spec.slice(pkg.name.length).replace(/^\//, '');
    const dir = pkg.dir ? `${pkg.dir}/` : '';
    if (rest) return find(pkg.source, `${dir}${rest}`) ?? find(pkg.source, `${dir}src/${rest}`);
    const entry = pkg.entry?.replace(/^\.\//, '');
    return (
      (entry ? find(pkg.source, dir + entry) : undefined) ??
      (entry ? find(pkg.source, dir + entry.replace(/^(dist|build|lib|out)\//, 'src/')) : undefined) ??
      find(pkg.source, `${dir}src/index`) ??
      find(pkg.source, `${dir}index`) ??
      find(pkg.source, `${dir}lib/index`)
    );
  };

  /** A name a module exports (or declares): its value, function, class, or what it re-exports. */
  const exported = (mod: Mod, name: string, seen: Set<string>): Res => {
    const key = `${mod.source}|${mod.m.file}|${name}`;
    if (seen.has(key) || seen.size > 64) return UNKNOWN;
    seen.add(key);
    const own = local(mod, name, seen);
    if (own.k !== 'unknown') return own;
    for (const r of mod.m.reexports) {
      if (r.names && !Object.prototype.hasOwnProperty.call(r.names, name)) continue;
      const target = resolveModule(mod, r.from);
      if (!target) continue;
      const v = exported(target, r.names ? r.names[name]! : name, seen);
      if (v.k !== 'unknown') return v;
    }
    return UNKNOWN;
  };
  const local = (mod: Mod, name: string, seen: Set<string>): Res => {
    const m = mod.m;
    if (Object.prototype.hasOwnProperty.call(m.values, name)) return evaluate(m.values[name]!, { mod, params: [] }, 0);
    const fn = m.functions.find((f) => f.name === name);
    if (fn) return { k: 'fn', mod, fn };
    const cls = m.classes.find((c) => c.name === name);
    if (cls) return { k: 'cls', mod, cls };
    if (Object.prototype.hasOwnProperty.call(m.imports, name)) {
      const imp = m.imports[name]!;
      const target = resolveModule(mod, imp.from);
      if (!target) return UNKNOWN;
      return imp.name === '*' ? { k: 'ns', mod: target } : exported(target, imp.name, seen);
    }
    return UNKNOWN;
  };

  const evaluate = (v: JsVal, ctx: Ctx, depth: number): Res => {
    if (++steps > STEPS_PER_SOURCE * sources.length || depth > 24) return UNKNOWN;
    if ('s' in v) return { k: 's', s: v.s };
    if ('env' in v) return { k: 'env', env: v.env, ...(v.fallback !== undefined ? { fallback: v.fallback } : {}) };
    if ('obj' in v) return { k: 'obj', v, ctx };
    if ('arr' in v) return { k: 'arr', items: v.arr, ctx };
    if ('alt' in v) return { k: 'alt', alts: v.alt.map((a) => evaluate(a, ctx, depth + 1)) };
    if ('cat' in v) {
      const items = v.cat.map((a) => evaluate(a, ctx, depth + 1));
      const parts = items.map((r) => strings(r));
      if (parts.some((p) => p.length !== 1 || items.some((r) => r.k === 'env' || r.k === 'alt')))
        return { k: 'cat', items };
      return { k: 's', s: parts.map((p) => p[0]!).join('') };
    }
    if ('id' in v) {
      let base: Res;
      const param = /^\$(\d+)$/.exec(v.id);
      if (param) base = ctx.params[Number(param[1])] ?? UNKNOWN;
      else if (v.id === 'this') base = ctx.self ?? UNKNOWN;
      else base = local(ctx.mod, v.id, new Set());
      for (const p of v.path ?? []) base = memberOf(base, p, depth);
      return base;
    }
    if ('call' in v) {
      const callee = evaluate(v.call, ctx, depth + 1);
      if (callee.k !== 'fn' || !callee.fn.returns) return { k: 'unknown', call: true };
      const args = v.args.map((a) => evaluate(a, ctx, depth + 1));
      let out = evaluate(
        callee.fn.returns,
        { mod: callee.mod, params: args, ...(callee.self ? { self: callee.self } : {}) },
        depth + 1,
      );
      for (const p of v.path ?? []) out = memberOf(out, p, depth);
      return out;
    }
    if ('new' in v) {
      const cls = evaluate(v.new, ctx, depth + 1);
      if (cls.k !== 'cls') return UNKNOWN;
      return instantiate(
        cls.mod,
        cls.cls,
        v.args.map((a) => evaluate(a, ctx, depth + 1)),
        depth,
      );
    }
    return UNKNOWN;
  };

  /** The class a class extends, found through its module's names. */
  const superOf = (mod: Mod, cls: JsClass): { mod: Mod; cls: JsClass } | undefined => {
    if (!cls.extends) return undefined;
    const r = local(mod, cls.extends, new Set());
    return r.k === 'cls' ? { mod: r.mod, cls: r.cls } : undefined;
  };
  const chain = (mod: Mod, cls: JsClass): { mod: Mod; cls: JsClass }[] => {
    const out = [{ mod, cls }];
    for (let c = superOf(mod, cls); c && out.length < 8; c = superOf(c.mod, c.cls)) out.push(c);
    return out;
  };
  /** `new C(args)`: fields from the initialisers (the subclass's win) and the constructors' assignments. */
  const instantiate = (mod: Mod, cls: JsClass, args: readonly Res[], depth: number): Res => {
    const fields = new Map<string, Res>();
    const classes = chain(mod, cls);
    for (const c of classes) {
      const ctor = c.mod.m.functions.find((f) => f.name === `${c.cls.name}.constructor`);
      // A subclass without a constructor passes its arguments on to its parent's.
      for (const [k, val] of Object.entries(ctor?.sets ?? {}))
        if (!fields.has(k)) fields.set(k, evaluate(val, { mod: c.mod, params: args }, depth + 1));
      for (const [k, val] of Object.entries(c.cls.fields))
        if (!fields.has(k)) fields.set(k, evaluate(val, { mod: c.mod, params: [] }, depth + 1));
    }
    return { k: 'inst', mod, cls, fields };
  };
  const methodOf = (inst: Extract<Res, { k: 'inst' }>, name: string): Res => {
    for (const c of chain(inst.mod, inst.cls)) {
      const fn = c.mod.m.functions.find((f) => f.name === `${c.cls.name}.${name}`);
      if (fn) return { k: 'fn', mod: c.mod, fn, self: inst };
    }
    return UNKNOWN;
  };

  const memberOf = (r: Res, prop: string, depth: number): Res => {
    switch (r.k) {
      case 'obj': {
        if (Object.prototype.hasOwnProperty.call(r.v.obj, prop)) return evaluate(r.v.obj[prop]!, r.ctx, depth + 1);
        // Later spreads win, as in JavaScript.
        for (const s of [...(r.v.spreads ?? [])].reverse()) {
          const m = memberOf(evaluate(s, r.ctx, depth + 1), prop, depth + 1);
          if (m.k !== 'unknown') return m;
        }
        return UNKNOWN;
      }
      case 'ns':
        return exported(r.mod, prop, new Set());
      case 'inst':
        return r.fields.get(prop) ?? methodOf(r, prop);
      case 'alt': {
        const alts = r.alts.map((a) => memberOf(a, prop, depth + 1)).filter((a) => a.k !== 'unknown');
        return alts.length === 0 ? UNKNOWN : alts.length === 1 ? alts[0]! : { k: 'alt', alts };
      }
      default:
        return UNKNOWN;
    }
  };

  /** The names a value may be (an array's items, an `env ?? default` as `${ENV:default}`). */
  const strings = (r: Res, depth = 0): string[] => {
    if (depth > 8) return [];
    switch (r.k) {
      case 's':
        return [r.s];
      case 'env':
        return [r.fallback !== undefined ? `\${${r.env}:${r.fallback}}` : `\${${r.env}}`];
      case 'arr':
        return r.items.flatMap((i) => strings(evaluate(i, r.ctx, depth + 1), depth + 1));
      case 'alt': {
        const [a, b] = r.alts;
        if (r.alts.length === 2 && a?.k === 'env' && b?.k === 's') return [`\${${a.env}:${b.s}}`];
        return [...new Set(r.alts.flatMap((x) => strings(x, depth + 1)))];
      }
      default:
        return [];
    }
  };
  const one = (v: JsVal | undefined, ctx: Ctx): string | undefined => {
    if (!v) return undefined;
    const s = strings(evaluate(v, ctx, 0));
    return s.length === 1 ? s[0] : undefined;
  };

  /** The operations running `fn` does (its own and those of what it calls), its parameters bound to `params`. */
  const opsOf = (mod: Mod, fn: JsFunction, ctx: Ctx, depth: number, seen: Set<JsFunction>): Op[] => {
    if (depth > MAX_CALL_DEPTH || seen.has(fn)) return [];
    const next = new Set(seen).add(fn);
    const out: Op[] = fn.effects.map((e) => opOf(e, ctx, `${mod.source}|${mod.m.file}:${e.line}`));
    for (const site of mod.m.sites) {
      if (site.fn !== fn.name) continue;
      const target = calleeOf(site, ctx);
      if (target) out.push(...opsOf(target.mod, target.fn, target.ctx, depth + 1, next));
    }
    return out.filter((o) => o.subjects.length > 0);
  };
  /** A value as URL parts: literals, settings (`${X:default}`), run-time holes. */
  const partsOf = (r: Res, depth = 0): Part[] => {
    if (depth > 8) return [{ hole: true }];
    switch (r.k) {
      case 's':
        return [{ lit: r.s }];
      case 'env':
        return [{ env: r.env, ...(r.fallback !== undefined ? { fallback: r.fallback } : {}) }];
      case 'cat': {
        const last = r.items[r.items.length - 1];
        const before = r.items[r.items.length - 2];
        // `/api/payments${buildQueryString(params)}`: a call's result glued to a path's last segment is its query.
        const query = last?.k === 'unknown' && last.call && before?.k === 's' && /[\w-]$/.test(before.s);
        return (query ? r.items.slice(0, -1) : r.items).flatMap((x) => partsOf(x, depth + 1));
      }
      case 'alt': {
        const [a, b] = r.alts;
        if (r.alts.length === 2 && a?.k === 'env' && b?.k === 's') return [{ env: a.env, fallback: b.s }];
        const known = r.alts.filter((x) => x.k !== 'unknown');
        return known.length === 1 ? partsOf(known[0]!, depth + 1) : [{ hole: true }];
      }
      default:
        return [{ hole: true }];
    }
  };
  const opOf = (e: JsEffect, ctx: Ctx, at: string): Op => {
    if (e.op === 'http') {
      const url = partsOf(evaluate(e.subject, ctx, 0));
      const m = e.method ? strings(evaluate(e.method, ctx, 0)) : [];
      const method = m.length === 1 ? httpMethod(m[0]!.toLowerCase()) : undefined;
      // The subjects of an HTTP operation: its URL as text, what tells instantiations apart.
      return { op: 'http', subjects: [JSON.stringify(url)], url, method: method ?? 'GET', at };
    }
    const stream = one(e.stream, ctx);
    const durable = one(e.durable, ctx);
    const group = one(e.group, ctx);
    // A declaration is no consumer; an attachment to a declared durable consumes its subjects.
    const subjects =
      e.op === 'declare'
        ? []
        : e.op === 'attach'
          ? (declared.get(`${stream ?? ''}|${durable ?? ''}`) ?? [])
          : strings(evaluate(e.subject, ctx, 0));
    return {
      op: e.op === 'publish' ? 'publish' : 'consume',
      subjects: subjects.filter((s) => s && !/\s/.test(s)),
      ...(stream ? { stream } : {}),
      ...(durable ? { durable } : {}),
      ...(group ? { group } : {}),
      at,
    };
  };
  const calleeOf = (site: JsModule['sites'][number], ctx: Ctx): { mod: Mod; fn: JsFunction; ctx: Ctx } | undefined => {
    let target = evaluate(site.callee, ctx, 0);
    if (site.method !== undefined) target = memberOf(target, site.method, 0);
    if (target.k !== 'fn') return undefined;
    const args = site.args.map((a) => evaluate(a, ctx, 0));
    return {
      mod: target.mod,
      fn: target.fn,
      ctx: { mod: target.mod, params: args, ...(target.self ? { self: target.self } : {}) },
    };
  };

  /**
   * What a name of a module is as written (not evaluated): its constant's value in the module that declares it,
   * through imports, re-exports and namespace members; undefined for anything else.
   */
  const written = (mod: Mod, v: JsVal): { mod: Mod; name: string; val: JsVal } | undefined => {
    if (!('id' in v) || /^\$\d+$|^this$/.test(v.id)) return undefined;
    let at: { mod: Mod; name: string } | undefined = { mod, name: v.id };
    for (const p of v.path ?? []) {
      if (!at) return undefined;
      const from: Mod = at.mod;
      const imp: { from: string; name: string } | undefined = Object.prototype.hasOwnProperty.call(
        from.m.imports,
        at.name,
      )
        ? from.m.imports[at.name]
        : undefined;
      const ns: Mod | undefined = imp?.name === '*' ? resolveModule(from, imp.from) : undefined;
      at = ns ? { mod: ns, name: p } : undefined;
    }
    for (let hops = 0; at && hops < 8; hops++) {
      const { mod: m, name } = at;
      if (Object.prototype.hasOwnProperty.call(m.m.values, name)) {
        const val = m.m.values[name]!;
        // `export { q as jobs }`: the alias names another constant of the module.
        if ('id' in val && !val.path && val.id !== name) {
          at = { mod: m, name: val.id };
          continue;
        }
        return { mod: m, name, val };
      }
      if (Object.prototype.hasOwnProperty.call(m.m.imports, name)) {
        const imp = m.m.imports[name]!;
        const target = imp.name === '*' ? undefined : resolveModule(m, imp.from);
        at = target ? { mod: target, name: imp.name } : undefined;
        continue;
      }
      const r = m.m.reexports.find((x) => !x.names || Object.prototype.hasOwnProperty.call(x.names, name));
      const target = r ? resolveModule(m, r.from) : undefined;
      at = target && r ? { mod: target, name: r.names ? r.names[name]! : name } : undefined;
    }
    return undefined;
  };
  /**
   * `q.add(…)` on a Bull/BullMQ/Bee-Queue queue that another module creates (`export const q = new Queue('x')`,
   * imported): the queue's name; undefined when `site` is no such call.
   */
  const bullQueueOf = (
    mod: Mod,
    site: JsModule['sites'][number],
  ): { name: string; mod: Mod; local: string } | undefined => {
    if (!BULL_ADD.has(site.method ?? '') || !('id' in site.callee)) return undefined;
    // A queue of the module itself is read from the file's text (`extract/channels.ts`).
    if (!site.callee.path && Object.prototype.hasOwnProperty.call(mod.m.values, site.callee.id)) return undefined;
    const def = written(mod, site.callee);
    if (!def || !('new' in def.val) || !('id' in def.val.new) || def.val.new.path) return undefined;
    const ctor = def.val.new.id;
    const lib = Object.prototype.hasOwnProperty.call(def.mod.m.imports, ctor) ? def.mod.m.imports[ctor]! : undefined;
    if (!lib || !BULL_LIBS.test(lib.from) || !/^(default|\*|Queue)$/.test(lib.name)) return undefined;
    const first = def.val.args[0];
    const names = first ? strings(evaluate(first, { mod: def.mod, params: [] }, 0)) : [];
    return names.length === 1 ? { name: names[0]!, mod: def.mod, local: def.name } : undefined;
  };
  /** Queues created in a module that uses them nowhere there: its construction stood for their producers. */
  const replaced = new Set<string>();

  // JetStream consumers declared anywhere (a topology, a setup script), by stream and durable name.
  const declared = new Map<string, string[]>();
  for (const files of modules.values())
    for (const mod of files.values())
      for (const fn of mod.m.functions)
        for (const e of fn.effects) {
          if (e.op !== 'declare' && e.op !== 'consume') continue;
          const ctx: Ctx = { mod, params: [] };
          const stream = one(e.stream, ctx);
          const durable = one(e.durable, ctx);
          if (stream === undefined || durable === undefined) continue;
          const key = `${stream}|${durable}`;
          declared.set(key, [...new Set([...(declared.get(key) ?? []), ...strings(evaluate(e.subject, ctx, 0))])]);
        }

  /** Library operations instantiated at a call site: their own run-time names are no gap. */
  const instantiated = new Set<string>();
  const out = sources.map((s) => {
    const files = modules.get(s.source);
    if (!files?.size) return s;
    const publishes: Publish[] = [];
    const consumes: Consume[] = [];
    const calls: Call[] = [];
    const browser = s.calls.some((c) => c.browser === true);
    const seen = new Set<string>();
    /** Records an operation at `loc`; false when it says nothing (an HTTP call without a known path). */
    const emit = (o: Op, loc: Loc): boolean => {
      if (o.op === 'http') {
        // Only a URL whose path the call site gives (a literal with a `/`) says where it goes.
        if (!o.url?.some((p) => 'lit' in p && p.lit.includes('/'))) return false;
        // One call per (site, method, path): a server-side `${BASE}/x` and the browser's relative `/x` of one
        // wrapper are the same request; the one naming its host is kept.
        const path = o.url
          .map((p) => ('lit' in p ? p.lit : '{}'))
          .join('')
          .replace(/^[^/]*(?=\/)/, '');
        const key = `http|${o.method ?? ''}|${path}|${loc.file}:${loc.line}`;
        const hosted = !('lit' in o.url[0]!) || !o.url[0].lit.startsWith('/');
        const i = seen.has(key)
          ? calls.findIndex((c) => `http|${c.method}|${pathOf(c.url)}|${c.loc.file}:${c.loc.line}` === key)
          : -1;
        const call: Call = {
          method: o.method ?? 'GET',
          url: o.url,
          client: 'fetch',
          loc,
          ...(browser ? { browser } : {}),
        };
        if (!seen.has(key)) calls.push(call);
        else if (i >= 0 && hosted) calls[i] = call;
        seen.add(key);
        return true;
      }
      for (const subject of o.subjects) {
        const key = `${o.op}|${subject}|${loc.file}:${loc.line}`;
        if (seen.has(key)) continue;
        seen.add(key);
        if (o.op === 'publish') publishes.push({ broker: 'nats', exchange: '', key: subject, loc });
        else
          consumes.push({
            broker: 'nats',
            queue: subject,
            loc,
            ...(o.stream ? { jetStream: o.stream } : {}),
            ...(o.durable ? { durable: o.durable } : o.group ? { durable: o.group } : {}),
          });
      }
      return true;
    };
    for (const mod of files.values()) {
      const fnByName = new Map(mod.m.functions.map((f) => [f.name, f] as const));
      // The operations of a function that its own parameters do not decide are reported where they are.
      for (const fn of mod.m.functions)
        for (const e of fn.effects) {
          const o = opOf(e, { mod, params: [] }, `${mod.source}|${mod.m.file}:${e.line}`);
          // An HTTP call where it is written is already one of the source's calls, unless its method only
          // a helper's returned options tell (`fetch(URL, buildInit({ method: 'POST' }))`).
          if (e.op === 'http' && (o.method === 'GET' || o.url?.some((p) => 'hole' in p))) continue;
          emit(o, { file: mod.m.file, line: e.line });
        }
      // A call whose callee's operations become known with this call's arguments: reported at the call.
      for (const site of mod.m.sites) {
        const queue = bullQueueOf(mod, site);
        if (queue) {
          const key = `bull|${queue.name}|${mod.m.file}:${site.line}`;
          if (!seen.has(key))
            publishes.push({
              broker: 'bullmq',
              exchange: '',
              key: queue.name,
              loc: { file: mod.m.file, line: site.line },
            });
          seen.add(key);
          const usedThere = queue.mod.m.sites.some(
            (x) => 'id' in x.callee && x.callee.id === queue.local && !x.callee.path && BULL_USE.has(x.method ?? ''),
          );
          if (!usedThere) replaced.add(`${queue.mod.source}|${queue.mod.m.file}|${queue.name}`);
          continue;
        }
        const enclosing = site.fn !== undefined ? fnByName.get(site.fn) : undefined;
        const ctx: Ctx = { mod, params: [] };
        const target = calleeOf(site, ctx);
        if (!target) continue;
        const closed = new Set(
          opsOf(target.mod, target.fn, { mod: target.mod, params: [] }, 0, new Set()).flatMap((o) =>
            o.subjects.map((x) => `${o.op}|${x}|${o.at}`),
          ),
        );
        for (const o of opsOf(target.mod, target.fn, target.ctx, 0, new Set(enclosing ? [enclosing] : []))) {
          const open = o.subjects.filter((x) => !closed.has(`${o.op}|${x}|${o.at}`));
          if (open.length && emit({ ...o, subjects: open }, { file: mod.m.file, line: site.line }))
            instantiated.add(o.at);
        }
      }
    }
    if (publishes.length === 0 && consumes.length === 0 && calls.length === 0) return s;
    const callLines = new Set(calls.map((c) => `${c.loc.file}:${c.loc.line}`));
    const natsLines = new Set([...publishes, ...consumes].map((x) => `${x.loc.file}:${x.loc.line}`));
    const mine = (x: { loc: Loc }): boolean => natsLines.has(`${x.loc.file}:${x.loc.line}`);
    return {
      ...s,
      // What the text rules read at a line that is a NATS operation here (a run-time name, the subject without
      // its queue group) gives way to this reading of it.
      publishes: [
        ...s.publishes.filter((p) => !(mine(p) && (p.broker === 'nats' || `${p.exchange}${p.key}`.includes('{}')))),
        ...publishes,
      ],
      consumes: [
        ...s.consumes.filter((c) => !(mine(c) && (c.broker === 'nats' || c.queue.includes('{}')))),
        ...consumes,
      ],
      // A call site read here through every level of wrappers replaces what one level of them made of it.
      calls: [...s.calls.filter((c) => !callLines.has(`${c.loc.file}:${c.loc.line}`)), ...calls],
    };
  });
  return out.map((facts) => {
    const construction = (p: Publish): boolean =>
      p.broker === 'bullmq' && replaced.has(`${facts.source}|${p.loc.file}|${p.key}`);
    const s = facts.publishes.some(construction)
      ? { ...facts, publishes: facts.publishes.filter((p) => !construction(p)) }
      : facts;
    const inLibrary = (x: { loc: Loc }): boolean => instantiated.has(`${s.source}|${x.loc.file}:${x.loc.line}`);
    const dynamic = (c: Call): boolean => inLibrary(c) && c.url.some((p) => 'hole' in p || 'ref' in p);
    if (!s.publishes.some(inLibrary) && !s.consumes.some(inLibrary) && !s.calls.some(dynamic)) return s;
    return {
      ...s,
      calls: s.calls.filter((c) => !dynamic(c)),
      publishes: s.publishes.filter((p) => !(inLibrary(p) && `${p.exchange}${p.key}`.includes('{}'))),
      consumes: s.consumes.filter((c) => !(inLibrary(c) && c.queue.includes('{}'))),
    };
  });
}

/** Bull/BullMQ/Bee-Queue: the libraries, the calls that produce a job, and every use of a queue in its file. */
const BULL_LIBS = /^(bull|bullmq|bee-queue)$/;
const BULL_ADD: ReadonlySet<string> = new Set(['add', 'addBulk', 'createJob']);
const BULL_USE: ReadonlySet<string> = new Set([...BULL_ADD, 'process']);

/** A URL's path as text, its host part dropped. */
const pathOf = (url: readonly Part[]): string =>
  url
    .map((p) => ('lit' in p ? p.lit : '{}'))
    .join('')
    .replace(/^[^/]*(?=\/)/, '');

const dirOf = (file: string): string => file.slice(0, Math.max(0, file.lastIndexOf('/')));

function joinPath(dir: string, rel: string): string {
  const out = dir ? dir.split('/') : [];
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') out.pop();
    else out.push(seg);
  }
  return out.join('/');
}
