import type { Endpoint, HttpMethod } from '../model';
import type { Node } from '../parsers';
import { joinPath } from '../routes';
import { lineOf } from './common';

/**
 * File-system routing: the file's path is the route. One table row per convention; the front-end reads
 * only the methods from the syntax (exported `GET`/`POST` functions, a `switch (method)` of a handler, a
 * `.get.ts` suffix). A row applies only to a source whose package.json depends on its framework (`marker`),
 * so a React SPA's `src/pages/Home.tsx` is no route.
 */
interface FsRouteRow {
  readonly framework: string;
  /** The npm dependency that makes a source use this convention. */
  readonly marker: string;
  /** Matches the file; group 1 is the route part of the path (extension removed). */
  readonly file: RegExp;
  /** Put in front of the route part (Nuxt `server/api/x` serves `/api/x`). */
  readonly prefix: string;
  /** Where the methods come from. */
  readonly methods: 'exports' | 'handler' | 'suffix' | 'page';
}

const EXT = '\\.(?:[cm]?[jt]sx?)$';
export const FS_ROUTES: readonly FsRouteRow[] = [
  // Next.js pages router API routes: pages/api/cart.ts → /api/cart, one handler per file.
  {
    framework: 'Next.js API route',
    marker: 'next',
    file: re(`(?:^|/)pages/(api(?:/.+)?)${EXT}`),
    prefix: '',
    methods: 'handler',
  },
  // Next.js app router: app/api/orders/[id]/route.ts exporting GET, POST, ….
  {
    framework: 'Next.js route handler',
    marker: 'next',
    file: re(`(?:^|/)app/(.*?)/?route${EXT}`),
    prefix: '',
    methods: 'exports',
  },
  // Next.js pages: pages/index.tsx → GET /, pages/product/[id].tsx → GET /product/[id].
  {
    framework: 'Next.js page',
    marker: 'next',
    file: re(`(?:^|/)pages/((?!api/|_)[^]*?)${EXT}`),
    prefix: '',
    methods: 'page',
  },
  // SvelteKit endpoints: src/routes/api/items/+server.ts exporting GET, POST, ….
  {
    framework: 'SvelteKit endpoint',
    marker: '@sveltejs/kit',
    file: re(`(?:^|/)routes/(.*?)/?\\+server${EXT}`),
    prefix: '',
    methods: 'exports',
  },
  // Nuxt / Nitro server routes: server/api/items/[id].get.ts → GET /api/items/[id].
  {
    framework: 'Nuxt server route',
    marker: 'nuxt',
    file: re(`(?:^|/)server/api/(.+?)${EXT}`),
    prefix: '/api',
    methods: 'suffix',
  },
  {
    framework: 'Nuxt server route',
    marker: 'nuxt',
    file: re(`(?:^|/)server/routes/(.+?)${EXT}`),
    prefix: '',
    methods: 'suffix',
  },
];

function re(source: string): RegExp {
  return new RegExp(source);
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
/** Pages the framework renders itself, not at their own path. */
const SPECIAL_PAGE = /(^|\/)(_app|_document|_error|404|500)$/;

/** A route part of a file path as a template: `index` dropped, `(group)` dropped, `[...slug]` catch-all. */
function template(routePart: string): string {
  const segs = routePart
    .split('/')
    .filter((s) => s.length > 0 && !/^\(.*\)$/.test(s) && !s.startsWith('@'))
    .map((s) => (/^\[\[?\.\.\.[^\]]+\]\]?$/.test(s) ? '**' : s));
  if (segs[segs.length - 1] === 'index') segs.pop();
  return joinPath(...segs);
}

/** The HTTP-method names a module exports (`export async function GET`, `export const POST = …`). */
function exportedMethods(root: Node): { method: HttpMethod; line: number }[] {
  const out: { method: HttpMethod; line: number }[] = [];
  for (const st of root.namedChildren) {
    if (st?.type !== 'export_statement') continue;
    const decl = st.childForFieldName('declaration');
    const names: string[] = [];
    if (decl?.type === 'function_declaration' || decl?.type === 'generator_function_declaration')
      names.push(decl.childForFieldName('name')?.text ?? '');
    else if (decl?.type === 'lexical_declaration' || decl?.type === 'variable_declaration')
      for (const d of decl.namedChildren)
        if (d?.type === 'variable_declarator') names.push(d.childForFieldName('name')?.text ?? '');
    for (const n of names) if (METHODS.has(n)) out.push({ method: n as HttpMethod, line: lineOf(st) });
  }
  return out;
}

