import { parse as parseYaml, stringify as toYaml } from 'yaml';

/**
 * Helm charts rendered enough to read them (issue 20, ADR 0044): a chart's `templates/*.yaml` are Go
 * templates over `values.yaml` (with its `values-*.yaml` overlays), `.Release` and `.Chart`. The renderer
 * knows the forms charts use to place settings — value paths, variables, pipes of the common functions,
 * `if`/`with`/`range`, `define`/`include` — and writes every expression it cannot evaluate as a
 * placeholder no configuration defines (`${__helm_unknown__}`), so a partly known value keeps what is
 * known, like the rest of the engine. Trim markers (`{{-`, `-}}`) remove spaces but keep line breaks, so
 * the rendered manifest's lines stay the template's (blank lines are nothing to YAML).
 */

export const HELM_UNKNOWN = '${__helm_unknown__}';

const UNKNOWN: unique symbol = Symbol('unknown');
type Value = string | number | boolean | null | Value[] | { [k: string]: Value } | typeof UNKNOWN;

type Node =
  | { t: 'text'; text: string }
  | { t: 'out'; expr: string }
  | { t: 'if' | 'with' | 'range'; expr: string; body: Node[]; else: Node[] };

/** Template text and `{{ … }}` actions, in order; trim markers eat spaces and tabs only. */
function lex(text: string): ({ text: string } | { action: string })[] {
  const out: ({ text: string } | { action: string })[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{{', i);
    if (open < 0) {
      out.push({ text: text.slice(i) });
      break;
    }
    let before = text.slice(i, open);
    const close = text.indexOf('}}', open + 2);
    if (close < 0) {
      out.push({ text: text.slice(i) });
      break;
    }
    let body = text.slice(open + 2, close);
    if (body.startsWith('-')) {
      before = before.replace(/[ \t]+$/, '');
      body = body.slice(1);
    }
    let next = close + 2;
    if (body.endsWith('-')) {
      body = body.slice(0, -1);
      while (text[next] === ' ' || text[next] === '\t') next++;
    }
    out.push({ text: before });
    if (!/^\s*\/\*/.test(body)) out.push({ action: body.trim() });
    i = next;
  }
  return out;
}

/**
 * A repository's chart is untrusted input: its rendering is bounded in nesting, work and output, so one
 * template (`include`s that fan out, nested `range`s, a huge `indent`) cannot stall or exhaust the linker.
 * Past a bound the template is skipped, as one that does not parse.
 */
const MAX_NESTING = 64;
const MAX_RENDER_STEPS = 100_000;
const MAX_RENDERED_CHARS = 4 * 1024 * 1024;
const MAX_INDENT = 1_024;

class TooComplexError extends Error {}

/** The control structure of a template; `define` bodies are collected apart, by name. */
function parseTemplate(text: string, defines: Map<string, Node[]>): Node[] {
  const items = lex(text);
  let i = 0;
  let nesting = 0;
  const block = (): { nodes: Node[]; stop?: string } => {
    if (++nesting > MAX_NESTING) throw new TooComplexError(`more than ${MAX_NESTING} nested blocks`);
    try {
      return blockBody();
    } finally {
      nesting--;
    }
  };
  const blockBody = (): { nodes: Node[]; stop?: string } => {
    const nodes: Node[] = [];
    while (i < items.length) {
      const it = items[i++]!;
      if ('text' in it) {
        nodes.push({ t: 'text', text: it.text });
        continue;
      }
      const a = it.action;
      const kw = /^(if|with|range|define|block|else|end)\b\s*(.*)$/s.exec(a);
      if (!kw) {
        nodes.push({ t: 'out', expr: a });
        continue;
      }
      const [, word, rest] = kw;
      if (word === 'end' || word === 'else') {
        if (word === 'else') i--; // the caller reads the else clause
        return { nodes, stop: word === 'else' ? a : 'end' };
      }
      if (word === 'define' || word === 'block') {
        const name = /^"([^"]*)"/.exec(rest!)?.[1];
        const body = block();
        if (name !== undefined && !defines.has(name)) defines.set(name, body.nodes);
        if (word === 'block') nodes.push({ t: 'out', expr: `include "${name ?? ''}" .` });
        continue;
      }
      nodes.push(conditional(word as 'if' | 'with' | 'range', rest!));
    }
    return { nodes };
  };
  const conditional = (t: 'if' | 'with' | 'range', expr: string): Node => {
    const body = block();
    const node: Node = { t, expr, body: body.nodes, else: [] };
    if (body.stop !== undefined && body.stop !== 'end') {
      const clause = (items[i++] as { action: string }).action.replace(/^else\s*/, '');
      const elif = /^(if|with)\s+(.*)$/s.exec(clause);
      if (elif) node.else = [conditional(elif[1] as 'if' | 'with', elif[2]!)];
      else node.else = block().nodes;
    }
    return node;
  };
  return block().nodes;
}

