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

/**
 * A last segment that takes the rest of the path, slashes included: Starlette/FastAPI `{p:path}`, Werkzeug
 * `<path:p>`, ASP.NET/Spring `{*p}` `{**p}`, a regex parameter `{p:.*}`/`{p:.+}` (gorilla, actix), a named
 * glob `*p` (Gin, httprouter, axum, Rails, Express 5).
 */
const REST_SEGMENT = /^(\{[^}:]+:path\}|<path:[^>]+>|\{\*\*?[^}]+\}|\{[^}:]+:\.[*+]\}|\*[A-Za-z_]\w*)$/;

/** Splits a path (no scheme/host) into normalised segments; drops the query string and trailing slash. */
export function segments(path: string): string[] {
  let p = path;
  const q = p.search(/(?<!\()[?#](?!\})/); // not the `(?P<name>` of a regex route, nor an optional `{id?}`
  if (q >= 0) p = p.slice(0, q);
  // Django/regex routes: ^orders/(?P<pk>\d+)/$
  p = p.replace(/^\^/, '').replace(/\$$/, '');
  const segs = p.split('/').filter((s) => s.length > 0);
  return segs.map((s, i) => (i === segs.length - 1 && REST_SEGMENT.test(s) ? CATCH_ALL : normaliseSegment(s)));
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

interface TrieNode {
  /** Children by a literal segment. */
  readonly lit: Map<string, TrieNode>;
  /** Children by a segment with a parameter (`{}`, `{#}`, `v{}`). */
  readonly wild: Map<string, TrieNode>;
  /** Templates ending here. */
  readonly ends: number[];
  /** Catch-all templates (`/prefix/**`) whose prefix ends here. */
  readonly catchAll: number[];
}
const trieNode = (): TrieNode => ({ lit: new Map(), wild: new Map(), ends: [], catchAll: [] });

/** Whether a call's segment can fill a template's segment that holds a parameter (as `matchScore` judges it). */
function segmentFits(call: string, template: string): boolean {
  if (template === PARAM) return true;
  if (template === INT_PARAM) return call === PARAM || call === INT_PARAM || /^\d+$/.test(call);
  return fitsPartial(call, template);
}

/**
 * Templates indexed by their segments, so that a call visits only the templates its path can reach
 * (linking is calls × templates otherwise: quadratic in the size of the application).
 */
export class RouteIndex {
  readonly #root = trieNode();

  constructor(templates: readonly (readonly string[])[]) {
    templates.forEach((t, i) => {
      const catchAll = t[t.length - 1] === CATCH_ALL;
      let node = this.#root;
      for (const s of catchAll ? t.slice(0, -1) : t) {
        const map = s.includes(PARAM) || s === INT_PARAM ? node.wild : node.lit;
        let next = map.get(s);
        if (!next) map.set(s, (next = trieNode()));
        node = next;
      }
      (catchAll ? node.catchAll : node.ends).push(i);
    });
  }

  /** The positions, in order, of the templates `matchScore` can accept for this call (a superset of none). */
  candidates(call: readonly string[]): number[] {
    const out: number[] = [];
    const visit = (node: TrieNode, d: number): void => {
      out.push(...node.catchAll);
      if (d === call.length) {
        out.push(...node.ends);
        return;
      }
      const c = call[d]!;
      const next = node.lit.get(c);
      if (next) visit(next, d + 1);
      for (const [t, child] of node.wild) if (segmentFits(c, t)) visit(child, d + 1);
    };
    visit(this.#root, 0);
    return out.sort((a, b) => a - b);
  }
}
