import jsonata from 'jsonata';
import { registerRuntime, type DefinitionIssue, type RuntimeDefinition } from './registry';
import { SECRET_NAME_PATTERN } from './secret-box';
import { urlTemplateProblem } from './url-template';

/**
 * The `graph` runtime (Task Agent): a declarative graph of steps run in the background. Steps read the run
 * input (`input`) and earlier steps' outputs (`steps.<id>`) through JSONata expressions; a branch activates
 * the edges of one side; an approval pauses the run in `input-required`. Checked when the version is created:
 * no cycles, every reference bound to the input or to a step that always runs before, every expression
 * compiles, and every destination and secret as for the other runtimes (ADR 0020, graph section).
 */

export type GraphStepKind = 'model' | 'http' | 'transform' | 'branch' | 'approval';
export const GRAPH_STEP_KINDS: readonly GraphStepKind[] = ['model', 'http', 'transform', 'branch', 'approval'];

interface StepBase {
  id: string;
}
export interface ModelStep extends StepBase {
  kind: 'model';
  baseUrl: string;
  model: string;
  apiKeySecret: string | undefined;
  instructions: string;
  /** JSONata: the user message (a string, or any value sent as JSON). */
  prompt: string;
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
  requestTimeoutMs: number;
  maxRetries: number;
}
export interface HttpStep extends StepBase {
  kind: 'http';
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fixed origin; `{name}` placeholders are filled from the `params` object. */
  url: string;
  /** JSONata: an object of parameters (placeholders, then query for GET/DELETE, else the JSON body). */
  params: string | undefined;
  headerSecrets: Record<string, string>;
  timeoutMs: number;
  maxResponseBytes: number;
}
export interface TransformStep extends StepBase {
  kind: 'transform';
  expression: string;
}
export interface BranchStep extends StepBase {
  kind: 'branch';
  /** JSONata: truthy → the `then` steps, else the `else` steps. */
  condition: string;
  then: string[];
  else: string[];
}
export interface ApprovalStep extends StepBase {
  kind: 'approval';
  /** JSONata: the question the user is asked (a string). */
  prompt: string;
  /** What a rejection does: end the run `failed` (default) or continue with `approved: false`. */
  onReject: 'fail' | 'continue';
}
export type GraphStep = ModelStep | HttpStep | TransformStep | BranchStep | ApprovalStep;

export interface GraphConfig {
  steps: GraphStep[];
  /** Every edge, those of the branches (`then`, `else`) included. */
  edges: { from: string; to: string }[];
  /** JSONata: the run's output; default the output of the last step that ran. */
  output: string | undefined;
  /** The order steps run in (a topological order; ties in declaration order). */
  order: string[];
}

export const GRAPH_LIMITS = {
  steps: { max: 64 },
  expressionChars: { max: 4_000 },
  requestTimeoutMs: { default: 60_000, min: 1_000, max: 600_000 },
  maxRetries: { default: 2, max: 6 },
  stepTimeoutMs: { default: 10_000, min: 100, max: 120_000 },
  maxResponseBytes: { default: 256 * 1024, max: 4 * 1024 * 1024 },
} as const;

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const STEP_ID = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const FIELDS: Record<GraphStepKind, readonly string[]> = {
  model: [
    'baseUrl',
    'model',
    'apiKeySecret',
    'instructions',
    'prompt',
    'temperature',
    'maxOutputTokens',
    'requestTimeoutMs',
    'maxRetries',
  ],
  http: ['method', 'url', 'params', 'headerSecrets', 'timeoutMs', 'maxResponseBytes'],
  transform: ['expression'],
  branch: ['condition', 'then', 'else'],
  approval: ['prompt', 'onReject'],
};

interface AstNode {
  type?: string;
  value?: unknown;
  steps?: AstNode[];
  [k: string]: unknown;
}

