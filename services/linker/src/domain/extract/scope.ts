import type { Node } from '../parsers';
import type { Part } from '../model';
import { HOLE_PART, expandAlternatives, lit, MAX_ALTERNATIVES } from './common';

/** Node types that open a function body, in every grammar the driver runs. */
export const FUNCTIONS: ReadonlySet<string> = new Set([
  'method_declaration',
  'constructor_declaration',
  'compact_constructor_declaration',
  'lambda_expression',
  'function_declaration',
  'function_expression',
  'function',
  'arrow_function',
  'method_definition',
  'generator_function_declaration',
  'generator_function',
  'local_function_statement',
  'anonymous_method_expression',
  'accessor_declaration',
  'func_literal',
  'function_definition',
  'lambda',
  'function_item',
  'closure_expression',
]);

/** The functions around a node, nearest first, by their start offset. */
function owners(node: Node): number[] {
  const out: number[] = [];
  for (let p: Node | null = node.parent; p; p = p.parent) if (FUNCTIONS.has(p.type)) out.push(p.startIndex);
  return out;
}

interface Decl {
  /** The value; absent for a local declared without one (`String url;`), which only says the name is local. */
  readonly node?: Node;
  /** Where the declaration or assignment is, for the definitions that reach a use (`node`'s, else this). */
  readonly at: Node;
  /** The function the declaration is local to; -1 for the file's (module, class, package) level. */
  readonly owner: number;
  /** Seen only from inside its function: never one of the source's constants other files read. */
  readonly hidden?: boolean;
}

/**
 * Declarations of one file by name, evaluated lazily. A name declared several times with different
 * values is unknown, except a function's local seen from a use: the definitions that reach it (see
 * `reachingDefinitions`), a few alternatives kept (ADR 0048); cycles are unknown too. A declaration whose value
 * evaluates to no part at all is left out (it says nothing about the name).
 *
 * Local declarations (variables and parameters inside a function) are scoped: a lookup from a node
 * sees the declarations of the nearest enclosing function that declares the name, else the file-level
 * ones; another function's locals are invisible to it, so `url` in two methods is two values.
 */
export class Scope {
  readonly #decls = new Map<string, Decl[]>();
  readonly #values = new Map<string, Part[]>();
  readonly #resolving = new Set<string>();
  /** By node id: the innermost function at or above the node (its start), -1 for none; see `#owner`. */
  readonly #inner = new Map<number, number>();
  /** Parameters of the helpers being inlined for one of their calls (C#/Java), innermost last. */
  readonly #bindings: Map<string, Part[]>[] = [];
  /** Values evaluated for the inlined call of the same index: its bindings hold for the whole call. */
  readonly #callValues: Map<string, Part[]>[] = [];

  constructor(private readonly evaluate: (node: Node) => Part[]) {}

  /** `local`: a variable or parameter declaration, visible only inside its enclosing function. */
  add(name: string, value: Node, local = false): void {
    this.#push(name, { node: value, at: value, owner: local ? this.#owner(value) : -1 });
  }

  /**
   * A property a function sets on one of its parameters or locals (`$scope.url = …`): a value of that
   * function (and its callbacks) only; another function's object of the same name is another object.
   */
  addMember(name: string, value: Node): void {
    const owner = this.#owner(value);
    if (owner !== -1) this.#push(name, { node: value, at: value, owner, hidden: true });
  }

  /** A local declared without a value (`String url;`): later assignments in its function are its values. */
  declare(name: string, at: Node): void {
    this.#push(name, { at, owner: this.#owner(at) });
  }

