import type { Call, Consume, GoCtorCall, GoFunc, GoSite, GrpcCall, Part, Publish, SourceFacts } from './model';
import { nameOf } from './extract/common';
import { joinPath } from './routes';

/** Rounds of instantiation: a wrapper of one package called by a client of another, called by a service. */
const MAX_DEPTH = 4;
/**
 * Calls instantiated at importers' sites per link, at most: each site copies every call of the function it names,
 * so N sites of a function holding N calls made N² (a thousand of each: a million calls, 18 s, 565 MB). Past it
 * the remaining calls stay where they are written, as before these summaries.
 */
export const MAX_INSTANTIATED_CALLS = 20_000;

/**
 * Go packages imported across sources. A call made inside a function or method of package P (an HTTP or
 * gRPC call) is P's summary; a site in another source that calls that function of P (`eta.customer.Get(…)`,
 * `c.client.GetJSON(ctx, "/customer", url, &out)`) makes the call there, with the site's arguments in
 * place of the function's parameters, to any depth within a budget. Instantiated calls leave the package's
 * source: a client package that lives in the callee's folder (`customer.NewClient`) is the caller's call,
 * and a wrapper of another package (`tracing.HTTPClient.GetJSON`) is its callers' calls.
 */
export function applyGoPackages(input: readonly SourceFacts[]): SourceFacts[] {
  if (!input.some((s) => s.goSites?.length || s.goFieldSites?.length || s.goBound?.length)) return [...input];
  const sources = input.map((s) => withTypedSites(withFieldSites(s)));
  const byName = new Map<string, { src: number; f: GoFunc }[]>();
  sources.forEach((s, src) => {
    for (const f of s.goFuncs ?? []) {
      const key = `${f.pkg}.${f.name}`;
      const list = byName.get(key) ?? [];
      list.push({ src, f });
      byName.set(key, list);
    }
  });
  // Each source's functions by file: the innermost one around a line is looked for among its file's only.
  const funcsByFile = sources.map((s) => {
    const m = new Map<string, GoFunc[]>();
    for (const f of s.goFuncs ?? []) {
      const list = m.get(f.file);
      if (list) list.push(f);
      else m.set(f.file, [f]);
    }
    return m;
  });
  /** The innermost function of a source around a line. */
  const around = (src: number, file: string, line: number): GoFunc | undefined => {
    let best: GoFunc | undefined;
    for (const f of funcsByFile[src]!.get(file) ?? [])
      if (f.start <= line && line <= f.end && (!best || f.start >= best.start)) best = f;
    return best;
  };
  // A local bound to another package's constructor (`cfg := config.Load()`): `cfg.OrdersURL` in the file's own
  // calls is the field the constructor set, over that call's arguments.
  const ownFields = sources.map((s, i) => {
    const byFile = new Map<string, Map<string, Part[]>>();
    for (const b of s.goBound ?? []) {
      const made = (byName.get(`${b.pkg}.${b.ctor.name}`) ?? []).find((x) => x.src !== i && x.f.fields);
      const fields =
        made &&
        receiverFields(
          { pkg: b.pkg, name: '', args: [], loc: { file: b.file, line: 0 }, ctor: b.ctor },
          { ...made.f, recv: b.name },
          [made],
          made.src,
        );
      if (!fields) continue;
      const m = byFile.get(b.file) ?? new Map<string, Part[]>();
      for (const [k, v] of fields) m.set(k, v);
      byFile.set(b.file, m);
    }
    return byFile;
  });
  /**
   * The functions of another source's package a site names: by the import path's package name when the import
   * is aliased (`usergrpc "shop/user_svc/api/grpc"`), and among namesakes the ones whose source and folder
   * end the import path (`user_svc/api/grpc`, not `order_svc/api/grpc`).
   */
  const packageFuncs = (site: GoSite, name: string): { src: number; f: GoFunc }[] => {
    const named = byName.get(`${site.path ? packageName(site.path, site.pkg) : site.pkg}.${name}`) ?? [];
    if (!site.path || named.length < 2) return named;
    const path = site.path;
    const fits = named.filter(({ src, f }) => {
      const dir = f.file.includes('/') ? f.file.slice(0, f.file.lastIndexOf('/')) : '';
      const at = dir ? `${sources[src]!.source}/${dir}` : sources[src]!.source;
      return path === at || path.endsWith(`/${at}`);
    });
    return fits.length ? fits : named;
  };
  const calls = sources.map((s, i) =>
    s.calls.map((c) => {
      const fields = ownFields[i]!.get(c.loc.file);
      return fields && c.url.some((p) => 'ref' in p && fields.has(p.ref))
        ? { ...c, url: bind(c.url, [], [], fields) }
        : c;
    }),
  );
  const grpc = sources.map((s) => [...s.grpcCalls]);
  // The calls inside each function, in list order: each site visits its function's calls only (review 22 #11:
  // every site scanned every call of the source, each against every function).
  const callsIn = insideIndex(calls, around);
  const grpcIn = insideIndex(grpc, around);
  const moved = sources.map(() => new Set<Call | GrpcCall>());
  /** Publishes and consumes of a package's messaging wrappers, made at their callers' sites in other sources. */
  const published = sources.map((): Publish[] => []);
  const consumed = sources.map((): Consume[] => []);
  const done = new Set<string>();
  /** Client types another source constructs and calls (`usergrpc.NewClient(…)` then `.Find`), by folder and type. */
  const built = sources.map(() => new Set<string>());
  const typeKey = (f: GoFunc): string => `${f.file.slice(0, Math.max(0, f.file.lastIndexOf('/')))}|${f.recvType ?? ''}`;
  let budget = MAX_INSTANTIATED_CALLS;
  for (let round = 0; round < MAX_DEPTH && budget > 0; round++) {
    let added = false;
    sources.forEach((s, i) => {
      for (const site of s.goSites ?? []) {
        const named = packageFuncs(site, site.name);
        // The source's own package of that name and function (every Kratos service has `server.NewHTTPServer`)
        // is the one it calls, not another source's namesake.
        if (named.some((x) => x.src === i)) continue;
        for (const { src: j, f } of named) {
          // A field declared `*order.Client` runs Client's methods, not a server's of the same name.
          if (j === i || budget <= 0 || (site.recvType && f.recvType && f.recvType !== site.recvType)) continue;
          // A name typed by an interface runs the methods of the type its bound constructor returns, only.
          if (site.byType) {
            const ctor = packageFuncs(site, site.ctor?.name ?? '').find((x) => x.src === j && !x.f.recv)?.f;
            const made = ctor?.made ?? ctor?.returned;
            if (!made || f.recvType !== made) continue;
          }
          const fields = receiverFields(site, f, packageFuncs(site, site.ctor?.name ?? ''), j);
          const key = (n: number): string => `${i}|${site.loc.file}:${site.loc.line}|${j}|${n}`;
          for (const n of callsIn(j, f)) {
            if (budget <= 0) break;
            if (done.has(key(n))) continue;
            const c = calls[j]![n]!;
            budget -= 1;
            done.add(key(n));
            calls[i]!.push({ ...c, url: bind(c.url, f.params, site.args, fields), loc: site.loc });
            moved[j]!.add(c);
            if (site.ctor && f.recvType) built[j]!.add(typeKey(f));
            added = true;
          }
          if (round === 0)
            for (const u of sources[j]!.goMessageUses ?? []) {
              if (u.loc.file !== f.file || around(j, u.loc.file, u.loc.line) !== f) continue;
              const subject = nameOf(bind(u.subject, f.params, site.args, fields));
              if (subject === undefined || subject.includes('{}') || budget <= 0) continue;
              budget -= 1;
              if (u.side === 'publish')
                published[i]!.push({ broker: u.broker, exchange: '', key: subject, loc: site.loc });
              else {
                const group = u.group ? nameOf(bind(u.group, f.params, site.args, fields)) : undefined;
                consumed[i]!.push({
                  broker: u.broker,
                  queue: subject,
                  loc: site.loc,
                  ...(group && !group.includes('{}') ? { durable: group } : {}),
                });
              }
            }
          for (const n of grpcIn(j, f)) {
            if (budget <= 0) break;
            if (done.has(`g${key(n)}`)) continue;
            const c = grpc[j]![n]!;
            budget -= 1;
            done.add(`g${key(n)}`);
            grpc[i]!.push({ ...c, address: bind(c.address, f.params, site.args, fields), loc: site.loc });
            moved[j]!.add(c);
            if (site.ctor && f.recvType) built[j]!.add(typeKey(f));
            added = true;
          }
        }
      }
    });
    if (!added) break;
  }
  // A method of such a client type that no importer calls (`order_svc`'s client `Get`, unused by the gateway)
  // makes no request from its own folder: the type runs in its importers' processes.
  sources.forEach((_, j) => {
    if (!built[j]!.size) return;
    for (const c of [...calls[j]!, ...grpc[j]!]) {
      const g = around(j, c.loc.file, c.loc.line);
      if (g?.recvType && built[j]!.has(typeKey(g))) moved[j]!.add(c);
    }
  });
  return sources.map((s0, i) => {
    const s =
      published[i]!.length || consumed[i]!.length
        ? { ...s0, publishes: [...s0.publishes, ...published[i]!], consumes: [...s0.consumes, ...consumed[i]!] }
        : s0;
    return moved.every((m) => m.size === 0) &&
      calls[i]!.length === s.calls.length &&
      calls[i]!.every((c, n) => c === s.calls[n])
      ? s
      : {
          ...s,
          calls: calls[i]!.filter((c) => !moved[i]!.has(c)),
          grpcCalls: grpc[i]!.filter((c) => !moved[i]!.has(c)),
        };
  });
}