/** The step ids an expression reads (`steps.<id>`), or the problem of a reference that is bound to nothing. */
function references(ast: AstNode): { steps: Set<string>; problems: string[] } {
  const steps = new Set<string>();
  const problems: string[] = [];
  const checkName = (first: AstNode, second: AstNode | undefined): void => {
    const name = String(first.value);
    if (name === 'input') return;
    if (name !== 'steps') {
      problems.push(`"${name}" is bound to nothing (use input or steps.<id>)`);
      return;
    }
    if (second?.type !== 'name') problems.push('steps must be followed by a step id (steps.<id>)');
    else steps.add(String(second.value));
  };
  // `rooted`: the node is evaluated against the root context ({ input, steps }), not inside a path.
  const visit = (node: unknown, rooted: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, rooted));
    if (!isObj(node)) return;
    const n = node as AstNode;
    if (n.type === 'path' && Array.isArray(n.steps)) {
      const [first, ...rest] = n.steps;
      if (first?.type === 'name') {
        if (rooted) checkName(first, rest[0]);
        visitChildren(first, false);
      } else visit(first, rooted);
      rest.forEach((s) => visit(s, false));
      visitChildren(n, false, ['steps']);
      return;
    }
    if (n.type === 'name') {
      if (rooted) checkName(n, undefined);
      return visitChildren(n, false);
    }
    visitChildren(n, rooted);
  };
  const visitChildren = (n: AstNode, rooted: boolean, skip: string[] = []): void => {
    for (const [k, v] of Object.entries(n)) {
      if (skip.includes(k) || k === 'type' || k === 'value' || k === 'position') continue;
      // Stages, predicates and group-bys run against each item of a path: relative names are fine there.
      visit(v, rooted && !['stages', 'predicate', 'group'].includes(k));
    }
  };
  visit(ast, true);
  return { steps, problems };
}

/** Compiles a JSONata expression: its step references, or why it does not compile. */
function compile(expr: string): { refs: Set<string>; problems: string[] } | { error: string } {
  try {
    const r = references(jsonata(expr).ast() as AstNode);
    return { refs: r.steps, problems: r.problems };
  } catch (err) {
    const e = err as { message?: string; position?: number };
    return { error: `is not a valid JSONata expression: ${e.message ?? String(err)}` };
  }
}

