#!/usr/bin/env node
// Generates TypeScript from proto/ with buf + the local ts-proto plugin (no network).
// `--check` fails when the committed code differs from what generation produces.
// Both first run `buf lint` and `buf breaking` (ADR 0017): the proto must stay wire-compatible with the
// committed proto (git HEAD), or with BUF_BREAKING_AGAINST when set (any buf input, e.g.
// `.git#branch=main,subdir=proto` to check a branch against main before merging). `--allow-breaking`
// turns a breaking change into a warning: for a deliberate break, recorded in an ADR.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const protoDir = join(root, 'proto');
const buf = join(root, 'node_modules', '.bin', 'buf');
const check = process.argv.includes('--check');
const allowBreaking = process.argv.includes('--allow-breaking');

/** The buf input to compare against: BUF_BREAKING_AGAINST, else the proto of git HEAD (none outside git). */
function breakingBaseline() {
  const given = process.env.BUF_BREAKING_AGAINST;
  if (given) return given.startsWith('.git#') ? join(root, given) : given;
  try {
    execFileSync('git', ['rev-parse', '--verify', '--quiet', 'HEAD:proto'], { cwd: root, stdio: 'ignore' });
  } catch {
    return undefined;
  }
  // `.git` may be a file (a worktree): buf resolves it either way.
  return `${join(root, '.git')}#ref=HEAD,subdir=proto`;
}

function checkBreaking() {
  const against = breakingBaseline();
  if (!against) {
    process.stdout.write('buf breaking: skipped (no git HEAD with a proto/ folder and no BUF_BREAKING_AGAINST)\n');
    return;
  }
  try {
    execFileSync(buf, ['breaking', '--against', against], { cwd: protoDir, stdio: ['ignore', 'pipe', 'pipe'] });
    process.stdout.write(`buf breaking: no breaking change against ${against}\n`);
  } catch (err) {
    const out = `${err.stdout ?? ''}${err.stderr ?? ''}`.trim();
    const msg = `buf breaking: the proto breaks the wire contract of ${against}:\n${out}\n`;
    if (!allowBreaking) {
      process.stderr.write(
        `${msg}Keep the contract (add, never remove or renumber), or pass --allow-breaking and record why in an ADR.\n`,
      );
      process.exit(1);
    }
    process.stderr.write(`${msg}(allowed by --allow-breaking)\n`);
  }
}

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
checkBreaking();
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
