#!/usr/bin/env node
// Generates TypeScript from proto/ with buf + the local ts-proto plugin (no network).
// `--check` fails when the committed code differs from what generation produces.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const protoDir = join(root, 'proto');
const buf = join(root, 'node_modules', '.bin', 'buf');
const check = process.argv.includes('--check');

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

execFileSync(buf, ['lint'], { cwd: protoDir, stdio: 'inherit' });
const tmp = mkdtempSync(join(tmpdir(), 'a2a-gen-'));
try {
  execFileSync(buf, ['generate', '--output', tmp], { cwd: protoDir, stdio: 'inherit' });
  const fresh = join(tmp, 'gen');
  const committed = join(protoDir, 'gen');
  if (check) {
    const a = files(fresh)
      .map((f) => relative(fresh, f))
      .sort();
    let b = [];
    try {
      b = files(committed)
        .map((f) => relative(committed, f))
        .sort();
    } catch {
      b = [];
    }
    const problems = [];
    for (const f of new Set([...a, ...b])) {
      if (!a.includes(f)) problems.push(`stale: proto/gen/${f}`);
      else if (!b.includes(f)) problems.push(`missing: proto/gen/${f}`);
      else if (!readFileSync(join(fresh, f)).equals(readFileSync(join(committed, f))))
        problems.push(`differs: proto/gen/${f}`);
    }
    if (problems.length) {
      process.stderr.write(`Generated code is out of date; run \`npm run gen\` and commit:\n${problems.join('\n')}\n`);
      process.exit(1);
    }
    process.stdout.write(`proto/gen is up to date (${a.length} files)\n`);
  } else {
    rmSync(committed, { recursive: true, force: true });
    cpSync(fresh, committed, { recursive: true });
    process.stdout.write(`generated ${files(committed).length} files into proto/gen\n`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
