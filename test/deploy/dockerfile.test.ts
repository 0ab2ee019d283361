// The Dockerfile and the Kubernetes manifests describe the same five images: a target per service that copies
// that service's pack and starts its bundle, as the non-root user the manifests run as, on the port the
// manifests probe; no build tool in a final stage.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const SERVICES = ['gateway', 'tasks', 'runner', 'webhooks', 'linker'];

/** The Dockerfile's stages: name → its instructions (continuation lines joined). */
function stages(): Map<string, { from: string; lines: string[] }> {
  const out = new Map<string, { from: string; lines: string[] }>();
  let current: { from: string; lines: string[] } | undefined;
  for (const line of dockerfile.replace(/\\\n\s*/g, ' ').split('\n')) {
    const m = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (m) {
      current = { from: m[1]!, lines: [] };
      out.set(m[2] ?? m[1]!, current);
    } else if (current && line.trim() && !line.trim().startsWith('#')) current.lines.push(line.trim());
  }
  return out;
}

describe('Dockerfile', () => {
  const all = stages();

  it('has a final stage per service that copies its pack and runs its bundle as the node user', () => {
    for (const s of SERVICES) {
      const stage = all.get(s);
      expect(stage, `target ${s}`).toBeDefined();
      expect(stage!.from).toBe('runtime');
      expect(stage!.lines).toContain(`COPY --from=build --chown=root:root /out/${s} /app`);
      expect(stage!.lines).toContain(`CMD ["services/${s}/dist/main.js"]`);
      const users = stage!.lines.filter((l) => l.startsWith('USER '));
      if (users.length > 0) expect(users.at(-1)).toBe('USER node');
      expect(stage!.lines.join('\n')).not.toMatch(/npm |npx |build-essential|gcc|make /);
    }
    // The gateway's own default is loopback (issue 22): its image opens every interface.
    expect(all.get('gateway')!.lines).toContain('ENV HOST=0.0.0.0');
    const runtime = all.get('runtime')!;
    expect(runtime.lines).toContain('USER node');
    expect(runtime.lines.some((l) => l.startsWith('ENTRYPOINT ["/usr/bin/tini", "--", "node"'))).toBe(true);
    expect(runtime.lines.join('\n')).toMatch(/rm -rf .*\/usr\/local\/lib\/node_modules\/npm/);
  });

  it('packs every service in the build stage, on a current Node LTS slim base', () => {
    const build = all.get('build')!.lines.join('\n');
    expect(build).toContain(`for s in ${SERVICES.join(' ')}; do node scripts/pack-service.mjs "$s" "/out/$s"; done`);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:(22|24)-\w+-slim$/m);
  });

  it('exposes the port each Deployment probes, and runs as the uid the manifests require', () => {
    const base = join(root, 'deploy/k8s/base');
    for (const s of SERVICES) {
      const manifest = readFileSync(join(base, `${s}.yaml`), 'utf8');
      const port = /containerPort: (\d+)/.exec(manifest)?.[1];
      expect(all.get(s)!.lines, s).toContain(`EXPOSE ${port}`);
      expect(manifest).toContain(`image: a2a-inbound/${s}`);
      expect(manifest).toContain('runAsUser: 1000'); // the node user of the official Node images
    }
    expect(readdirSync(base)).toEqual(expect.arrayContaining(SERVICES.map((s) => `${s}.yaml`)));
  });
});