class StepChecker {
  constructor(
    readonly o: Obj,
    readonly base: string,
    readonly issues: DefinitionIssue[],
  ) {}
  bad(field: string, reason: string): void {
    this.issues.push({ path: field ? `${this.base}.${field}` : this.base, reason });
  }
  str(field: string, required: boolean, max = 2_048): string | undefined {
    const v = this.o[field];
    if (v === undefined) {
      if (required) this.bad(field, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || v.trim() === '') {
      this.bad(field, 'must be a non-empty string');
      return undefined;
    }
    if (v.length > max) this.bad(field, `must be at most ${max} characters`);
    return v;
  }
  int(field: string, min: number, max: number): void {
    const v = this.o[field];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      this.bad(field, `must be an integer from ${min} to ${max}`);
  }
  url(field: string): void {
    const v = this.str(field, true);
    if (v !== undefined && !/^https?:\/\/[^/{}]+/i.test(v)) this.bad(field, 'must be an http or https URL');
  }
}

interface Parsed {
  ids: string[];
  byId: Map<string, Obj>;
  edges: { from: string; to: string; path: string }[];
  /** Expressions of each step (and of the output): where, and their text. */
  expressions: { owner: string | undefined; path: string; expr: string }[];
}

function checkStep(s: Obj, base: string, issues: DefinitionIssue[], parsed: Parsed): void {
  const c = new StepChecker(s, base, issues);
  const kind = s.kind;
  if (typeof kind !== 'string' || !(GRAPH_STEP_KINDS as readonly string[]).includes(kind)) {
    c.bad('kind', `unknown step kind ${JSON.stringify(kind)} (one of: ${GRAPH_STEP_KINDS.join(', ')})`);
    return;
  }
  const k = kind as GraphStepKind;
  for (const f of Object.keys(s))
    if (f !== 'id' && f !== 'kind' && !FIELDS[k].includes(f))
      c.bad(f, `unknown field of a ${k} step (known: id, kind, ${FIELDS[k].join(', ')})`);
  const id = typeof s.id === 'string' ? s.id : undefined;
  const expr = (field: string, required: boolean): void => {
    const v = c.str(field, required, GRAPH_LIMITS.expressionChars.max);
    if (v !== undefined) parsed.expressions.push({ owner: id, path: `${base}.${field}`, expr: v });
  };
  switch (k) {
    case 'model': {
      c.url('baseUrl');
      c.str('model', true, 256);
      const key = c.str('apiKeySecret', false, 64);
      if (key !== undefined && !SECRET_NAME_PATTERN.test(key)) c.bad('apiKeySecret', 'must name a secret');
      c.str('instructions', false, 32_000);
      expr('prompt', true);
      const t = s.temperature;
      if (t !== undefined && (typeof t !== 'number' || !(t >= 0 && t <= 2)))
        c.bad('temperature', 'must be a number from 0 to 2');
      c.int('maxOutputTokens', 1, 1_000_000);
      c.int('requestTimeoutMs', GRAPH_LIMITS.requestTimeoutMs.min, GRAPH_LIMITS.requestTimeoutMs.max);
      c.int('maxRetries', 0, GRAPH_LIMITS.maxRetries.max);
      break;
    }
    case 'http': {
      const m = s.method ?? 'GET';
      if (typeof m !== 'string' || !(METHODS as readonly string[]).includes(m))
        c.bad('method', `must be one of ${METHODS.join(', ')}`);
      const url = c.str('url', true);
      const urlProblem = url === undefined ? undefined : urlTemplateProblem(url);
      if (urlProblem) c.bad('url', urlProblem);
      expr('params', false);
      const hs = s.headerSecrets;
      if (hs !== undefined) {
        if (!isObj(hs)) c.bad('headerSecrets', 'must be an object of header name → secret name');
        else
          for (const [h, v] of Object.entries(hs)) {
            if (!/^[A-Za-z0-9-]{1,64}$/.test(h)) c.bad(`headerSecrets.${h}`, 'is not a valid header name');
            if (typeof v !== 'string' || !SECRET_NAME_PATTERN.test(v))
              c.bad(`headerSecrets.${h}`, 'must name a secret');
          }
      }
      c.int('timeoutMs', GRAPH_LIMITS.stepTimeoutMs.min, GRAPH_LIMITS.stepTimeoutMs.max);
      c.int('maxResponseBytes', 1, GRAPH_LIMITS.maxResponseBytes.max);
      break;
    }
    case 'transform':
      expr('expression', true);
      break;
    case 'branch': {
      expr('condition', true);
      for (const side of ['then', 'else'] as const) {
        const targets = s[side];
        if (targets === undefined) continue;
        if (!Array.isArray(targets) || !targets.every((t) => typeof t === 'string'))
          c.bad(side, 'must be an array of step ids');
        else
          targets.forEach((t, i) => {
            if (id !== undefined) parsed.edges.push({ from: id, to: t, path: `${base}.${side}[${i}]` });
          });
      }
      if (s.then === undefined && s.else === undefined) c.bad('', 'a branch needs then or else (step ids)');
      break;
    }
    case 'approval':
      expr('prompt', true);
      if (s.onReject !== undefined && s.onReject !== 'fail' && s.onReject !== 'continue')
        c.bad('onReject', 'must be "fail" or "continue"');
      break;
  }
}

/** Topological order (Kahn, ties in declaration order); undefined when there is a cycle. */
function topoOrder(ids: readonly string[], edges: readonly { from: string; to: string }[]): string[] | undefined {
  const indegree = new Map(ids.map((id) => [id, 0]));
  for (const e of edges) indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
  const order: string[] = [];
  const done = new Set<string>();
  while (order.length < ids.length) {
    const next = ids.find((id) => !done.has(id) && indegree.get(id) === 0);
    if (next === undefined) return undefined;
    done.add(next);
    order.push(next);
    for (const e of edges) if (e.from === next) indegree.set(e.to, indegree.get(e.to)! - 1);
  }
  return order;
}

/** One cycle, as `a → b → a`, for the error message. */
function findCycle(ids: readonly string[], edges: readonly { from: string; to: string }[]): string[] {
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  let found: string[] = [];
  const dfs = (id: string): boolean => {
    state.set(id, 1);
    stack.push(id);
    for (const e of edges.filter((x) => x.from === id)) {
      if (state.get(e.to) === 1) {
        found = [...stack.slice(stack.indexOf(e.to)), e.to];
        return true;
      }
      if (!state.has(e.to) && dfs(e.to)) return true;
    }
    stack.pop();
    state.set(id, 2);
    return false;
  };
  for (const id of ids) if (!state.has(id) && dfs(id)) break;
  return found;
}

export function validateGraphConfig(config: Obj): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  for (const k of Object.keys(config))
    if (!['steps', 'edges', 'output'].includes(k))
      issues.push({ path: k, reason: 'unknown field (known: steps, edges, output)' });
  const parsed: Parsed = { ids: [], byId: new Map(), edges: [], expressions: [] };
  const steps = config.steps;
  if (!Array.isArray(steps) || steps.length === 0) {
    issues.push({ path: 'steps', reason: 'is required (a non-empty array of steps)' });
    return issues;
  }
  if (steps.length > GRAPH_LIMITS.steps.max) {
    issues.push({ path: 'steps', reason: `at most ${GRAPH_LIMITS.steps.max} steps` });
    return issues;
  }
  steps.forEach((s: unknown, i) => {
    const base = `steps[${i}]`;
    if (!isObj(s)) return issues.push({ path: base, reason: 'must be an object' });
    if (typeof s.id !== 'string' || !STEP_ID.test(s.id))
      issues.push({ path: `${base}.id`, reason: 'must match [A-Za-z_][A-Za-z0-9_]{0,63}' });
    else if (parsed.byId.has(s.id)) issues.push({ path: `${base}.id`, reason: `duplicate step id "${s.id}"` });
    else {
      parsed.ids.push(s.id);
      parsed.byId.set(s.id, s);
    }
    checkStep(s, base, issues, parsed);
  });
  const edges = config.edges;
  if (edges !== undefined) {
    if (!Array.isArray(edges)) issues.push({ path: 'edges', reason: 'must be an array of { from, to }' });
    else
      edges.forEach((e: unknown, i) => {
        if (!isObj(e) || typeof e.from !== 'string' || typeof e.to !== 'string' || Object.keys(e).length !== 2)
          issues.push({ path: `edges[${i}]`, reason: 'must be { from, to } with step ids' });
        else parsed.edges.push({ from: e.from, to: e.to, path: `edges[${i}]` });
      });
  }
  for (const e of parsed.edges) {
    for (const end of [e.from, e.to])
      if (!parsed.byId.has(end)) issues.push({ path: e.path, reason: `names no step: "${end}"` });
    if (e.from === e.to) issues.push({ path: e.path, reason: `a step cannot follow itself ("${e.from}")` });
  }
  if (config.output !== undefined) {
    if (typeof config.output !== 'string' || config.output.trim() === '')
      issues.push({ path: 'output', reason: 'must be a JSONata expression' });
    else parsed.expressions.push({ owner: undefined, path: 'output', expr: config.output });
  }
  if (issues.length > 0) return issues;
  const order = topoOrder(parsed.ids, parsed.edges);
  if (!order) {
    issues.push({ path: 'edges', reason: `the graph has a cycle: ${findCycle(parsed.ids, parsed.edges).join(' → ')}` });
    return issues;
  }
  const ancestors = ancestorSets(order, parsed.edges);
  for (const x of parsed.expressions) {
    const r = compile(x.expr);
    if ('error' in r) {
      issues.push({ path: x.path, reason: r.error });
      continue;
    }
    for (const p of r.problems) issues.push({ path: x.path, reason: p });
    for (const ref of r.refs) {
      if (!parsed.byId.has(ref)) issues.push({ path: x.path, reason: `steps.${ref} names no step` });
      else if (x.owner !== undefined && !ancestors.get(x.owner)!.has(ref))
        issues.push({
          path: x.path,
          reason: `steps.${ref} is not bound here: "${ref}" does not run before "${x.owner}" (add an edge)`,
        });
    }
  }
  return issues;
}

