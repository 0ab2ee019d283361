import { resolve } from 'node:path';
import { extractSource } from './domain/extract/index';
import type { SourceFacts } from './domain/model';
import { buildReport, renderMarkdown } from './domain/report';
import { fetchSource, listSourceFiles, locationOf } from './ingest/index';
import { DEFAULT_INGEST_LIMITS } from './domain/sources';
import { MAX_DEFAULT_PARSE_WORKERS, ParsePool, defaultParseWorkers } from './parse-pool';

export const USAGE = `Usage: linker <dir|git-url[#ref]>... [--json] [--include-tests] [--name <application>] [--workers <n>]

Prints the link report of the given repositories (Markdown, or JSON with --json).
Git URLs are anything \`git clone\` accepts (https, ssh, file://); append #<branch|tag|commit> for a ref.
Test folders are ignored unless --include-tests is given.
--workers: parse workers (threads; 0: none), by default one per core, at most ${MAX_DEFAULT_PARSE_WORKERS}.
`;

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** The CLI without the process: returns the exit code (0 ok, 1 failure, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let json = false;
  let includeTests = false;
  let name: string | undefined;
  let workers = defaultParseWorkers();
  const specs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') json = true;
    else if (a === '--include-tests') includeTests = true;
    else if (a === '--name') name = argv[++i];
    else if (a === '--workers') {
      workers = Number(argv[++i]);
      if (!Number.isInteger(workers) || workers < 0 || workers > 64) {
        io.stderr(`--workers takes an integer from 0 to 64\n${USAGE}`);
        return 2;
      }
    } else if (a === '-h' || a === '--help') {
      io.stdout(USAGE);
      return 0;
    } else if (a.startsWith('--')) {
      io.stderr(`unknown option ${a}\n${USAGE}`);
      return 2;
    } else specs.push(a);
  }
  if (specs.length === 0 || (name !== undefined && name.length === 0)) {
    io.stderr(USAGE);
    return 2;
  }
  const facts: SourceFacts[] = [];
  const used = new Set<string>();
  const pool = ParsePool.open(workers);
  try {
    for (const spec of specs) {
      const { name: base, location } = await locationOf(spec);
      let source = base;
      for (let n = 2; used.has(source); n++) source = `${base}-${n}`;
      used.add(source);
      const fetched = await fetchSource(location);
      try {
        const extracted = await extractSource(
          source,
          // A file over the limit is skipped by its size, never read (as the server does).
          await listSourceFiles(fetched.root, { includeTests, maxFileBytes: DEFAULT_INGEST_LIMITS.maxFileBytes }),
          { includeTests, ...(pool ? { runCode: pool.run, window: pool.window } : {}) },
        );
        facts.push(location.kind === 'dir' ? { ...extracted, origin: resolve(location.path) } : extracted);
      } finally {
        await fetched.dispose();
      }
    }
  } catch (err) {
    io.stderr(`linker: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await pool?.close();
  }
  const report = buildReport(facts, { application: name ?? facts.map((f) => f.source).join(' + ') });
  io.stdout(json ? JSON.stringify(report, null, 2) + '\n' : renderMarkdown(report));
  return 0;
}