/** The package name an import path stands for (its last element, before a major version `/v2`). */
function packageName(path: string, alias: string): string {
  const parts = path.split('/');
  const last = parts.pop() ?? alias;
  return /^v\d+$/.test(last) && parts.length ? parts.pop()! : last;
}

/**
 * Calls on a name whose declared type is another package's (`var usersvc user.Service`, `UserService()
 * user.Service` in an interface, `s.UserService().Find(ctx)`): when the source binds names of that one type to
 * one constructor of an imported package (`usersvc = usergrpc.NewClient(…)`), the call runs the method of the
 * type that constructor returns (`usergrpc.Client.Find`). Names declared with two types, and types bound to
 * two constructors, say nothing.
 */
function withTypedSites(s: SourceFacts): SourceFacts {
  if (!s.goTyped?.length || !s.goBound?.length) return s;
  const typeOf = new Map<string, string | null>();
  for (const t of s.goTyped) {
    const prev = typeOf.get(t.name);
    typeOf.set(t.name, prev === undefined || prev === t.type ? t.type : null);
  }
  const bound = new Map<string, { pkg: string; path: string; ctor: GoCtorCall } | null>();
  for (const b of s.goBound) {
    const t = typeOf.get(b.name);
    if (!t || !b.path) continue;
    const prev = bound.get(t);
    const same = prev && prev.path === b.path && prev.ctor.name === b.ctor.name;
    bound.set(t, prev === undefined || same ? { pkg: b.pkg, path: b.path, ctor: b.ctor } : null);
  }
  const sites: GoSite[] = [];
  for (const f of [...(s.goTypedSites ?? []), ...(s.goFieldSites ?? [])]) {
    const t = typeOf.get(f.field);
    const x = t ? bound.get(t) : undefined;
    if (x) sites.push({ pkg: x.pkg, path: x.path, name: f.name, args: f.args, loc: f.loc, ctor: x.ctor, byType: true });
  }
  return sites.length ? { ...s, goSites: [...(s.goSites ?? []), ...sites] } : s;
}

