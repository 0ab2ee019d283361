import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// bench/linker-1000.ts (issue 12: "ingest of 1,000 files stays under 5 s and bounded in memory"). Wall time
// depends on what else the machine runs, so the test guards the parts that do not: the linker's CPU time against
// tree-sitter parsing alone measured in the same process, peak memory, and a complete report. The seconds
// are printed for the log. It runs twice: on the main thread, whose CPU ratio guards the rules' cost, and with two
// parse workers whatever the machine's cores (the default is one per core, ADR 0068; the target machine has two),
// which guards their memory and start-up and must give the same report byte for byte.
const root = join(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'linker-1000-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bench/linker-1000.ts: 1,000 files in 5 repositories through the linker service', () => {
  it('links every call; on one thread at most 3.5x tree-sitter alone in CPU; two workers: the same report, under 400 MB, at most 6x', async () => {
    // The bench and the linker's parse worker, side by side (the bench starts its workers from that file).
    await build({
      entryPoints: [join(root, 'bench/linker-1000.ts'), join(root, 'services/linker/src/parse-worker.ts')],
      bundle: true,
      platform: 'node',
      external: ['web-tree-sitter', 'yaml'],
      entryNames: '[name]',
      outdir: dir,
      logLevel: 'silent',
    });
    const outfile = join(dir, 'linker-1000.js');
    const run = async (workers: number) => {
      const report = join(dir, `report-${workers}.json`);
      const { stdout } = await promisify(execFile)(process.execPath, [outfile], {
        env: {
          ...process.env,
          NODE_PATH: join(root, 'node_modules'),
          BENCH_FILES: '1000',
          BENCH_WORKERS: String(workers),
          BENCH_REPORT: report,
        },
        timeout: 170_000,
      });
      process.stdout.write(stdout);
      const num = (re: RegExp): number => {
        const m = re.exec(stdout);
        expect(m, `${String(re)} in:\n${stdout}`).not.toBeNull();
        return Number(m![1]);
      };
      expect(num(/^files: (\d+) in 5 repositories/m)).toBe(1000);
      expect(num(/^report: (\d+) API links/m)).toBe(1000);
      expect(num(/API links, (\d+) unresolved/)).toBe(0);
      expect(num(/peak RSS: (\d+) MB/)).toBeLessThan(400);
      return { num, report: readFileSync(report, 'utf8') };
    };
    const one = await run(0);
    // CPU time, not wall time: on a machine busy with other suites the wall-time ratio moves with the load.
    // 2.3x on 2026-11-27; 3.2-3.5x after the 2026-11-28 extractors; 2.16-2.17x after their profiled fixes (load ~20,
    // the build before 3.16-3.45x in the same runs); 4.04x in CI after the JS module graph (a second query walk per
    // file), then 2.63-2.95x after its reuse of the rules' captures and comments (load 20-25, the build before
    // 2.92-3.15x in the same interleaved runs; linker 5.8-6.0 s CPU against 6.0-6.3 s); 2.15-3.22x (mean 2.56x) after
    // the call evaluators read arguments only where used and function bodies' calls and returns came from the walk
    // (six interleaved pairs at load 10-19: the build before 2.23-4.00x, mean 3.06x; linker CPU mean 7.84 s against
    // 8.14 s, -4%, within the noise of one pair). One build's runs spread by
    // ~1x on this VM (2.3-3.45x seen for one build): 3.5x leaves that margin and still fails a rise like the one fixed.
    // Other suites running beside this one only ever add CPU (shared caches and cores), so a run over the bound is
    // measured once more and the lower ratio judged: a real rise fails both runs.
    const ratio = (r: typeof one): number => r.num(/CPU ratio vs parse only: ([\d.]+)x/);
    const oneRatio = ratio(one) <= 3.5 ? ratio(one) : Math.min(ratio(one), ratio(await run(0)));
    expect(oneRatio).toBeLessThanOrEqual(3.5);
    const two = await run(2);
    expect(two.num(/^parse workers: (\d+)/m)).toBe(2);
    // Both workers' start-up and copies on top (1-2 s of CPU here; 3.2-3.6x measured at load average 20-29, 4.73x
    // once in a full CI run): threads on a busy machine add CPU of their own, so this bound is loose. The extraction
    // cost itself is guarded on one thread above; this one catches the workers doing the work twice.
    expect(two.num(/CPU ratio vs parse only: ([\d.]+)x/)).toBeLessThanOrEqual(6);
    expect(two.report).toBe(one.report);
  }, 360_000);
});
