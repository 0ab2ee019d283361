#!/usr/bin/env node
// Our npm registry mirror serves only this platform's builds of packages that ship per-platform optional
// dependencies (esbuild, rollup, buf…), so `npm install` leaves the other platforms' entries out of
// package-lock.json and `npm ci` then refuses the lockfile ("Missing: @rollup/rollup-darwin-x64 from lock
// file"). This adds the missing optional entries (name and version, as the parent package pins them), which
// npm ci accepts and skips on platforms they are not for. Run it after changing dependencies;
// `--check` fails when an entry is missing (CI).
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const pkgs = lock.packages;
const missing = [];
for (const [where, meta] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${where ? `${where}/` : ''}node_modules/${dep}`;
    const top = `node_modules/${dep}`;
    if (pkgs[nested]) continue;
    if (pkgs[top] && (pkgs[top].version === version || !/^\d/.test(version))) continue;
    const at = pkgs[top] ? nested : top;
    if (!missing.some((m) => m.at === at))
      missing.push({ at, entry: { version, optional: true, ...(meta.dev ? { dev: true } : {}) } });
  }
}
if (process.argv.includes('--check')) {
  if (missing.length) {
    process.stderr.write(
      `package-lock.json lacks ${missing.length} optional platform entries; run node scripts/complete-lockfile.mjs\n`,
    );
    process.exit(1);
  }
  process.stdout.write('package-lock.json lists every optional platform package\n');
} else {
  for (const m of missing) pkgs[m.at] = m.entry;
  lock.packages = Object.fromEntries(
    Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
  );
  writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
  process.stdout.write(`added ${missing.length} optional platform entries to package-lock.json\n`);
}
