/**
 * Media type lists of agent cards (`defaultInputModes`, `defaultOutputModes`): `type/subtype`, where a
 * wildcard subtype (`image/*`) or `*\/*` stands for every type it covers.
 */

const parts = (m: string): [string, string] => {
  const [type = '', sub = ''] = m.trim().toLowerCase().split(';')[0]!.split('/');
  return [type.trim(), sub.trim()];
};

/** Whether `a` covers `b` (`image/*` covers `image/png`; equal types cover each other). */
export function mediaTypeCovers(a: string, b: string): boolean {
  const [at, as] = parts(a);
  const [bt, bs] = parts(b);
  if (at === '*') return true;
  if (at !== bt) return false;
  return as === '*' || as === bs;
}

/**
 * The media types both lists accept, each the narrower of a matching pair (ours `image/*` and theirs
 * `image/png` give `image/png`; ours `text/plain` and theirs `text/*` give `text/plain`), in our order,
 * without duplicates.
 */
export function intersectMediaTypes(ours: readonly string[], theirs: readonly string[]): string[] {
  const out: string[] = [];
  const add = (m: string): void => {
    if (!out.some((x) => x.toLowerCase() === m.toLowerCase())) out.push(m);
  };
  for (const o of ours)
    for (const t of theirs) {
      if (mediaTypeCovers(t, o)) add(o);
      else if (mediaTypeCovers(o, t)) add(t);
    }
  return out;
}