function ancestorSets(
  order: readonly string[],
  edges: readonly { from: string; to: string }[],
): Map<string, Set<string>> {
  const anc = new Map<string, Set<string>>();
  for (const id of order) {
    const set = new Set<string>();
    for (const e of edges)
      if (e.to === id) {
        set.add(e.from);
        for (const a of anc.get(e.from) ?? []) set.add(a);
      }
    anc.set(id, set);
  }
  return anc;
}

/** The configuration with its defaults and its run order; call on a configuration `validateGraphConfig` accepted. */
export function parseGraphConfig(config: Obj): GraphConfig {
  const L = GRAPH_LIMITS;
  const raw = (config.steps as Obj[]) ?? [];
  const edges: { from: string; to: string }[] = [];
  const steps: GraphStep[] = raw.map((s) => {
    const id = String(s.id);
    const num = (v: unknown, d: number): number => (typeof v === 'number' ? v : d);
    switch (s.kind as GraphStepKind) {
      case 'model':
        return {
          id,
          kind: 'model',
          baseUrl: String(s.baseUrl).replace(/\/+$/, ''),
          model: String(s.model),
          apiKeySecret: typeof s.apiKeySecret === 'string' ? s.apiKeySecret : undefined,
          instructions: typeof s.instructions === 'string' ? s.instructions : '',
          prompt: String(s.prompt),
          temperature: typeof s.temperature === 'number' ? s.temperature : undefined,
          maxOutputTokens: typeof s.maxOutputTokens === 'number' ? s.maxOutputTokens : undefined,
          requestTimeoutMs: num(s.requestTimeoutMs, L.requestTimeoutMs.default),
          maxRetries: num(s.maxRetries, L.maxRetries.default),
        };
      case 'http':
        return {
          id,
          kind: 'http',
          method: (typeof s.method === 'string' ? s.method : 'GET') as HttpStep['method'],
          url: String(s.url),
          params: typeof s.params === 'string' ? s.params : undefined,
          headerSecrets: isObj(s.headerSecrets) ? { ...(s.headerSecrets as Record<string, string>) } : {},
          timeoutMs: num(s.timeoutMs, L.stepTimeoutMs.default),
          maxResponseBytes: num(s.maxResponseBytes, L.maxResponseBytes.default),
        };
      case 'transform':
        return { id, kind: 'transform', expression: String(s.expression) };
      case 'branch': {
        const then = Array.isArray(s.then) ? (s.then as string[]) : [];
        const otherwise = Array.isArray(s.else) ? (s.else as string[]) : [];
        return { id, kind: 'branch', condition: String(s.condition), then, else: otherwise };
      }
      case 'approval':
        return {
          id,
          kind: 'approval',
          prompt: String(s.prompt),
          onReject: s.onReject === 'continue' ? 'continue' : 'fail',
        };
    }
  });
  for (const s of steps)
    if (s.kind === 'branch') for (const to of [...s.then, ...s.else]) edges.push({ from: s.id, to });
  if (Array.isArray(config.edges))
    for (const e of config.edges as Obj[]) edges.push({ from: String(e.from), to: String(e.to) });
  const order =
    topoOrder(
      steps.map((s) => s.id),
      edges,
    ) ?? [];
  return { steps, edges, output: typeof config.output === 'string' ? config.output : undefined, order };
}