/** `switch (method) { case 'GET': … }` and `req.method === 'POST'` in a handler: the methods it serves. */
function handledMethods(root: Node): { method: HttpMethod; line: number }[] {
  const out: { method: HttpMethod; line: number }[] = [];
  const visit = (n: Node, depth: number): void => {
    if (depth > 60) return;
    if (n.type === 'switch_statement' && /method/i.test(n.childForFieldName('value')?.text ?? '')) {
      for (const c of n.childForFieldName('body')?.namedChildren ?? []) {
        const v = c?.type === 'switch_case' ? c.childForFieldName('value') : null;
        const m = v?.type === 'string' ? v.text.slice(1, -1).toUpperCase() : '';
        if (METHODS.has(m)) out.push({ method: m as HttpMethod, line: lineOf(c) });
      }
    }
    if (n.type === 'binary_expression' && /^[!=]==?$/.test(n.childForFieldName('operator')?.text ?? '')) {
      const l = n.childForFieldName('left');
      const r = n.childForFieldName('right');
      const [m, s] = l?.type === 'string' ? [r, l] : [l, r];
      const name = s?.type === 'string' ? s.text.slice(1, -1).toUpperCase() : '';
      if (
        m &&
        /(^|\.)method$/.test(m.text) &&
        METHODS.has(name) &&
        n.childForFieldName('operator')!.text.startsWith('=')
      )
        out.push({ method: name as HttpMethod, line: lineOf(n) });
    }
    for (const c of n.namedChildren) if (c) visit(c, depth + 1);
  };
  visit(root, 0);
  return out;
}

function defaultExportLine(root: Node): number {
  for (const st of root.namedChildren)
    if (st?.type === 'export_statement' && /^export\s+default\b/.test(st.text)) return lineOf(st);
  return 1;
}

/**
 * The endpoints a file serves by its path under one of the table's conventions, with the framework's
 * marker; undefined when no row fits.
 */
export function fileSystemRoutes(root: Node, file: string): { marker: string; endpoints: Endpoint[] } | undefined {
  for (const row of FS_ROUTES) {
    const m = row.file.exec(file);
    if (!m) continue;
    let part = m[1] ?? '';
    let suffix: HttpMethod | undefined;
    if (row.methods === 'suffix') {
      const s = /\.(get|post|put|patch|delete|head|options)$/i.exec(part);
      if (s) {
        suffix = s[1]!.toUpperCase() as HttpMethod;
        part = part.slice(0, s.index);
      }
    }
    if (row.methods === 'page' && SPECIAL_PAGE.test(part)) return undefined;
    const path = joinPath(row.prefix, template(part));
    const found =
      row.methods === 'exports'
        ? exportedMethods(root)
        : row.methods === 'handler'
          ? handledMethods(root)
          : [{ method: suffix ?? (row.methods === 'page' ? 'GET' : 'ANY'), line: defaultExportLine(root) }];
    // A handler that never looks at the method serves every method.
    const methods = found.length
      ? found
      : row.methods === 'handler'
        ? [{ method: 'ANY' as const, line: defaultExportLine(root) }]
        : [];
    const seen = new Set<string>();
    const endpoints: Endpoint[] = [];
    for (const x of methods) {
      if (seen.has(x.method)) continue;
      seen.add(x.method);
      endpoints.push({ method: x.method, path, framework: row.framework, loc: { file, line: x.line } });
    }
    return { marker: row.marker, endpoints };
  }
  return undefined;
}

/** The npm dependencies a package.json declares (dependencies and devDependencies). */
export function npmDependencies(text: string): string[] {
  try {
    const pkg = JSON.parse(text) as Record<string, unknown>;
    const names: string[] = [];
    for (const k of ['dependencies', 'devDependencies', 'peerDependencies']) {
      const deps = pkg[k];
      if (deps && typeof deps === 'object') names.push(...Object.keys(deps));
    }
    return names;
  } catch {
    return [];
  }
}