  /**
   * `name = value`: local to the nearest enclosing function that declares `name`, when one does (its
   * values then reach uses by position, see `lookup`); otherwise a file-level value when `fileLevel`,
   * else nothing (an assignment to a name this file never declares says nothing we can place).
   */
  assign(name: string, value: Node, fileLevel: boolean): void {
    // Only the function's own: an assignment in a callback it declares may run any number of times, or never.
    const fn = this.#owner(value);
    if (fn !== -1 && this.#decls.get(name)?.some((d) => d.owner === fn))
      this.#push(name, { node: value, at: value, owner: fn });
    else if (fileLevel) this.add(name, value);
  }

  /**
   * The innermost enclosing function (`owners(node)[0]`) without walking on to the root. The answer of
   * every node passed on the way is kept: declarations of one function share their ancestors, and each
   * step up the tree crosses into wasm.
   */
  #owner(node: Node): number {
    const path: number[] = [];
    let found = -1;
    for (let p: Node | null = node.parent; p; p = p.parent) {
      const known = this.#inner.get(p.id);
      if (known !== undefined) {
        found = known;
        break;
      }
      path.push(p.id);
      if (FUNCTIONS.has(p.type)) {
        found = p.startIndex;
        break;
      }
    }
    for (const id of path) this.#inner.set(id, found);
    return found;
  }