/** Words of an action: strings, parentheses, pipes, assignments, and everything else split on spaces. */
function tokens(expr: string): string[] {
  return [...expr.matchAll(/"(?:[^"\\]|\\.)*"|`[^`]*`|:=|[()|]|=|[^\s()|]+/g)].map((m) => m[0]);
}

interface Scope {
  root: Value;
  dot: Value;
  vars: Map<string, Value>;
  defines: Map<string, Node[]>;
  depth: number;
  /** Steps left for the whole template (shared by every scope of one rendering). */
  budget: { steps: number };
}

const isUnknown = (v: Value): v is typeof UNKNOWN => v === UNKNOWN;

function truthy(v: Value): boolean | undefined {
  if (isUnknown(v)) return undefined;
  if (v === null || v === false || v === '' || v === 0) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function field(v: Value, path: string[]): Value {
  let cur: Value = v;
  for (const p of path) {
    if (isUnknown(cur)) return UNKNOWN;
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return null;
    cur = Object.prototype.hasOwnProperty.call(cur, p) ? cur[p]! : null;
  }
  return cur;
}

function text(v: Value): string {
  if (isUnknown(v)) return HELM_UNKNOWN;
  if (v === null) return '';
  if (typeof v === 'object') return toYaml(v).trimEnd();
  return String(v);
}

const indentBy = (n: Value, s: Value): Value => {
  if (isUnknown(s)) return UNKNOWN;
  const width = Number(n) || 0;
  if (width > MAX_INDENT) throw new TooComplexError(`indent ${width}`);
  return text(s)
    .split('\n')
    .map((l) => ' '.repeat(width) + l)
    .join('\n');
};

/** The functions charts use to shape settings; any other function's result is unknown. */
const FUNCTIONS: Record<string, (args: Value[], scope: Scope) => Value> = {
  default: ([d, v]) => (v === undefined || truthy(v) === false ? (d ?? null) : v),
  quote: ([v]) => (isUnknown(v!) ? UNKNOWN : `"${text(v!)}"`),
  squote: ([v]) => (isUnknown(v!) ? UNKNOWN : `'${text(v!)}'`),
  upper: ([v]) => (isUnknown(v!) ? UNKNOWN : text(v!).toUpperCase()),
  lower: ([v]) => (isUnknown(v!) ? UNKNOWN : text(v!).toLowerCase()),
  trim: ([v]) => (isUnknown(v!) ? UNKNOWN : text(v!).trim()),
  trimSuffix: ([s, v]) => (isUnknown(v!) ? UNKNOWN : text(v!).replace(new RegExp(`${escape(text(s!))}$`), '')),
  trimPrefix: ([s, v]) => (isUnknown(v!) ? UNKNOWN : text(v!).replace(new RegExp(`^${escape(text(s!))}`), '')),
  trunc: ([n, v]) => (isUnknown(v!) ? UNKNOWN : text(v!).slice(0, Number(n))),
  replace: ([a, b, v]) => {
    if (isUnknown(v!)) return UNKNOWN;
    const pieces = text(v!).split(text(a!));
    if ((pieces.length - 1) * text(b!).length > MAX_RENDERED_CHARS) throw new TooComplexError('replace');
    return pieces.join(text(b!));
  },
  contains: ([s, v]) => (isUnknown(v!) || isUnknown(s!) ? UNKNOWN : text(v!).includes(text(s!))),
  hasPrefix: ([s, v]) => (isUnknown(v!) ? UNKNOWN : text(v!).startsWith(text(s!))),
  hasSuffix: ([s, v]) => (isUnknown(v!) ? UNKNOWN : text(v!).endsWith(text(s!))),
  eq: ([a, b]) => (isUnknown(a!) || isUnknown(b!) ? UNKNOWN : text(a!) === text(b!)),
  ne: ([a, b]) => (isUnknown(a!) || isUnknown(b!) ? UNKNOWN : text(a!) !== text(b!)),
  not: ([v]) => {
    const t = truthy(v!);
    return t === undefined ? UNKNOWN : !t;
  },
  empty: ([v]) => {
    const t = truthy(v!);
    return t === undefined ? UNKNOWN : !t;
  },
  required: (args) => args[args.length - 1] ?? null,
  toYaml: ([v]) => (v === undefined ? null : isUnknown(v) ? UNKNOWN : text(v)),
  indent: ([n, v]) => indentBy(n!, v!),
  nindent: ([n, v]) => {
    const s = indentBy(n!, v!);
    return isUnknown(s) ? UNKNOWN : `\n${text(s)}`;
  },
  printf: ([f, ...args]) => {
    if (args.some((a) => isUnknown(a))) return UNKNOWN;
    let k = 0;
    return text(f!).replace(/%[-+# 0-9.]*[sdvqx%]/g, (m) => (m === '%%' ? '%' : text(args[k++] ?? '')));
  },
  include: ([name, ctx], scope) => {
    const body = scope.defines.get(text(name!));
    if (!body || scope.depth > 8) return UNKNOWN;
    const out = render(body, { ...scope, dot: ctx ?? null, vars: new Map(), depth: scope.depth + 1 });
    return out.includes(HELM_UNKNOWN) && out.trim() === HELM_UNKNOWN ? UNKNOWN : out.trim();
  },
};
FUNCTIONS.template = FUNCTIONS.include!;
FUNCTIONS['toString'] = (args: Value[]): Value => (isUnknown(args[0]!) ? UNKNOWN : text(args[0]!));
FUNCTIONS.and = (args) => (args.some((a) => truthy(a) === false) ? false : args.some(isUnknown) ? UNKNOWN : true);
FUNCTIONS.or = (args) => (args.some((a) => truthy(a) === true) ? true : args.some(isUnknown) ? UNKNOWN : false);

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Evaluates one pipeline (`.Values.x | default "y" | quote`); assignments bind their variable. */
function evaluate(expr: string, scope: Scope): Value {
  const words = tokens(expr);
  const assign = words[1] === ':=' || words[1] === '=' ? words[0] : undefined;
  const value = pipeline(assign ? words.slice(2) : words, scope);
  if (assign) {
    scope.vars.set(assign, value);
    return '';
  }
  return value;
}

function pipeline(words: string[], scope: Scope): Value {
  // Split on top-level pipes, then each command takes the previous result as its last argument.
  const commands: string[][] = [[]];
  let depth = 0;
  for (const w of words) {
    if (w === '(') depth++;
    if (w === ')') depth--;
    if (w === '|' && depth === 0) commands.push([]);
    else commands[commands.length - 1]!.push(w);
  }
  let result: Value | undefined;
  for (const c of commands) result = command(c, scope, result);
  return result ?? null;
}

function command(words: string[], scope: Scope, piped: Value | undefined): Value {
  const args: Value[] = [];
  let i = 0;
  const term = (): Value => {
    const w = words[i++]!;
    if (w === '(') {
      const start = i;
      let depth = 1;
      while (i < words.length && depth > 0) {
        if (words[i] === '(') depth++;
        if (words[i] === ')') depth--;
        i++;
      }
      return pipeline(words.slice(start, i - 1), scope);
    }
    if (w.startsWith('"')) {
      try {
        return JSON.parse(w) as string;
      } catch {
        return w.slice(1, -1);
      }
    }
    if (w.startsWith('`')) return w.slice(1, -1);
    if (/^-?\d+(\.\d+)?$/.test(w)) return Number(w);
    if (w === 'true' || w === 'false') return w === 'true';
    if (w === 'nil') return null;
    if (w === '.') return scope.dot;
    if (w.startsWith('$')) {
      const [name, ...path] = w.split('.');
      const base = name === '$' ? scope.root : scope.vars.has(name!) ? scope.vars.get(name!)! : UNKNOWN;
      return field(base, path);
    }
    if (w.startsWith('.')) return field(scope.dot, w.slice(1).split('.'));
    return UNKNOWN;
  };
  const head = words[0];
  if (head !== undefined && /^[a-zA-Z]\w*$/.test(head) && !['true', 'false', 'nil'].includes(head)) {
    i = 1;
    while (i < words.length) args.push(term());
    if (piped !== undefined) args.push(piped);
    const fn = Object.hasOwn(FUNCTIONS, head) ? FUNCTIONS[head] : undefined;
    return fn ? fn(args, scope) : UNKNOWN;
  }
  if (words.length === 0) return piped ?? null;
  return term();
}

function render(nodes: readonly Node[], scope: Scope): string {
  if (--scope.budget.steps < 0) throw new TooComplexError(`more than ${MAX_RENDER_STEPS} steps`);
  let out = '';
  // A branch not taken leaves its line breaks, so the lines after it stay the template's.
  const breaks = (ns: readonly Node[]): number =>
    ns.reduce(
      (k, x) =>
        k + (x.t === 'text' ? (x.text.match(/\n/g) ?? []).length : x.t === 'out' ? 0 : breaks(x.body) + breaks(x.else)),
      0,
    );
  const blank = (ns: readonly Node[]): string => '\n'.repeat(breaks(ns));
  for (const n of nodes) {
    if (--scope.budget.steps < 0) throw new TooComplexError(`more than ${MAX_RENDER_STEPS} steps`);
    if (n.t === 'text') out += n.text;
    else if (n.t === 'out') out += text(evaluate(n.expr, scope));
    else if (n.t === 'if') {
      // An unknown condition keeps the body: it is what the chart deploys when the setting is given.
      const keep = truthy(evaluate(n.expr, scope)) ?? true;
      out += render(keep ? n.body : n.else, scope) + blank(keep ? n.else : n.body);
    } else if (n.t === 'with') {
      const v = evaluate(n.expr, scope);
      const keep = truthy(v) ?? true;
      out += keep ? render(n.body, { ...scope, dot: v }) : render(n.else, scope);
    } else {
      const m = /^(?:(\$\w+)\s*(?:,\s*(\$\w+))?\s*:=\s*)?(.*)$/s.exec(n.expr)!;
      const v = evaluate(m[3]!, scope);
      const entries: [Value, Value][] = Array.isArray(v)
        ? v.map((x, k) => [k, x])
        : v && typeof v === 'object' && !isUnknown(v)
          ? Object.keys(v)
              .sort()
              .map((k) => [k, v[k]!])
          : [];
      if (entries.length === 0) out += render(n.else, scope);
      for (const [k, x] of entries.slice(0, 200)) {
        const vars = new Map(scope.vars);
        if (m[1] && m[2]) vars.set(m[1], k).set(m[2], x);
        else if (m[1]) vars.set(m[1], x);
        out += render(n.body, { ...scope, dot: x, vars });
        if (out.length > MAX_RENDERED_CHARS) throw new TooComplexError(`more than ${MAX_RENDERED_CHARS} characters`);
      }
    }
    if (out.length > MAX_RENDERED_CHARS) throw new TooComplexError(`more than ${MAX_RENDERED_CHARS} characters`);
  }
  return out;
}

function toValue(v: unknown): Value {
  if (v === undefined) return null;
  if (Array.isArray(v)) return v.map(toValue);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, toValue(x)]));
  return v as Value;
}

