#!/usr/bin/env node
// The released wire contract (ADR 0023): buf images of the proto as released, committed in proto/released/
// as contract-v<N>.binpb. `buf breaking` compares the proto with the latest one, so a change that breaks
// internal callers of a released contract fails `npm run gen` / `gen:check` (and so CI) in any clone.
//
//   node scripts/proto-contract.mjs breaking [--against <buf input>] [--allow-breaking] [--proto <dir>]
//   node scripts/proto-contract.mjs release [--allow-breaking] [--proto <dir>]   (cuts contract-v<N+1>.binpb)
//
// `--proto` (default: proto/) is the buf module; its released/ folder holds the images.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const buf = join(root, 'node_modules', '.bin', 'buf');
const IMAGE = /^contract-v(\d+)\.binpb$/;

/** The released images of a proto module, oldest first: `{ version, path }`. */
export function releasedContracts(protoDir = join(root, 'proto')) {
  const dir = join(protoDir, 'released');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((name) => IMAGE.exec(name))
    .filter(Boolean)
    .map((m) => ({ version: Number(m[1]), path: join(dir, m[0]) }))
    .sort((a, b) => a.version - b.version);
}

/**
 * Runs `buf breaking` of the module in `protoDir` against `against` (any buf input), or else against the
 * latest released image. Returns `{ ok, against, output }`; `against` is undefined when there is nothing to
 * compare with (no release yet).
 */
export function breaking({ protoDir = join(root, 'proto'), against } = {}) {
  const baseline = against ?? releasedContracts(protoDir).at(-1)?.path;
  if (!baseline) return { ok: true, against: undefined, output: '' };
  try {
    execFileSync(buf, ['breaking', '--against', baseline], { cwd: protoDir, stdio: ['ignore', 'pipe', 'pipe'] });
    return { ok: true, against: baseline, output: '' };
  } catch (err) {
    if (err.status === undefined || err.status === null) throw err;
    return { ok: false, against: baseline, output: `${err.stdout ?? ''}${err.stderr ?? ''}`.trim() };
  }
}

const shown = (p) => (p.startsWith('/') ? relative(process.cwd(), p) || p : p);

/**
 * The check `gen.mjs` runs: prints the result; on a break exits 1 unless `allowBreaking` (then a warning).
 */
export function checkBreaking({ protoDir, against, allowBreaking = false } = {}) {
  const r = breaking({ protoDir, against });
  if (!r.against) {
    process.stdout.write(
      'buf breaking: skipped (no released contract in proto/released and no BUF_BREAKING_AGAINST)\n',
    );
    return true;
  }
  if (r.ok) {
    process.stdout.write(`buf breaking: no breaking change against ${shown(r.against)}\n`);
    return true;
  }
  const msg = `buf breaking: the proto breaks the wire contract of ${shown(r.against)}:\n${r.output}\n`;
  if (!allowBreaking) {
    process.stderr.write(
      `${msg}Keep the contract (add, never remove or renumber), or pass --allow-breaking and record why in an ADR.\n`,
    );
    process.exit(1);
  }
  process.stderr.write(`${msg}(allowed by --allow-breaking)\n`);
  return false;
}

/**
 * Cuts the next release: `buf build` of the module (no source info: the wire contract only) into
 * released/contract-v<N+1>.binpb. Refuses when the proto breaks the latest release (unless allowBreaking:
 * a deliberate break, recorded in an ADR) and when nothing changed since it (an identical image).
 */
export function release({ protoDir = join(root, 'proto'), allowBreaking = false } = {}) {
  const previous = releasedContracts(protoDir).at(-1);
  if (previous) {
    const r = breaking({ protoDir, against: previous.path });
    if (!r.ok && !allowBreaking)
      throw new Error(`the proto breaks contract-v${previous.version}:\n${r.output}\n(--allow-breaking with an ADR)`);
  }
  const version = (previous?.version ?? 0) + 1;
  mkdirSync(join(protoDir, 'released'), { recursive: true });
  const out = join(protoDir, 'released', `contract-v${version}.binpb`);
  execFileSync(buf, ['build', '--exclude-source-info', '-o', out], { cwd: protoDir, stdio: 'inherit' });
  if (previous && readFileSync(previous.path).equals(readFileSync(out))) {
    rmSync(out);
    throw new Error(`nothing to release: the proto is contract-v${previous.version}`);
  }
  return { version, path: out };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const value = (flag) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const protoDir = resolve(value('--proto') ?? join(root, 'proto'));
  const allowBreaking = args.includes('--allow-breaking');
  const command = args[0];
  if (command === 'breaking') {
    checkBreaking({ protoDir, against: value('--against'), allowBreaking });
  } else if (command === 'release') {
    try {
      const cut = release({ protoDir, allowBreaking });
      process.stdout.write(`released contract-v${cut.version}: ${shown(cut.path)} (commit it)\n`);
    } catch (err) {
      process.stderr.write(`release refused: ${err.message}\n`);
      process.exit(1);
    }
  } else {
    process.stderr.write(
      'usage: proto-contract.mjs breaking|release [--proto dir] [--against input] [--allow-breaking]\n',
    );
    process.exit(2);
  }
}
