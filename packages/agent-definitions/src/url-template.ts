/**
 * URL templates (`https://api.example.com/items/{sku}`) of model HTTP tools and graph http steps. Their values
 * come from a model's tool call or a graph's state, so a prompt-injected model or a user's message chooses
 * them; the request carries the definition's secrets. Hence the origin (scheme, host, port) is literal and has
 * no userinfo, checked when a version is created and again on every expansion (ADR 0020, decision 8).
 */

const PLACEHOLDER = /\{([^{}]*)\}/g;
/** `scheme://authority`: the authority ends at the first `/`, `?`, `#` or `\` (a `/` to WHATWG URL for http). */
const ORIGIN_PART = /^(https?):\/\/([^/?#\\]*)/i;

/** Why a URL template may not be used; undefined when it may. Rules named so a 400 says which one. */
export function urlTemplateProblem(template: string): string | undefined {
  const m = ORIGIN_PART.exec(template);
  if (!m) return 'must start with a literal http:// or https:// origin (placeholders only in the path and query)';
  if (/[{}]/.test(m[2]!))
    return 'the origin (scheme, host, port) of a URL template must be literal: placeholders only in the path and query';
  if (m[2]!.includes('@')) return 'must not carry userinfo (user:password@) before the host';
  if (!URL.canParse(template.replace(PLACEHOLDER, 'x')) || !URL.canParse(`${m[1]}://${m[2]}`))
    return 'is not a valid URL';
  if (dotSegment(pathPart(template, m[0].length)))
    return 'must not contain "." or ".." path segments (they would move the request to another path)';
  return undefined;
}

/** A value cannot be placed in a URL template without leaving its path or query, or the template is bad. */
export class UrlTemplateError extends Error {
  override readonly name = 'UrlTemplateError';
}

/**
 * The URL with each placeholder replaced by its value percent-encoded as one component (`/`, `@`, `\`, `?`,
 * `#`, `%` included), checked after parsing: the origin equals the template's literal origin, no userinfo, and
 * no `.`/`..` segment a value made. Throws UrlTemplateError otherwise, so nothing is sent.
 */
export function expandUrlTemplate(template: string, value: (name: string) => string): URL {
  const problem = urlTemplateProblem(template);
  if (problem) throw new UrlTemplateError(`the URL template ${problem}`);
  const m = ORIGIN_PART.exec(template)!;
  const expanded = template.replace(PLACEHOLDER, (_m, name: string) => encodeURIComponent(value(name)));
  const url = new URL(expanded);
  const origin = new URL(`${m[1]}://${m[2]}`).origin;
  if (url.origin !== origin || url.username !== '' || url.password !== '')
    throw new UrlTemplateError(`the filled URL left the template's origin ${origin}`);
  if (dotSegment(pathPart(expanded, m[0].length)))
    throw new UrlTemplateError('a value is a "." or ".." path segment, which would move the request to another path');
  return url;
}

const pathPart = (url: string, from: number): string => url.slice(from).split(/[?#]/, 1)[0]!;

/** WHATWG URL treats `%2e` as `.` in a dot segment, and `\` as `/` for http(s). */
const dotSegment = (path: string): boolean =>
  path.split(/[/\\]/).some((s) => {
    const d = s.replace(/%2e/gi, '.');
    return d === '.' || d === '..';
  });