export const graphRuntimeDefinition: RuntimeDefinition = {
  name: 'graph',
  validate: validateGraphConfig,
  secretRefs: (config) => {
    const refs: { path: string; name: string }[] = [];
    parseGraphConfig(config).steps.forEach((s, i) => {
      if (s.kind === 'model' && s.apiKeySecret) refs.push({ path: `steps[${i}].apiKeySecret`, name: s.apiKeySecret });
      if (s.kind === 'http')
        for (const [h, name] of Object.entries(s.headerSecrets))
          refs.push({ path: `steps[${i}].headerSecrets.${h}`, name });
    });
    return refs;
  },
  egressUrls: (config) => {
    const urls: { path: string; url: string }[] = [];
    parseGraphConfig(config).steps.forEach((s, i) => {
      if (s.kind === 'model') urls.push({ path: `steps[${i}].baseUrl`, url: s.baseUrl });
      if (s.kind === 'http') urls.push({ path: `steps[${i}].url`, url: s.url });
    });
    return urls;
  },
  // A run goes on in the background: no token deltas; input is JSON data or text.
  traits: () => ({
    streaming: false,
    accepts: (mode) => mode.toLowerCase().startsWith('text/') || mode.toLowerCase() === 'application/json',
  }),
};

export function registerGraphRuntime(): void {
  registerRuntime(graphRuntimeDefinition);
}
