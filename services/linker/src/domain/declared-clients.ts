import type { Call, ConfigEntry, Loc, Part, SourceFacts } from './model';

/**
 * Declared client interfaces (a Feign `@FeignClient` interface, Retrofit, `@HttpExchange`) kept in a library
 * module that services depend on (`shared/common/…/FraudClient.java`): the request is made by the service that
 * injects the interface and calls its methods, so each call is reported at those call sites
 * (`fraudClient.isFraudster(id)` in another source), once per site; a method no attached source calls gives
 * no call, nor does an interface of such a library whose methods are called nowhere. The configuration the
 * library ships for the URL (`clients.fraud.url` in its `application.properties` and profile overlays such as
 * `application-docker.properties`) is read as the calling service's, under the profiles it runs with, unless
 * the service sets the key itself. An interface declared and used within one source stays as extracted.
 */
export function applyDeclaredClients(sources: readonly SourceFacts[]): SourceFacts[] {
  // The sources declaring a client class of each name.
  const declaredIn = new Map<string, Set<string>>();
  for (const s of sources)
    for (const c of s.calls)
      if (c.clientMethod && c.clientClass) {
        const set = declaredIn.get(c.clientClass) ?? new Set<string>();
        set.add(s.source);
        declaredIn.set(c.clientClass, set);
      }
  if (declaredIn.size === 0) return [...sources];
  // Where each declared class's methods are invoked, in any source.
  const uses = new Map<string, { source: string; method: string; loc: Loc }[]>();
  for (const s of sources)
    for (const u of s.typedInvocations ?? []) {
      if (!declaredIn.has(u.type)) continue;
      const list = uses.get(u.type) ?? [];
      list.push({ source: s.source, method: u.method, loc: u.loc });
      uses.set(u.type, list);
    }
  // A class of one name declared by a single source: used from another one, it is that source's library.
  const foreignUse = (cls: string): boolean => {
    const declarers = declaredIn.get(cls)!;
    if (declarers.size !== 1) return false;
    return (uses.get(cls) ?? []).some((u) => !declarers.has(u.source));
  };
  const libraries = new Set<string>();
  for (const cls of declaredIn.keys()) if (foreignUse(cls)) for (const s of declaredIn.get(cls)!) libraries.add(s);
  if (libraries.size === 0) return [...sources];

  const added = new Map<string, { calls: Call[]; config: ConfigEntry[]; bases: Record<string, Part[]> }>();
  const bySource = new Map(sources.map((s) => [s.source, s] as const));
  const rewritten = sources.map((s) => {
    if (!libraries.has(s.source)) return s;
    const calls: Call[] = [];
    for (const c of s.calls) {
      if (!c.clientMethod || !c.clientClass) {
        calls.push(c);
        continue;
      }
      const classUses = uses.get(c.clientClass) ?? [];
      // Declared by several sources, or used only here: as extracted.
      if (declaredIn.get(c.clientClass)!.size !== 1 || (classUses.length > 0 && !foreignUse(c.clientClass))) {
        calls.push(c);
        continue;
      }
      for (const u of classUses) {
        if (u.method !== c.clientMethod) continue;
        const { clientMethod: _m, ...rest } = c;
        const call: Call = { ...rest, loc: u.loc };
        if (u.source === s.source) {
          calls.push(call);
          continue;
        }
        const into = added.get(u.source) ?? { calls: [], config: [], bases: {} };
        into.calls.push(call);
        // The base address the library registers for the interface (`retrofit.create(X.class)` there).
        const base =
          c.clientClass !== '__proto__' && Object.prototype.hasOwnProperty.call(s.clientBases, c.clientClass)
            ? s.clientBases[c.clientClass]
            : undefined;
        if (base) into.bases[c.clientClass] = base;
        into.config.push(...libraryConfig(s, bySource.get(u.source)!, [...c.url, ...(base ?? [])]));
        added.set(u.source, into);
      }
    }
    return { ...s, calls };
  });
  if (added.size === 0) return rewritten;
  return rewritten.map((s) => {
    const more = added.get(s.source);
    if (!more) return s;
    const seen = new Set<string>();
    const config = more.config.filter((e) => {
      const k = `${e.loc.file}|${e.loc.line}|${e.key}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    // The caller's own registration of an interface's base address wins over the library's.
    const clientBases = { ...more.bases, ...s.clientBases };
    return { ...s, calls: [...s.calls, ...more.calls], config: [...s.config, ...config], clientBases };
  });
}

/** The library's own entries (every profile's file) for the keys a call's URL reads that the user does not set. */
function libraryConfig(library: SourceFacts, user: SourceFacts, url: readonly Part[]): ConfigEntry[] {
  const keys = new Set<string>();
  for (const p of url) if ('config' in p) keys.add(p.config);
  if (keys.size === 0) return [];
  const own = new Set(user.config.filter((e) => !e.scope).map((e) => e.key));
  return library.config.filter((e) => !e.scope && !e.bundle && keys.has(e.key) && !own.has(e.key));
}
