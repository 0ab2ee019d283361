import type { Call, GoFunc, GrpcCall, Part, SourceFacts } from './model';

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
export function applyGoPackages(sources: readonly SourceFacts[]): SourceFacts[] {
  if (!sources.some((s) => s.goSites?.length)) return [...sources];
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
  const calls = sources.map((s) => [...s.calls]);
  const grpc = sources.map((s) => [...s.grpcCalls]);
  // The calls inside each function, in list order: each site visits its function's calls only (review 22 #11:
  // every site scanned every call of the source, each against every function).
  const callsIn = insideIndex(calls, around);
  const grpcIn = insideIndex(grpc, around);
  const moved = sources.map(() => new Set<Call | GrpcCall>());
  const done = new Set<string>();
  let budget = MAX_INSTANTIATED_CALLS;
  for (let round = 0; round < MAX_DEPTH && budget > 0; round++) {
    let added = false;
    sources.forEach((s, i) => {
      for (const site of s.goSites ?? []) {
        for (const { src: j, f } of byName.get(`${site.pkg}.${site.name}`) ?? []) {
          if (j === i || budget <= 0) continue;
          const key = (n: number): string => `${i}|${site.loc.file}:${site.loc.line}|${j}|${n}`;
          for (const n of callsIn(j, f)) {
            if (budget <= 0) break;
            if (done.has(key(n))) continue;
            const c = calls[j]![n]!;
            budget -= 1;
            done.add(key(n));
            calls[i]!.push({ ...c, url: bind(c.url, f.params, site.args), loc: site.loc });
            moved[j]!.add(c);
            added = true;
          }
          for (const n of grpcIn(j, f)) {
            if (budget <= 0) break;
            if (done.has(`g${key(n)}`)) continue;
            const c = grpc[j]![n]!;
            budget -= 1;
            done.add(`g${key(n)}`);
            grpc[i]!.push({ ...c, address: bind(c.address, f.params, site.args), loc: site.loc });
            moved[j]!.add(c);
            added = true;
          }
        }
      }
    });
    if (!added) break;
  }
  return sources.map((s, i) =>
    moved.every((m) => m.size === 0) && calls[i]!.length === s.calls.length
      ? s
      : {
          ...s,
          calls: calls[i]!.filter((c) => !moved[i]!.has(c)),
          grpcCalls: grpc[i]!.filter((c) => !moved[i]!.has(c)),
        },
  );
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

/** The value with the function's parameters replaced by the site's arguments (unknown when left out). */
function bind(value: readonly Part[], params: readonly string[], args: readonly (readonly Part[])[]): Part[] {
  return value.flatMap((p): Part[] => {
    const k = 'ref' in p ? params.indexOf(p.ref) : -1;
    if (k < 0) return [p];
    return args[k] ? [...args[k]] : [p];
  });
}
