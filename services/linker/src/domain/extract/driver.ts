import type { Part } from '../model';
import type { Node } from '../parsers';
import { type Sink, walk } from './common';
import { Scope } from './scope';
import { COMMENT_TYPES, type GrpcTable, scanGrpc } from './grpc';

/** Extracts one parsed file's facts into the sink; hands the file's constants to `scopeOut`. */
export type CodeExtractor = (root: Node, file: string, sink: Sink, scopeOut: (scope: Scope) => void) => void;

/** What one file's rules work with. */
export interface FileContext {
  readonly file: string;
  readonly sink: Sink;
  /** The file's names and constants; lookups are evaluated with the rules' `evaluate`. */
  readonly scope: Scope;
}

/** Run after the walk on every node of its types, in document order. */
export interface NodeRule {
  readonly on: readonly string[];
  each(node: Node): void;
}

/** One language's rule table for one file. */
export interface FileRules {
  /** An expression as parts: string literals, concatenation, constants, environment and config lookups. */
  evaluate(node: Node): Part[];
  /** Run during the walk, in document order, by node type: declarations into the scope, clients, routers. */
  readonly declarations: Readonly<Record<string, (node: Node) => void>>;
  /** Run after the walk, rule after rule, once every declaration of the file is known. */
  readonly rules: readonly NodeRule[];
  /** The language's gRPC table (servers, clients, channels), read after the rules. */
  readonly grpc?: GrpcTable;
  /** A framework read from the whole file's text after the rules (NestJS microservices). */
  readonly scan?: (root: Node, lookup: (name: string) => Part[] | undefined) => void;
  /** Types a later walk of the same tree visits (the JS module graph): captured by this walk for it to reuse. */
  readonly captureAlso?: ReadonlySet<string>;
}

/** A language: builds the rule table of one file over its context. */
export type LanguageRules = (context: FileContext) => FileRules;

/**
 * The one driver of every language: one walk over the node types the rules name (a tree-sitter query),
 * the declarations as they come, then each rule over its nodes, then the file's scope to `scopeOut`.
 */
export function extractorOf(language: LanguageRules): CodeExtractor {
  // One Set per list of types: `walk` caches its compiled query per Set.
  const typeSets = new Map<string, ReadonlySet<string>>();
  return (root, file, sink, scopeOut) => {
    // The scope evaluates lazily (at lookups), once the rules below exist.
    const scope: Scope = new Scope((n) => rules.evaluate(n));
    const rules = language({ file, sink, scope });
    const { declarations } = rules;
    const ruleTypes = new Set(rules.rules.flatMap((r) => r.on));
    const types = [
      ...new Set([...Object.keys(declarations), ...ruleTypes, ...(rules.captureAlso ?? []), ...COMMENT_TYPES]),
    ];
    const key = types.join(' ');
    let visited = typeSets.get(key);
    if (!visited) typeSets.set(key, (visited = new Set(types)));
    // Each node's type as the walk saw it: asking a node for its type crosses into wasm every time.
    const collected: Node[] = [];
    const typeOf: string[] = [];
    walk(root, visited, (node, type) => {
      if (Object.prototype.hasOwnProperty.call(declarations, type)) declarations[type]!(node);
      if (ruleTypes.has(type)) {
        collected.push(node);
        typeOf.push(type);
      }
    });
    // Each rule over the indices of its types, in document order (rules × nodes comparisons were a cost).
    const byType = new Map<string, number[]>();
    for (let i = 0; i < typeOf.length; i++) {
      const list = byType.get(typeOf[i]!);
      if (list) list.push(i);
      else byType.set(typeOf[i]!, [i]);
    }
    for (const rule of rules.rules) {
      const at = rule.on.length === 1 ? byType.get(rule.on[0]!) : mergedIndices(rule.on, byType);
      if (at) for (const i of at) rule.each(collected[i]!);
    }
    if (rules.grpc) scanGrpc(rules.grpc, root, file, sink, (name) => scope.lookup(name));
    rules.scan?.(root, (name) => scope.lookup(name));
    scopeOut(scope);
  };
}

/** The indices of nodes of any of `types`, ascending (document order). */
function mergedIndices(types: readonly string[], byType: ReadonlyMap<string, number[]>): number[] {
  const out: number[] = [];
  for (const t of new Set(types)) out.push(...(byType.get(t) ?? []));
  return out.sort((a, b) => a - b);
}

/** The rule every language ends with: string literals longer than 12 characters are read as SQL. */
export function sqlStringRule(
  sink: Sink,
  file: string,
  on: readonly string[],
  text: (node: Node) => string | undefined,
): NodeRule {
  return {
    on,
    each(node) {
      const t = text(node);
      if (t !== undefined && t.length > 12) sink.sql(t, { file, line: node.startPosition.row + 1 });
    },
  };
}
