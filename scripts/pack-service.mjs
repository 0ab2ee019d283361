#!/usr/bin/env node
// Packs one service for its image: its esbuild bundle plus exactly the production packages it loads, laid
// out as in the repository (so Node resolves every package the same way), into an empty directory:
//
//   node scripts/pack-service.mjs <gateway|tasks|runner|webhooks|linker> <out dir>
//
// then `cd <out dir> && node services/<name>/dist/main.js`. The packages are the bundle's external
// `require`s (third-party code stays out of the bundle, scripts/build.mjs) plus the service's own
// package.json dependencies (assets loaded by path, such as the linker's tree-sitter grammars), with their
// dependencies, optional dependencies and present peers, transitively. Run `npm run build` first.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

const root = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
export const SERVICES = ['gateway', 'tasks', 'runner', 'webhooks', 'linker'];

const readJson = (p) => JSON.parse(readFileSync(p, 'utf8'));
const packageName = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const builtins = new Set(builtinModules);

/** The bare package names a bundle requires (esbuild keeps `require("name")` for externals). */
export function bundleRequires(distDir) {
  const names = new Set();
  for (const f of readdirSync(distDir)) {
    if (!f.endsWith('.js')) continue;
    for (const m of readFileSync(join(distDir, f), 'utf8').matchAll(/require\("([^"]+)"\)/g)) {
      const spec = m[1];
      if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:') || builtins.has(spec)) continue;
      if (spec.startsWith('@a2a-inbound/')) throw new Error(`${distDir}: workspace package ${spec} is not bundled`);
      names.add(packageName(spec));
    }
  }
  return names;
}

/** Node's lookup: `<dir>/node_modules/<name>`, then each parent's, up to the repository root. */
function resolvePackage(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || dir === dirname(dir)) return undefined;
  }
}

/** Every package directory (relative to the root) the service loads, with its version. */
export function productionClosure(service) {
  const serviceDir = join(root, 'services', service);
  const wanted = new Set(bundleRequires(join(serviceDir, 'dist')));
  for (const name of Object.keys(readJson(join(serviceDir, 'package.json')).dependencies ?? {})) wanted.add(name);
  const found = new Map();
  const visit = (name, fromDir, required) => {
    const dir = resolvePackage(name, fromDir);
    if (!dir) {
      if (required)
        throw new Error(`${service}: ${name} (needed from ${relative(root, fromDir) || '.'}) is not installed`);
      return;
    }
    const rel = relative(root, dir);
    if (found.has(rel)) return;
    const pkg = readJson(join(dir, 'package.json'));
    if (rel.split(sep).includes('@a2a-inbound'))
      throw new Error(`${service}: workspace package ${name} is not bundled`);
    found.set(rel, pkg.version);
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, true);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.peerDependencies ?? {})) visit(dep, dir, false);
  };
  for (const name of [...wanted].sort()) visit(name, serviceDir, true);
  return found;
}

/** Copies the service's bundle and its closure into outDir; returns the packages copied. */
export function packService(service, outDir) {
  if (!SERVICES.includes(service)) throw new Error(`unknown service ${service} (one of ${SERVICES.join(', ')})`);
  const serviceDir = join(root, 'services', service);
  if (!existsSync(join(serviceDir, 'dist', 'main.js')))
    throw new Error(`services/${service}/dist is missing: npm run build`);
  const closure = productionClosure(service);
  mkdirSync(outDir, { recursive: true });
  cpSync(join(serviceDir, 'dist'), join(outDir, 'services', service, 'dist'), { recursive: true });
  cpSync(join(serviceDir, 'package.json'), join(outDir, 'services', service, 'package.json'));
  for (const rel of closure.keys()) {
    // A package's own node_modules holds other packages: each is copied when the closure reaches it.
    cpSync(join(root, rel), join(outDir, rel), {
      recursive: true,
      filter: (src) => !relative(join(root, rel), src).split(sep).includes('node_modules'),
    });
  }
  const packages = Object.fromEntries([...closure].sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(
    join(outDir, 'package.json'),
    `${JSON.stringify({ name: `a2a-inbound-${service}`, private: true, main: `services/${service}/dist/main.js`, packages }, null, 2)}\n`,
  );
  return closure;
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const [service, out] = process.argv.slice(2);
  if (!service || !out) {
    process.stderr.write('usage: node scripts/pack-service.mjs <service> <out dir>\n');
    process.exit(2);
  }
  const closure = packService(service, out);
  process.stdout.write(`packed ${service}: ${closure.size} packages into ${out}\n`);
}