/**
 * A source's calls through a field bound in another file of the same package (`r.server.accounts.Post(…)`,
 * the field declared `accounts *account.Client` and set from `account.NewClient(url)` in `server.go`) are
 * package sites of the package the field holds, when every binding of that name in the package names one
 * package; with the constructor call when exactly one binding was built by one.
 */
function withFieldSites(s: SourceFacts): SourceFacts {
  if (!s.goFieldSites?.length || !s.goHolders?.length) return s;
  const held = new Map<string, { pkgs: Set<string>; ctors: GoCtorCall[]; types: Set<string> }>();
  for (const h of s.goHolders) {
    const key = `${h.in}|${h.name}`;
    const x = held.get(key) ?? { pkgs: new Set<string>(), ctors: [], types: new Set<string>() };
    x.pkgs.add(h.pkg);
    if (h.ctor) x.ctors.push(h.ctor);
    if (h.type) x.types.add(h.type);
    held.set(key, x);
  }
  const sites: GoSite[] = [];
  for (const f of s.goFieldSites) {
    const x = held.get(`${f.in}|${f.field}`);
    if (x?.pkgs.size !== 1) continue;
    const ctor = x.ctors.length === 1 ? x.ctors[0] : undefined;
    const recvType = x.types.size === 1 ? [...x.types][0] : undefined;
    sites.push({
      pkg: [...x.pkgs][0]!,
      name: f.name,
      args: f.args,
      loc: f.loc,
      ...(ctor ? { ctor } : {}),
      ...(recvType ? { recvType } : {}),
    });
  }
  return sites.length ? { ...s, goSites: [...(s.goSites ?? []), ...sites] } : s;
}