  #push(name: string, decl: Decl): void {
    const list = this.#decls.get(name);
    if (list) list.push(decl);
    else this.#decls.set(name, [decl]);
  }

  /** Adds an already evaluated value (object-literal members, annotations). */
  set(name: string, value: Part[]): void {
    if (!this.#decls.has(name)) this.#decls.set(name, []);
    this.#values.set(name, value);
  }

  /** How many helper calls are being inlined one inside the other. */
  get depth(): number {
    return this.#bindings.length;
  }

  /** The value a parameter of the helper being inlined has for this call, if it is one. */
  param(name: string): Part[] | undefined {
    return this.#bindings[this.#bindings.length - 1]?.get(name);
  }

  /**
   * A helper's `return` expressions with its parameters bound to one call's arguments (C#/Java
   * inlining): one value when every return agrees. Each call binds its own arguments: while bound,
   * values (the helper's locals) are evaluated for this call and cached for this call only — a value
   * cached beyond it would hand the first call's URL to every later call, and none at all re-evaluates
   * a local's definitions once per path (exponential in the branches that reassign it).
   */
  inline(bound: Map<string, Part[]>, returned: readonly Node[]): Part[] {
    this.#bindings.push(bound);
    this.#callValues.push(new Map());
    try {
      const values = returned.map((r) => this.evaluate(r));
      if (values.length === 1) return values[0]!;
      const first = JSON.stringify(values[0]);
      return values.every((v) => JSON.stringify(v) === first) ? values[0]! : [HOLE_PART];
    } finally {
      this.#bindings.pop();
      this.#callValues.pop();
    }
  }

  /** Where evaluated values are kept: the inlined call's own cache while one is bound. */
  #cache(): Map<string, Part[]> {
    return this.#callValues[this.#callValues.length - 1] ?? this.#values;
  }

  has(name: string): boolean {
    return this.#decls.has(name);
  }

  /** The value of a name; seen from `from` when given (local declarations scoped by function). */
  lookup(name: string, from?: Node): Part[] | undefined {
    const decls = this.#decls.get(name);
    if (from && decls?.some((d) => d.owner !== -1)) {
      for (const owner of owners(from)) {
        const mine = decls.filter((d) => d.owner === owner);
        if (mine.length === 0) continue;
        // Past a few definitions, all of them together (one value or unknown): the reaching ones cost each use
        // a pass over every definition, and each definition that reads the local another lookup.
        const reaching = mine.length > 1 && mine.length <= MAX_DEFINITIONS ? reachingDefinitions(mine, from) : mine;
        if (reaching === mine && mine.length > 1) return this.#resolve(`${name}@${owner}`, mine);
        if (reaching.length === 0) return this.#resolve(`${name}@${owner}`, mine);
        const key = `${name}@${owner}@${reaching.map((d) => d.at.startIndex).join(',')}`;
        return reaching.length > 1 ? this.#alternatives(key, reaching) : this.#resolve(key, reaching);
      }
      const file = decls.filter((d) => d.owner === -1);
      return file.length > 0 ? this.#resolve(`${name}@-1`, file) : undefined;
    }
    const cached = this.#values.get(name);
    if (cached) return cached;
    return decls ? this.#resolve(name, decls) : undefined;
  }

  /**
   * The one declaration node of a name, seen from `from` like `lookup` (the nearest function that
   * declares it, else the file level); undefined when none or when it is declared more than once there.
   */
  node(name: string, from: Node): Node | undefined {
    const decls = this.#decls.get(name);
    if (!decls) return undefined;
    for (const owner of owners(from)) {
      const mine = decls.filter((d) => d.owner === owner);
      if (mine.length > 0) return mine.length === 1 ? mine[0]!.node : undefined;
    }
    const file = decls.filter((d) => d.owner === -1);
    return file.length === 1 ? file[0]!.node : undefined;
  }

  #evaluateAll(key: string, decls: readonly Decl[]): Part[][] | undefined {
    if (this.#resolving.has(key)) return undefined;
    this.#resolving.add(key);
    try {
      return decls.flatMap((d) => (d.node ? [this.evaluate(d.node)] : [])).filter((v) => v.length > 0);
    } finally {
      this.#resolving.delete(key);
    }
  }

  /**
   * Several definitions reach the use (`if (…) url = A; else url = B;`): one value with its alternatives
   * (`HOLE_PART` carrying them), which the sink expands into one call per alternative. An empty string
   * among others is an initialiser every branch overwrites; more than `MAX_ALTERNATIVES` is unknown.
   */
  #alternatives(key: string, decls: readonly Decl[]): Part[] | undefined {
    const cache = this.#cache();
    const cached = cache.get(key);
    if (cached) return cached;
    const evaluated = this.#evaluateAll(key, decls);
    if (!evaluated) return [HOLE_PART];
    if (evaluated.length === 0) return undefined;
    const seen = new Map<string, Part[]>();
    for (const v of evaluated.flatMap(expandAlternatives)) {
      if (v.length === 1 && 'lit' in v[0]! && v[0].lit === '') continue;
      seen.set(JSON.stringify(v), v);
    }
    const alts = [...seen.values()];
    const value: Part[] =
      alts.length === 0
        ? lit('')
        : alts.length === 1
          ? alts[0]!
          : alts.length <= MAX_ALTERNATIVES
            ? [{ hole: true, alts }]
            : [HOLE_PART];
    cache.set(key, value);
    return value;
  }

  #resolve(key: string, decls: readonly Decl[]): Part[] | undefined {
    const cache = this.#cache();
    const cached = cache.get(key);
    if (cached) return cached;
    const values = this.#evaluateAll(key, decls);
    if (!values) return [HOLE_PART];
    if (values.length === 0 && decls.length > 0) return undefined;
    const value = sameOrHole(values);
    cache.set(key, value);
    return value;
  }

  /** Values known without guessing: exported to the source's constants for cross-file references. */
  *known(): Generator<[string, Part[]]> {
    for (const [name, decls] of this.#decls) {
      if (decls.length > 0 && decls.every((d) => d.hidden)) continue;
      const v = this.lookup(name);
      if (!v || v.length === 0) continue;
      // A partial value crosses files when what it knows is a path (`<computed host>/paymentAuth`).
      const partial =
        v.every((p) => !('ref' in p)) && v.some((p) => 'lit' in p && p.lit.startsWith('/') && p.lit.length > 1);
      if (partial || v.every((p) => 'lit' in p || 'env' in p || 'config' in p)) yield [name, v];
    }
  }
}

/** The one value all of `values` are (compared as JSON), else unknown; one value is compared with nothing. */
function sameOrHole(values: readonly Part[][]): Part[] {
  if (values.length === 1) return values[0]!;
  const first = JSON.stringify(values[0]);
  return values.length > 0 && values.every((v) => JSON.stringify(v) === first) ? values[0]! : [HOLE_PART];
}

