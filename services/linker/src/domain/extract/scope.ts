import type { Node } from '../parsers';
import type { Part } from '../model';
import { HOLE_PART } from './common';

/**
 * Declarations of one file by name, evaluated lazily. A name declared several times with different
 * values is unknown (we do not do flow analysis); cycles are unknown too. A declaration whose value
 * evaluates to no part at all is left out (it says nothing about the name).
 */
export class Scope {
  readonly #decls = new Map<string, Node[]>();
  readonly #values = new Map<string, Part[]>();
  readonly #resolving = new Set<string>();

  constructor(private readonly evaluate: (node: Node) => Part[]) {}

  add(name: string, value: Node): void {
    const list = this.#decls.get(name);
    if (list) list.push(value);
    else this.#decls.set(name, [value]);
  }

  /** Adds an already evaluated value (object-literal members, annotations). */
  set(name: string, value: Part[]): void {
    if (!this.#decls.has(name)) this.#decls.set(name, []);
    this.#values.set(name, value);
  }

  has(name: string): boolean {
    return this.#decls.has(name);
  }

  lookup(name: string): Part[] | undefined {
    const cached = this.#values.get(name);
    if (cached) return cached;
    const decls = this.#decls.get(name);
    if (!decls) return undefined;
    if (this.#resolving.has(name)) return [HOLE_PART];
    this.#resolving.add(name);
    // A declaration that evaluates to nothing contributes nothing (a setter's parameter nobody passes).
    const values = decls.map((d) => this.evaluate(d)).filter((v) => v.length > 0);
    this.#resolving.delete(name);
    if (values.length === 0 && decls.length > 0 && !this.#values.has(name)) return undefined;
    const first = JSON.stringify(values[0]);
    const value = values.length > 0 && values.every((v) => JSON.stringify(v) === first) ? values[0]! : [HOLE_PART];
    this.#values.set(name, value);
    return value;
  }

  /** Values known without guessing: exported to the source's constants for cross-file references. */
  *known(): Generator<[string, Part[]]> {
    for (const name of this.#decls.keys()) {
      const v = this.lookup(name);
      if (v && v.length > 0 && v.every((p) => 'lit' in p || 'env' in p || 'config' in p)) yield [name, v];
    }
  }
}