/**
 * The indices of each source's calls by the innermost function around them, indexed as the lists grow (calls
 * instantiated in a round sit in functions of their own source, which later rounds instantiate again).
 */
function insideIndex<T extends Call | GrpcCall>(
  lists: readonly T[][],
  around: (src: number, file: string, line: number) => GoFunc | undefined,
): (src: number, f: GoFunc) => readonly number[] {
  const indexed = lists.map(() => 0);
  const byFunc = lists.map(() => new Map<GoFunc, number[]>());
  return (src, f) => {
    const list = lists[src]!;
    for (let n = indexed[src]!; n < list.length; n++) {
      const g = around(src, list[n]!.loc.file, list[n]!.loc.line);
      if (!g) continue;
      const at = byFunc[src]!.get(g);
      if (at) at.push(n);
      else byFunc[src]!.set(g, [n]);
    }
    indexed[src] = list.length;
    return byFunc[src]!.get(f) ?? [];
  };
}

/**
 * The value with the function's parameters replaced by the site's arguments (unknown when left out), and the
 * receiver's fields (`c.baseURL`) by what the constructor the site's receiver was built with set them to.
 */
function bind(
  value: readonly Part[],
  params: readonly string[],
  args: readonly (readonly Part[])[],
  fields?: ReadonlyMap<string, readonly Part[]>,
): Part[] {
  return value.flatMap((p): Part[] => {
    const field = 'ref' in p ? fields?.get(p.ref) : undefined;
    if (field) return [...field];
    const k = 'ref' in p ? params.indexOf(p.ref) : -1;
    if (k < 0) return [p];
    return args[k] ? [...args[k]] : [p];
  });
}

/**
 * A method's receiver fields (`c.baseURL`) as the site's constructor call set them: the constructor of the
 * method's package (`NewClient(cfg Config) *Client { return &Client{baseURL: cfg.URL} }`) with the call's
 * arguments, a struct literal argument read by key (`orders.Config{URL: os.Getenv("ORDERS_URL")}`).
 */
function receiverFields(
  site: GoSite,
  method: GoFunc,
  ctors: readonly { src: number; f: GoFunc }[],
  src: number,
): Map<string, Part[]> | undefined {
  const ctor = site.ctor;
  const made = ctors.find((x) => x.src === src && x.f.fields)?.f;
  if (!ctor || !method.recv || !made?.fields) return undefined;
  const out = new Map<string, Part[]>();
  for (const [name, value] of Object.entries(made.fields)) {
    const bound = value.flatMap((p): Part[] => {
      if (!('ref' in p)) return [p];
      const [root, key] = p.ref.split('.', 2) as [string, string | undefined];
      const k = made.params.indexOf(root);
      if (k < 0) return [p];
      if (key === undefined) return ctor.args[k] ? [...ctor.args[k]] : [p];
      const keyed = ctor.keyed?.[k];
      return keyed && Object.prototype.hasOwnProperty.call(keyed, key) ? [...keyed[key]!] : [p];
    });
    out.set(`${method.recv}.${name}`, bound);
  }
  return out;
}

