import { createRequire } from 'node:module';
import { Language, Node, Parser } from 'web-tree-sitter';
import type { Tree } from 'web-tree-sitter';

export type { Node, Tree };

const TYPE = Symbol('type');
const PARENT = Symbol('parent');
const FIELDS = Symbol('fields');
const TEXT = Symbol('text');
const END = Symbol('end');
interface Memo {
  [TYPE]?: string;
  [TEXT]?: string;
  [END]?: number;
  [PARENT]?: Node | null;
  [FIELDS]?: Map<string, Node | null>;
}

/**
 * A node's type, parent, named fields, text and end, read once per node object. Each read crosses into wasm and
 * builds a new Node there, and the rules ask the same node for them again and again (every rule of a
 * call reads its `function` and `arguments`; a type is compared several times): in the parse stage these
 * reads cost more than the parse. Sound because the linker never edits a tree: a node's answers are fixed.
 */
function memoiseNodeReads(): void {
  const proto = Node.prototype as Node & Memo;
  // The originals, always called with the node as `this`.
  /* eslint-disable @typescript-eslint/unbound-method */
  const type = Object.getOwnPropertyDescriptor(Node.prototype, 'type')?.get;
  const parent = Object.getOwnPropertyDescriptor(Node.prototype, 'parent')?.get;
  const field = Node.prototype.childForFieldName;
  const text = Object.getOwnPropertyDescriptor(Node.prototype, 'text')?.get;
  const end = Object.getOwnPropertyDescriptor(Node.prototype, 'endIndex')?.get;
  /* eslint-enable @typescript-eslint/unbound-method */
  if (!type || !parent || !text || !end) return;
  Object.defineProperty(proto, 'type', {
    configurable: true,
    get(this: Node & Memo): string {
      return (this[TYPE] ??= type.call(this) as string);
    },
  });
  Object.defineProperty(proto, 'parent', {
    configurable: true,
    get(this: Node & Memo): Node | null {
      if (this[PARENT] === undefined) this[PARENT] = parent.call(this) as Node | null;
      return this[PARENT];
    },
  });
  // `text` reads the end index and the start position from wasm and rebuilds the string from the source each time.
  Object.defineProperty(proto, 'text', {
    configurable: true,
    get(this: Node & Memo): string {
      return (this[TEXT] ??= text.call(this) as string);
    },
  });
  Object.defineProperty(proto, 'endIndex', {
    configurable: true,
    get(this: Node & Memo): number {
      return (this[END] ??= end.call(this) as number);
    },
  });
  proto.childForFieldName = function (this: Node & Memo, name: string): Node | null {
    const fields = (this[FIELDS] ??= new Map());
    let child = fields.get(name);
    if (child === undefined) fields.set(name, (child = field.call(this, name)));
    return child;
  };
}
memoiseNodeReads();

/** Languages parsed with tree-sitter; config formats are parsed separately. */
export type CodeLanguage =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'csharp'
  | 'java'
  | 'python'
  | 'go'
  | 'kotlin'
  | 'rust'
  | 'ruby'
  | 'php'
  | 'elixir';

const WASM: Record<CodeLanguage, string> = {
  typescript: 'tree-sitter-typescript/tree-sitter-typescript.wasm',
  tsx: 'tree-sitter-typescript/tree-sitter-tsx.wasm',
  javascript: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
  csharp: 'tree-sitter-c-sharp/tree-sitter-c_sharp.wasm',
  java: 'tree-sitter-java/tree-sitter-java.wasm',
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  go: 'tree-sitter-go/tree-sitter-go.wasm',
  kotlin: '@tree-sitter-grammars/tree-sitter-kotlin/tree-sitter-kotlin.wasm',
  rust: 'tree-sitter-rust/tree-sitter-rust.wasm',
  ruby: 'tree-sitter-ruby/tree-sitter-ruby.wasm',
  php: 'tree-sitter-php/tree-sitter-php.wasm',
  elixir: 'tree-sitter-elixir/tree-sitter-elixir.wasm',
};

// The CJS bundle and vitest both define __filename; a plain ESM loader resolves from the working directory.
const requireHere = createRequire(typeof __filename === 'string' ? __filename : `${process.cwd()}/`);

let initialised: Promise<void> | undefined;
const languages = new Map<CodeLanguage, Promise<Language>>();

function init(): Promise<void> {
  initialised ??= Parser.init();
  return initialised;
}

async function language(lang: CodeLanguage): Promise<Language> {
  await init();
  let loaded = languages.get(lang);
  if (!loaded) {
    loaded = Language.load(requireHere.resolve(WASM[lang]));
    languages.set(lang, loaded);
  }
  return loaded;
}

/** One parser per language, reused: parsers are cheap to keep and costly to create per file. */
const parsers = new Map<CodeLanguage, Parser>();

export async function parse(lang: CodeLanguage, source: string): Promise<Tree> {
  const tree = await parseWithin(lang, source, Infinity);
  if (!tree) throw new Error(`tree-sitter could not parse ${lang} source`);
  return tree;
}

/**
 * Parses within a time budget: undefined when tree-sitter had not finished after `budgetMs` (its
 * progress callback cancels the parse), so one pathological file cannot stall an ingest.
 */
export async function parseWithin(lang: CodeLanguage, source: string, budgetMs: number): Promise<Tree | undefined> {
  let parser = parsers.get(lang);
  if (!parser) {
    const lng = await language(lang);
    parser = new Parser();
    parser.setLanguage(lng);
    parsers.set(lang, parser);
  }
  const deadline = performance.now() + budgetMs;
  const tree = Number.isFinite(budgetMs)
    ? parser.parse(source, null, { progressCallback: () => performance.now() > deadline })
    : parser.parse(source);
  // A cancelled parse would resume where it stopped on the next call: start the next file afresh.
  if (!tree) parser.reset();
  return tree ?? undefined;
}

export function languageOf(path: string): CodeLanguage | undefined {
  if (/\.(ts|mts|cts)$/.test(path) && !path.endsWith('.d.ts')) return 'typescript';
  if (path.endsWith('.tsx')) return 'tsx';
  if (/\.(js|mjs|cjs|jsx)$/.test(path)) return 'javascript';
  if (path.endsWith('.cs')) return 'csharp';
  if (path.endsWith('.java')) return 'java';
  if (path.endsWith('.py')) return 'python';
  if (path.endsWith('.go')) return 'go';
  if (/\.kts?$/.test(path)) return 'kotlin';
  if (path.endsWith('.rs')) return 'rust';
  if (path.endsWith('.rb')) return 'ruby';
  if (path.endsWith('.php')) return 'php';
  if (/\.exs?$/.test(path)) return 'elixir';
  return undefined;
}
