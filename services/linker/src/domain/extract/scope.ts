import type { Node } from '../parsers';
import type { Part } from '../model';
import { HOLE_PART } from './common';

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
]);

/** The functions around a node, nearest first, by their start offset. */
function owners(node: Node): number[] {
  const out: number[] = [];
  for (let p: Node | null = node.parent; p; p = p.parent) if (FUNCTIONS.has(p.type)) out.push(p.startIndex);
  return out;
}

/** The innermost enclosing function (`owners(node)[0]`) without walking on to the root. */
function owner(node: Node): number {
  for (let p: Node | null = node.parent; p; p = p.parent) if (FUNCTIONS.has(p.type)) return p.startIndex;
  return -1;
}

interface Decl {
  readonly node: Node;
  /** The function the declaration is local to; -1 for the file's (module, class, package) level. */
  readonly owner: number;
}

/**
 * Declarations of one file by name, evaluated lazily. A name declared several times with different
 * values is unknown (we do not do flow analysis); cycles are unknown too. A declaration whose value
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
  /** Parameters of the helpers being inlined for one of their calls (C#/Java), innermost last. */
  readonly #bindings: Map<string, Part[]>[] = [];

  constructor(private readonly evaluate: (node: Node) => Part[]) {}

  /** `local`: a variable or parameter declaration, visible only inside its enclosing function. */
  add(name: string, value: Node, local = false): void {
    const decl = { node: value, owner: local ? owner(value) : -1 };
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
   * values (the helper's locals) are evaluated for this call and never cached — a cached value would
   * hand the first call's URL to every later call.
   */
  inline(bound: Map<string, Part[]>, returned: readonly Node[]): Part[] {
    this.#bindings.push(bound);
    try {
      const values = returned.map((r) => this.evaluate(r));
      const first = JSON.stringify(values[0]);
      return values.every((v) => JSON.stringify(v) === first) ? values[0]! : [HOLE_PART];
    } finally {
      this.#bindings.pop();
    }
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
        if (mine.length > 0) return this.#resolve(`${name}@${owner}`, mine);
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

  #resolve(key: string, decls: readonly Decl[]): Part[] | undefined {
    const cache = this.#bindings.length === 0;
    const cached = cache ? this.#values.get(key) : undefined;
    if (cached) return cached;
    if (this.#resolving.has(key)) return [HOLE_PART];
    this.#resolving.add(key);
    const values = decls.map((d) => this.evaluate(d.node)).filter((v) => v.length > 0);
    this.#resolving.delete(key);
    if (values.length === 0 && decls.length > 0) return undefined;
    const first = JSON.stringify(values[0]);
    const value = values.length > 0 && values.every((v) => JSON.stringify(v) === first) ? values[0]! : [HOLE_PART];
    if (cache) this.#values.set(key, value);
    return value;
  }

  /** Values known without guessing: exported to the source's constants for cross-file references. */
  *known(): Generator<[string, Part[]]> {
    for (const name of this.#decls.keys()) {
      const v = this.lookup(name);
      if (!v || v.length === 0) continue;
      // A partial value crosses files when what it knows is a path (`<computed host>/paymentAuth`).
      const partial =
        v.every((p) => !('ref' in p)) && v.some((p) => 'lit' in p && p.lit.startsWith('/') && p.lit.length > 1);
      if (partial || v.every((p) => 'lit' in p || 'env' in p || 'config' in p)) yield [name, v];
    }
  }
}
