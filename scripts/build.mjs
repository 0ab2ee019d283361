#!/usr/bin/env node
// Bundles each service's entry points (and the embedded mode) with esbuild: workspace packages
// (@a2a-inbound/*) are compiled in from TypeScript, third-party packages stay external (node_modules).
import { build } from 'esbuild';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const entries = [];
for (const s of ['gateway', 'tasks', 'runner', 'webhooks', 'linker']) {
  for (const e of ['main', 'cli']) {
    const src = join(root, 'services', s, 'src', `${e}.ts`);
    if (existsSync(src)) entries.push({ src, out: join(root, 'services', s, 'dist', `${e}.js`) });
  }
}
for (const e of ['main', 'admin'])
  entries.push({ src: join(root, 'embedded', 'src', `${e}.ts`), out: join(root, 'embedded', 'dist', `${e}.js`) });
// The linker's parse workers (worker threads), beside each bundle that holds the linker.
for (const dist of [join(root, 'services', 'linker', 'dist'), join(root, 'embedded', 'dist')])
  entries.push({ src: join(root, 'services', 'linker', 'src', 'parse-worker.ts'), out: join(dist, 'parse-worker.js') });

const externalThirdParty = {
  name: 'external-third-party',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@a2a-inbound/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

const started = Date.now();
await Promise.all(
  entries.map((e) =>
    build({
      entryPoints: [e.src],
      outfile: e.out,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      sourcemap: true,
      logLevel: 'warning',
      plugins: [externalThirdParty],
    }),
  ),
);

// The web console (Vite): static files the gateway serves at /console (ADR 0024). A copy goes beside each bundle
// that starts a gateway (its default CONSOLE_DIR is the `console` folder next to it), so an image holds it too.
const { build: viteBuild } = await import('vite');
const consoleRoot = join(root, 'console');
await viteBuild({ root: consoleRoot, configFile: join(consoleRoot, 'vite.config.ts'), logLevel: 'warn' });
for (const dist of [join(root, 'services', 'gateway', 'dist'), join(root, 'embedded', 'dist')]) {
  rmSync(join(dist, 'console'), { recursive: true, force: true });
  cpSync(join(consoleRoot, 'dist'), join(dist, 'console'), { recursive: true });
}
process.stdout.write(`built ${entries.length} entry points and the console in ${Date.now() - started} ms\n`);