function merge(base: Value, over: Value): Value {
  if (!base || !over || typeof base !== 'object' || typeof over !== 'object') return over;
  if (Array.isArray(base) || Array.isArray(over) || isUnknown(base) || isUnknown(over)) return over;
  const out: { [k: string]: Value } = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in out ? merge(out[k]!, v) : v;
  return out;
}

function yamlValue(text: string | undefined): Value {
  if (text === undefined) return {};
  try {
    return toValue(parseYaml(text));
  } catch {
    return {};
  }
}

const MAX_TEMPLATE_BYTES = 256 * 1024;

/**
 * Collects a source's charts while its files are read (`Chart.yaml`, `values*.yaml`, `templates/*`), then
 * renders each template with its chart's values once the source is read.
 */
export class HelmCharts {
  readonly #files = new Map<string, string>();
  readonly #templates: string[] = [];

  /** Whether the file belongs to a chart's templates (then it is rendered, not read as it stands). */
  static isTemplate(path: string): boolean {
    return /(^|\/)templates\/[^/]+\.(ya?ml|tpl)$/i.test(path);
  }

  /** Keeps a chart file; true when it is a template (which only its rendering reads). */
  take(path: string, text: string): boolean {
    const base = path.split('/').pop()!;
    if (/^(Chart|values([-.][\w.-]+)?)\.ya?ml$/.test(base)) this.#files.set(path, text);
    if (!HelmCharts.isTemplate(path) || text.length > MAX_TEMPLATE_BYTES) return false;
    if (!text.includes('{{')) return false;
    this.#files.set(path, text);
    this.#templates.push(path);
    return true;
  }