/** Rounds of a callback handed on (`RunHTTPServer` → `RunHTTPServerOnAddr` → `Mount`) and of calls followed from it. */
const MAX_CALLBACK_DEPTH = 8;
/** Functions reached from one callback, at most. */
const MAX_REACHED = 400;

/**
 * Callbacks across packages: a function given to another package's function (`server.RunHTTPServer(func(r
 * chi.Router) http.Handler { return ports.HandlerFromMux(srv, r) })`) that mounts what it returns under a
 * prefix (`root.Mount("/api", createHandler(api))`, after any number of functions handing the parameter on).
 * The routes the callback registers, in its own lines or in the functions of its source it reaches by calls,
 * get that prefix. A route reached from several callbacks takes the first one's.
 */
export function applyGoMounts(sources: readonly SourceFacts[]): SourceFacts[] {
  if (!sources.some((s) => s.goCallbacks?.length)) return [...sources];
  const byName = new Map<string, { src: number; f: GoFunc }[]>();
  sources.forEach((s, src) => {
    for (const f of s.goFuncs ?? []) {
      const list = byName.get(`${f.pkg}.${f.name}`) ?? [];
      list.push({ src, f });
      byName.set(`${f.pkg}.${f.name}`, list);
    }
  });
  /**
   * The prefix function `to` mounts its argument `arg` under, through the functions it hands it to: breadth
   * first over (function, argument) pairs, each once, at most 8 hand-ons deep; memoised per start.
   */
  const memo = new Map<string, string | undefined>();
  const mountOf = (to: string, arg: number, only: number | undefined): string | undefined => {
    const start = `${to}|${arg}|${only ?? ''}`;
    if (memo.has(start)) return memo.get(start);
    const seen = new Set([start]);
    let level: { to: string; arg: number; only: number | undefined }[] = [{ to, arg, only }];
    let found: string | undefined;
    for (let depth = 0; depth <= MAX_CALLBACK_DEPTH && level.length && found === undefined; depth++) {
      const next: typeof level = [];
      for (const x of level) {
        for (const { src, f } of byName.get(x.to) ?? []) {
          if (x.only !== undefined && src !== x.only) continue;
          found ??= f.mounts?.find((m) => m.param === x.arg)?.prefix;
          for (const fw of f.forwards ?? []) {
            if (fw.param !== x.arg) continue;
            const y = { to: fw.to, arg: fw.arg, only: fw.to.startsWith(`${f.pkg}.`) ? src : undefined };
            const key = `${y.to}|${y.arg}|${y.only ?? ''}`;
            if (!seen.has(key)) {
              seen.add(key);
              next.push(y);
            }
          }
        }
      }
      level = next;
    }
    memo.set(start, found);
    return found;
  };
  return sources.map((s, i) => {
    if (!s.goCallbacks?.length || s.endpoints.length === 0) return s;
    const prefixed = new Map<number, string>();
    for (const cb of s.goCallbacks) {
      const prefix = mountOf(cb.to, cb.arg, cb.local ? i : undefined);
      if (!prefix) continue;
      // The callback's own lines, then the functions of this source it reaches by calls.
      const spans: { file: string; start: number; end: number }[] = cb.span ? [{ file: cb.loc.file, ...cb.span }] : [];
      const seen = new Set<string>();
      let next = [...cb.calls];
      for (let d = 0; d < MAX_CALLBACK_DEPTH && next.length && seen.size < MAX_REACHED; d++) {
        const found: string[] = [];
        for (const key of next) {
          if (seen.has(key)) continue;
          seen.add(key);
          for (const { src, f } of byName.get(key) ?? []) {
            if (src !== i) continue;
            spans.push(f);
            found.push(...(f.calls ?? []));
          }
        }
        next = found;
      }
      s.endpoints.forEach((e, n) => {
        if (prefixed.has(n)) return;
        if (spans.some((x) => x.file === e.loc.file && x.start <= e.loc.line && e.loc.line <= x.end))
          prefixed.set(n, prefix);
      });
    }
    if (prefixed.size === 0) return s;
    return {
      ...s,
      endpoints: s.endpoints.map((e, n) => (prefixed.has(n) ? { ...e, path: joinPath(prefixed.get(n)!, e.path) } : e)),
    };
  });
}
