import type { HttpMethod, Loc, Part } from '../model';
import type { Sink } from './common';

/**
 * Clients generated from an OpenAPI document (openapi-generator for TypeScript, JavaScript, Java, Python and Go; NSwag
 * for C# and TypeScript): each operation is a function whose path template and method are literals of the
 * generated code (`localVarPath = "/pet/{petId}"`, `method: 'GET'`, `urlBuilder_.Append("pet/")`). The
 * base path is configuration given at run time, so the call is a known path under an unknown host (it
 * links when one attached repository serves the path). Only operations the source calls from its own code
 * (by name, generator suffixes aside) are calls: a generated client holds every operation of the document.
 */

const GENERATED = /openapi-generator|OpenAPI Generator|Generated using the NSwag toolchain|NSwag/;

/** Where an operation starts, per language, with its function name in group 1. */
const FUNCTION_START: Record<string, RegExp> = {
  ts: /^\s*(?:public\s+|private\s+|protected\s+)?(?:async\s+)?(?!(?:if|for|while|switch|catch|function|return)\b)(\w+)\s*\((?:[^)\n]*\)[^\n{;]*\{)?\s*$|^\s*(\w+)\s*:\s*async\s*\(/gm,
  java: /^\s*(?:public|private|protected)\s+[\w<>[\], .?]+\s+(\w+)\s*\([^)]*\)[^{;]*\{/gm,
  cs: /^\s*(?:public|private|protected)\s+(?:virtual\s+|async\s+|static\s+)*[\w<>[\], .?]+\s+(\w+)\s*\([^)]*\)[^{;]*\{?/gm,
  py: /^\s*def\s+(\w+)\s*\(/gm,
  go: /^func\s+\([^)]*\)\s+(\w+)\s*\(/gm,
};

const PATH_LITERAL = [
  // openapi-generator: `localVarPath = "/pet/{petId}"` (TS, Java, Go `localBasePath + "/…"`), Python `resource_path='/…'`.
  /\blocalVarPath\s*:?=\s*(?:(?:localBasePath|this\.basePath|basePath)\s*\+\s*)?[`"']([^`"']*)[`"']/,
  /\bresource_path\s*=\s*['"]([^'"]*)['"]/,
  /\bcall_api\(\s*['"](\/[^'"]*)['"]/,
  /\binvokeAPI\(\s*"(\/[^"]*)"/,
  // openapi-generator `javascript` (ES5/ES6, superagent): `this.apiClient.callApi('/pet/{petId}', 'GET', …)`.
  /\bcallApi\(\s*['"](\/[^'"]*)['"]/,
  // typescript-fetch `path: \`/pet/{petId}\``, NSwag TS `url_ = this.baseUrl + "/pet/{petId}"`.
  /\bpath\s*:\s*`(\/[^`]*)`/,
  /\burl_\s*=\s*this\.baseUrl\s*\+\s*["']([^"']*)["']/,
];

const METHOD_LITERAL = [
  /\bmethod\s*[:=]\s*['"](GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)['"]/i,
  /\bHttpMethod\(\s*"(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)"\s*\)/i,
  /\bHttpMethod\.(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\b/i,
  /\bhttp\.Method(Get|Post|Put|Patch|Delete|Head|Options)\b/,
  /\blocalVarPath\s*,\s*"(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)"/,
  /\bcall_api\([^,]*,\s*['"](GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)['"]/,
  /\bcallApi\(\s*['"][^'"]*['"]\s*,\s*['"](GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)['"]/,
];

/**
 * The argument texts of `urlBuilder_.Append(a).Append(b)…` chains, in order (parentheses balanced, strings skipped).
 * One pass: the search resumes after the chain just read, so an unclosed or nested `Append(` (a hostile file) is
 * not scanned again from each of its occurrences (that was quadratic: 55 s for a 350 KB file).
 */
function appendArgs(chunk: string): string[] {
  const out: string[] = [];
  const chain = /urlBuilder_(?=\s*\.\s*Append\s*\()/g;
  const next = /\s*\.\s*Append\s*\(/y;
  for (let m = chain.exec(chunk); m; m = chain.exec(chunk)) {
    let i = m.index + m[0].length;
    // NSwag 13 chains the base address and the path in one statement: `.Append(BaseUrl…).Append("/pets")`.
    for (;;) {
      next.lastIndex = i;
      const call = next.exec(chunk);
      if (!call) break;
      i += call[0].length;
      const start = i;
      let depth = 1;
      while (i < chunk.length && depth > 0) {
        const c = chunk[i]!;
        if (c === '"' || c === "'") {
          const end = chunk.indexOf(c, i + 1);
          i = end < 0 ? chunk.length : end + 1;
          continue;
        }
        if (c === '(') depth++;
        else if (c === ')') depth--;
        i++;
      }
      out.push(chunk.slice(start, depth > 0 ? i : i - 1));
    }
    chain.lastIndex = Math.max(chain.lastIndex, i);
  }
  return out;
}

/**
 * NSwag C#: `urlBuilder_.Append("pet/")` pieces (NSwag 14) or `urlBuilder_.Append(BaseUrl…).Append("/pet/{petId}")`
 * (NSwag 13, whose `{petId}` is replaced later), the non-literal ones (escaped parameters) as `{}`.
 */
function nswagPath(chunk: string): string | undefined {
  const pieces: string[] = [];
  for (const raw of appendArgs(chunk)) {
    const arg = raw.trim();
    const lit = /^"([^"]*)"$/.exec(arg)?.[1];
    if (lit === undefined) {
      if (arg.includes('EscapeDataString')) pieces.push('{}');
      continue;
    }
    if (lit.startsWith('?') || lit.startsWith('&')) break;
    pieces.push(lit);
  }
  if (pieces.length === 0) return undefined;
  return '/' + pieces.join('').replace(/^\/+/, '');
}

/** An operation's name as code calls it: generator suffixes and case aside (`getPetByIdRaw` → `getpetbyid`). */
export function operationKey(name: string): string {
  return name
    .replace(/^_+/, '')
    .replace(/_serialize$|_with_http_info$|WithHttpInfo$|Raw$|Call$|Execute$|Async$|WithHttpInfoAsync$/, '')
    .replace(/_/g, '')
    .toLowerCase();
}

export interface GeneratedOperation {
  readonly key: string;
  readonly method: HttpMethod;
  readonly url: Part[];
  readonly loc: Loc;
}

/** The operations of a generated client file (none when the file is not generated). */
export function generatedOperations(text: string, file: string): GeneratedOperation[] {
  if (!GENERATED.test(text.slice(0, 4000))) return [];
  const ext = /\.(ts|tsx|js|java|cs|py|go)$/.exec(file)?.[1];
  const lang = ext === 'tsx' || ext === 'js' ? 'ts' : ext;
  const start = lang ? FUNCTION_START[lang] : undefined;
  if (!start) return [];
  const starts = [...text.matchAll(new RegExp(start.source, start.flags))].map((m) => ({
    name: m[1] ?? m[2] ?? '',
    index: m.index,
  }));
  const out: GeneratedOperation[] = [];
  starts.forEach((s, i) => {
    const chunk = text.slice(s.index, starts[i + 1]?.index ?? text.length);
    const path = PATH_LITERAL.map((re) => re.exec(chunk)?.[1]).find((p) => p !== undefined) ?? nswagPath(chunk);
    const method = METHOD_LITERAL.map((re) => re.exec(chunk)?.[1]).find((m) => m !== undefined);
    if (path === undefined || method === undefined || !s.name) return;
    const line = (text.slice(0, s.index).match(/\n/g)?.length ?? 0) + 1 + (/^\s*\n/.exec(chunk)?.[0].length ? 1 : 0);
    out.push({
      key: operationKey(s.name),
      method: method.toUpperCase() as HttpMethod,
      url: [{ hole: true }, { lit: path.startsWith('/') ? path : `/${path}` }],
      loc: { file, line },
    });
  });
  return out;
}

/**
 * The default base address of a generated client (JavaScript `this.basePath = '…'`, TypeScript `BASE_PATH = "…"`,
 * Java `basePath = "…"`, Python `self.host = "…"`, Go `URL: "…"` in `configuration.go`): its path (`/api` of
 * `https://localhost/api`) is the prefix of every operation of the client's folder; the host stays the
 * run-time configuration's.
 */
const BASE_LITERAL = [
  /\bthis\.basePath\s*=\s*['"]([^'"]+)['"]/,
  /\bBASE_PATH\s*=\s*['"]([^'"]+)['"]/,
  /\bString\s+basePath\s*=\s*"([^"]+)"/,
  /\bself\.host\s*=\s*['"]([^'"]+)['"]/,
  /\bServers:\s*ServerConfigurations\{\s*\{\s*URL:\s*"([^"]+)"/,
];

/** The folder of a generated client file and the path of its default base address, when it declares one. */
export function generatedBasePath(text: string, file: string): { dir: string; path: string } | undefined {
  if (!GENERATED.test(text.slice(0, 4000))) return undefined;
  const url = BASE_LITERAL.map((re) => re.exec(text)?.[1]).find((u) => u !== undefined);
  const path = url && /^(?:https?:)?\/\/[^/]*(\/[^?#{]*)$/.exec(url)?.[1]?.replace(/\/+$/, '');
  return path ? { dir: file.slice(0, file.lastIndexOf('/') + 1), path } : undefined;
}

/** Names called as methods or functions in a file (`api.getPetById(`, `GetPetById(ctx`, `get_pet_by_id(`). */
export function calledNames(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/\b(\w+)\s*\(/g)) out.add(operationKey(m[1]!));
  return out;
}

/**
 * The generated operations the source's own code calls: each is a call from the generated client (one
 * row per operation, however many call sites), with the operation's path under a run-time base address.
 */
export function linkGeneratedOperations(
  ops: readonly GeneratedOperation[],
  called: ReadonlySet<string>,
  sink: Sink,
  bases: readonly { dir: string; path: string }[] = [],
): void {
  const seen = new Set<string>();
  for (const op of ops) {
    if (!called.has(op.key) || seen.has(`${op.loc.file}|${op.key}`)) continue;
    seen.add(`${op.loc.file}|${op.key}`);
    // The nearest client folder around the operation that declares a base path.
    const base = bases
      .filter((b) => op.loc.file.startsWith(b.dir))
      .sort((a, b) => b.dir.length - a.dir.length)[0]?.path;
    const url = base ? op.url.map((p) => ('lit' in p ? { lit: base + p.lit } : p)) : op.url;
    sink.call(op.method, url, 'openapi-generated', op.loc);
  }
}