  /** Each template of a chart rendered with the chart's values, as `[path, text]`. */
  *rendered(): Generator<[string, string]> {
    const byChart = new Map<string, string[]>();
    for (const t of this.#templates) {
      const root = t.replace(/(^|\/)templates\/[^/]+$/, '');
      if (![...this.#files.keys()].some((f) => f === `${root ? `${root}/` : ''}Chart.yaml`)) continue;
      byChart.set(root, [...(byChart.get(root) ?? []), t]);
    }
    for (const [root, templates] of byChart) {
      const at = (name: string): string => (root ? `${root}/${name}` : name);
      const chart = yamlValue(this.#files.get(at('Chart.yaml')));
      const chartName = text(field(chart, ['name'])) || root.split('/').pop() || 'chart';
      // Overlays (`values-prod.yaml`) over the base, the first in name order winning among them.
      const overlays = [...this.#files.keys()]
        .filter(
          (f) => /^values[-.][\w.-]+\.ya?ml$/.test(f.slice(at('').length)) && !f.slice(at('').length).includes('/'),
        )
        .sort()
        .reverse();
      let values = yamlValue(this.#files.get(at('values.yaml')) ?? this.#files.get(at('values.yml')));
      for (const o of overlays) values = merge(values, yamlValue(this.#files.get(o)));
      const root_: Value = {
        Values: values,
        // `helm install <chart> ./chart`: the release is named after the chart unless told otherwise.
        Release: { Name: chartName, Namespace: 'default', Service: 'Helm' },
        Chart: {
          Name: chartName,
          Version: field(chart, ['version']),
          AppVersion: field(chart, ['appVersion']),
        },
        Capabilities: UNKNOWN,
      };
      const defines = new Map<string, Node[]>();
      const parsed: [string, Node[]][] = [];
      for (const t of templates) {
        try {
          parsed.push([t, parseTemplate(this.#files.get(t)!, defines)]);
        } catch {
          continue; // nested too deep: skipped, as a template that does not render
        }
      }
      for (const [t, nodes] of parsed) {
        if (t.endsWith('.tpl')) continue;
        const budget = { steps: MAX_RENDER_STEPS };
        const scope: Scope = { root: root_, dot: root_, vars: new Map(), defines, depth: 0, budget };
        let out: string;
        try {
          out = render(nodes, scope);
        } catch {
          continue;
        }
        yield [t, out];
      }
    }
  }
}
