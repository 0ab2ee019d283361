import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

// bench/large-bodies.ts (issue 19, item 6: large sends are parsed as a stream, their files spilled to the blob
// store as they arrive). The embedded system runs in a child process; its peak RSS (VmHWM) is the measure.
// In `npm test`: 4 concurrent sends of 100 MB, in-memory blob store (which itself holds the ~290 MB of files).
// The full case: BENCH_BODIES=14 BENCH_BODY_MB=265 BENCH_MONGO_URL=mongodb://… (GridFS), bound 1024 MB.
const root = join(__dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'large-bodies-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const BODIES = process.env.BENCH_BODIES ?? '4';
const BODY_MB = process.env.BENCH_BODY_MB ?? '100';
const BOUND_MB = Number(process.env.BENCH_RSS_BOUND_MB ?? 1024);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 170_000);

/** Workspace packages compiled in from TypeScript, third-party ones from node_modules (as scripts/build.mjs). */
const externalThirdParty: Plugin = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@a2a-inbound/') ? undefined : { path: args.path, external: true },
    );
  },
};

describe('bench/large-bodies.ts: concurrent large sends stay within a bounded RSS', () => {
  it(
    `${BODIES} concurrent sends of ${BODY_MB} MB all complete under ${BOUND_MB} MB peak RSS`,
    async () => {
      const outfile = join(dir, 'bench.cjs');
      await build({
        entryPoints: [join(root, 'bench/large-bodies.ts')],
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        plugins: [externalThirdParty],
        outfile,
        logLevel: 'silent',
      });
      const { stdout } = await promisify(execFile)(process.execPath, [outfile], {
        env: { ...process.env, NODE_PATH: join(root, 'node_modules'), BENCH_BODIES: BODIES, BENCH_BODY_MB: BODY_MB },
        timeout: TIMEOUT_MS,
        maxBuffer: 1024 * 1024,
      });
      process.stdout.write(stdout);
      expect(stdout).toContain(`outcomes: {"completed":${BODIES}}`);
      const peak = Number(/^peak RSS: (\d+) MB/m.exec(stdout)?.[1]);
      expect(peak).toBeGreaterThan(0);
      expect(peak).toBeLessThan(BOUND_MB);
    },
    TIMEOUT_MS + 10_000,
  );
});
