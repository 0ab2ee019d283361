import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES } from '../unit/helpers';

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

// The CLI as developers run it: bundled to CommonJS like scripts/build.mjs does, third-party packages external.
describe('bundled CLI', () => {
  const out = mkdtempSync(join(tmpdir(), 'linker-cli-bundle-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('prints the exact report of a fixture application from a CommonJS bundle', async () => {
    await build({
      entryPoints: [join(repoRoot, 'services/linker/src/cli.ts')],
      outfile: join(out, 'cli.js'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      logLevel: 'silent',
      plugins: [
        {
          name: 'external-third-party',
          setup(b) {
            b.onResolve({ filter: /^[^./]/ }, (args) =>
              args.path.startsWith('@a2a-inbound/') ? undefined : { path: args.path, external: true },
            );
          },
        },
      ],
    });
    const dirs = ['accounts-go', 'reports-java', 'users-service', 'web'].map((r) => join(FIXTURES, 'routing-rules', r));
    const stdout = execFileSync(process.execPath, [join(out, 'cli.js'), ...dirs, '--name', 'routing-rules'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: join(repoRoot, 'node_modules') },
    });
    expect(stdout).toBe(readFileSync(join(FIXTURES, 'routing-rules', 'expected-report.md'), 'utf8'));
  });
});
