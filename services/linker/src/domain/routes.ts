/** Rule 1: route templates normalised by position. A parameter segment is `{}`; literals compare case-insensitively. */

export const PARAM = '{}';
/**
 * A last template segment that serves everything below the prefix before it (gorilla/mux `PathPrefix`
 * with a handler, Spring's Ant `/**`).
 */
export const CATCH_ALL = '**';
/** Marks a part of a string that static analysis could not know. */
export const HOLE = '\u0000';

const PARAM_SEGMENT = [
  /^\{[^}]*\}$/, // {id} {id:int} {id:[0-9]+} {*rest}
  /^:[A-Za-z_][\w-]*\??$/, // :id  :id?
  /^<[^>]*>$/, // <int:id> <id>
  /^\(\?P<[^>]+>.*\)$/, // (?P<pk>\d+)
  /^\[[^\]]+\]$/, // [id] (file-system routing)
  /^\*$/, // owners/*/pets (Spring Ant pattern: one segment)
];

/**
 * A parameter constrained to digits (`{id:int}`, `{id:long}`, `<int:id>`, `{id:\d+}`, `(?P<pk>[0-9]+)`):
 * it fits a number or a run-time value, never a literal word (`items/by` is not `items/{id:int}`).
 */
export const INT_PARAM = '{#}';
const INT_SEGMENT = [
  /^\{[^}:]+:(int|long)\??\}$/i, // ASP.NET {id:int} {id:long?}
  /^<int:[^>]+>$/, // Flask / Django <int:id>
  /^\{[^}:]+:(\\d\+|\[0-9\]\+)\}$/, // Spring {id:\d+} {id:[0-9]+}
  /^\(\?P<[^>]+>(\\d\+|\[0-9\]\+)\)$/, // Django (?P<pk>\d+)
];

export function normaliseSegment(segment: string): string {
  if (segment.includes(HOLE)) return PARAM;
  for (const re of INT_SEGMENT) if (re.test(segment)) return INT_PARAM;
  for (const re of PARAM_SEGMENT) if (re.test(segment)) return PARAM;
  // A parameter inside a segment (`v{version:apiVersion}`, `{name}.json`): literal text around `{}`.
  if (/\{[^}]*\}/.test(segment)) return segment.replace(/\{[^}]*\}/g, PARAM).toLowerCase();
  return segment.toLowerCase();
}

const partialPatterns = new Map<string, RegExp>();
/** Whether a call segment fits a template segment with a parameter inside (`v1` fits `v{}`). */
function fitsPartial(call: string, template: string): boolean {
  let re = partialPatterns.get(template);
  if (!re) {
    const body = template
      .split(PARAM)
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]+');
    re = new RegExp(`^${body}$`);
    if (partialPatterns.size < 10_000) partialPatterns.set(template, re);
  }
  return call !== PARAM && re.test(call);
}

/** Splits a path (no scheme/host) into normalised segments; drops the query string and trailing slash. */
export function segments(path: string): string[] {
  let p = path;
  const q = p.search(/(?<!\()[?#](?!\})/); // not the `(?P<name>` of a regex route, nor an optional `{id?}`
  if (q >= 0) p = p.slice(0, q);
  // Django/regex routes: ^orders/(?P<pk>\d+)/$
  p = p.replace(/^\^/, '').replace(/\$$/, '');
  return p
    .split('/')
    .filter((s) => s.length > 0)
    .map(normaliseSegment);
}

/** Joins route prefixes the way frameworks do (`/api` + `orders/{id}` = `/api/orders/{id}`). */
export function joinPath(...parts: readonly string[]): string {
  const segs = parts.flatMap((p) => p.split('/')).filter((s) => s.length > 0);
  return '/' + segs.join('/');
}

/**
 * How many literal segments matched, or undefined when the call cannot reach the template. A catch-all
 * template (`/customers/**`) fits every path below its prefix and scores just under a template with as
 * many literals (a route of its own wins).
 */
export function matchScore(call: readonly string[], template: readonly string[]): number | undefined {
  const catchAll = template[template.length - 1] === CATCH_ALL;
  if (catchAll ? call.length < template.length - 1 : call.length !== template.length) return undefined;
  const n = catchAll ? template.length - 1 : call.length;
  let literals = catchAll ? -0.5 : 0;
  for (let i = 0; i < n; i++) {
    const c = call[i]!;
    const t = template[i]!;
    if (t === PARAM) continue;
    if (t === INT_PARAM) {
      // A run-time value, a number, or another template's numeric parameter (spec rule 1: constraints and
      // names do not affect a match between two templates).
      if (c === PARAM || c === INT_PARAM || /^\d+$/.test(c)) continue;
      return undefined;
    }
    if (c === t) {
      literals++;
      continue;
    }
    if (t.includes(PARAM) && fitsPartial(c, t)) continue;
    return undefined;
  }
  return literals;
}

export function displayTemplate(segs: readonly string[]): string {
  return '/' + segs.join('/');
}