/** The most definitions of one local whose reaching ones are worked out for a use (more: all of them, ADR 0048). */
const MAX_DEFINITIONS = 16;

/** Statements and expressions whose children run only on some paths. */
const CONDITIONAL =
  /^(if|else|elif|switch|case|default_case|expression_case|type_case|communication_case|select|for|while|do|catch|try|finally|except|conditional|ternary|when|match|loop)/;

/**
 * The definitions of one function's local that reach `use`, in structured code: those before it, where
 * one that runs on every path to the use (not inside a branch, loop or handler the use is outside of)
 * replaces all earlier ones, and one inside such a branch adds to them. Loops carrying a later value
 * back to an earlier use are not followed.
 */
function reachingDefinitions(decls: readonly Decl[], use: Node): Decl[] {
  const before = decls.filter((d) => d.at.endIndex <= use.startIndex).sort((a, b) => a.at.startIndex - b.at.startIndex);
  let out: Decl[] = [];
  for (const d of before) {
    if (dominates(d.at, use)) {
      out = [d];
      continue;
    }
    out.push(d);
    // An `if … else` every branch of which sets the variable replaces what it had before.
    const branch = conditionalAncestor(d.at, use);
    const arms = branch?.type === 'if_statement' ? ifArms(branch) : undefined;
    if (branch && arms?.every((arm) => out.some((x) => within(x.at, arm))))
      out = out.filter((x) => x.at.startIndex >= branch.startIndex);
  }
  return out;
}

const within = (n: Node, outer: Node): boolean => outer.startIndex <= n.startIndex && n.endIndex <= outer.endIndex;

/** The outermost conditional statement around `def` that the use is outside of, when it runs on every path. */
function conditionalAncestor(def: Node, use: Node): Node | undefined {
  let found: Node | undefined;
  for (let a: Node | null = def; a?.parent && !FUNCTIONS.has(a.type); a = a.parent)
    if (CONDITIONAL.test(a.type) && !within(use, a)) found = a;
  return found && dominates(found, use) ? found : undefined;
}

/** The arms of an `if` chain ending in a plain `else` (`elif`s included); undefined when some path takes no arm. */
function ifArms(node: Node): Node[] | undefined {
  const consequence = node.childForFieldName('consequence');
  const alternatives = node.childrenForFieldName('alternative').filter((a): a is Node => a !== null);
  if (!consequence || alternatives.length === 0) return undefined;
  const arms = [consequence];
  for (const [i, alt] of alternatives.entries()) {
    if (alt.type === 'elif_clause') {
      const c = alt.childForFieldName('consequence');
      if (!c) return undefined;
      arms.push(c);
      continue;
    }
    const body =
      alt.type === 'else_clause' ? (alt.childForFieldName('body') ?? alt.namedChildren.find((c) => c !== null)) : alt;
    if (!body) return undefined;
    if (body.type === 'if_statement') {
      const rest = ifArms(body);
      if (!rest) return undefined;
      arms.push(...rest);
    } else arms.push(body);
    // A plain `else` is the chain's last arm; anything after it is not this chain's.
    return i === alternatives.length - 1 ? arms : undefined;
  }
  return undefined;
}

function dominates(def: Node, use: Node): boolean {
  const inside = (n: Node) => n.startIndex <= use.startIndex && use.endIndex <= n.endIndex;
  for (let a: Node | null = def; a?.parent && !FUNCTIONS.has(a.type); a = a.parent) {
    const p = a.parent;
    if (!CONDITIONAL.test(p.type) || inside(a)) continue;
    // The condition of an `if`/`while` runs on every path through it.
    if (p.childForFieldName('condition')?.startIndex === a.startIndex) continue;
    return false;
  }
  return true;
}
