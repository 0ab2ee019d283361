import type { Endpoint, Part } from '../model';
import { emptyFacts } from '../model';
import { type CodeLanguage, parseWithin } from '../parsers';
import { Sink, type SinkState, forgetWalk } from './common';
import { extractChannels } from './channels';
import type { CodeExtractor } from './driver';
import { type GeneratedOperation, calledNames, generatedBasePath, generatedOperations } from './generated-clients';
import { type EventuateFile, eventuateFile } from './eventuate';
import { fileSystemRoutes } from './fs-routes';
import { jsModule } from './js-modules';
import { extractJavaScript } from './javascript';
import { extractCSharp } from './csharp';
import { activeCSharp } from './csharp-preprocess';
import { extractGo } from './go';
import { extractJava } from './java';
import { extractPython } from './python';
import { extractElixir } from './elixir';
import { extractKotlin, extractPhp, extractRuby, extractRust } from './script';

const EXTRACTORS: Record<CodeLanguage, CodeExtractor> = {
  typescript: extractJavaScript,
  tsx: extractJavaScript,
  javascript: extractJavaScript,
  csharp: extractCSharp,
  java: extractJava,
  python: extractPython,
  go: extractGo,
  kotlin: extractKotlin,
  rust: extractRust,
  ruby: extractRuby,
  php: extractPhp,
  elixir: extractElixir,
};

/** One code file to extract: what a parse worker receives. */
export interface CodeFileJob {
  readonly source: string;
  readonly path: string;
  readonly lang: CodeLanguage;
  readonly text: string;
  readonly parseBudgetMs: number;
  /** C#: the symbols the file's project defines (`DefineConstants`), for its conditional compilation. */
  readonly defines?: readonly string[];
}

/** One code file's facts as structured-cloneable data, merged into its source in file order. */
export type CodeFileResult =
  | { readonly skipped: string }
  | {
      readonly sink: SinkState;
      /** The file's constants (its scope's known values), for cross-file references. */
      readonly known: readonly (readonly [string, Part[]])[];
      readonly fsRoutes?: { marker: string; endpoints: Endpoint[] };
      /** Operations of a generated OpenAPI client, or else the names the file calls. */
      readonly generatedOps: readonly GeneratedOperation[];
      readonly calledNames: readonly string[];
      /** A generated client's default base path, for the operations of its folder. */
      readonly generatedBase?: { dir: string; path: string };
      /** Java: the file's Eventuate Tram declarations and types, linked once the source is read. */
      readonly eventuate?: EventuateFile;
    };

/** Parses and extracts one code file on its own (in process or in a parse worker). */
export async function extractCodeFile(job: CodeFileJob): Promise<CodeFileResult> {
  // C#: the code the compiler sees (branches of `#if` not taken are blanked, offsets kept).
  const text = job.lang === 'csharp' ? activeCSharp(job.text, job.defines) : job.text;
  const tree = await parseWithin(job.lang, text, job.parseBudgetMs);
  if (!tree) return { skipped: `parse took longer than ${job.parseBudgetMs} ms` };
  const sink = new Sink(emptyFacts(job.source));
  let known: (readonly [string, Part[]])[] = [];
  let fsRoutes: { marker: string; endpoints: Endpoint[] } | undefined;
  try {
    if (job.lang === 'typescript' || job.lang === 'tsx' || job.lang === 'javascript')
      fsRoutes = fileSystemRoutes(tree.rootNode, job.path);
    EXTRACTORS[job.lang](tree.rootNode, job.path, sink, (scope) => {
      known = [...scope.known()];
    });
    if (job.lang === 'typescript' || job.lang === 'tsx' || job.lang === 'javascript')
      (sink.facts.jsModules ??= []).push(jsModule(tree.rootNode, job.path, text));
  } catch (err) {
    // Past what the evaluator's recursion can follow (a 20,000-term `+` chain overflows the stack): this file is
    // skipped and listed, the source's other files still count.
    if (err instanceof RangeError) return { skipped: `too deeply nested to analyse (${err.message})` };
    throw err;
  } finally {
    forgetWalk();
    tree.delete();
  }
  extractChannels(text, job.path, sink);
  const generatedOps = generatedOperations(text, job.path);
  const eventuate = job.lang === 'java' ? eventuateFile(text, job.path) : undefined;
  const generatedBase = generatedBasePath(text, job.path);
  return {
    ...(generatedBase ? { generatedBase } : {}),
    ...(eventuate ? { eventuate } : {}),
    sink: sink.state(),
    known,
    ...(fsRoutes ? { fsRoutes } : {}),
    generatedOps,
    calledNames: generatedOps.length ? [] : [...calledNames(text)],
  };
}
