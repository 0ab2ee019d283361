// docs/runbook.md and docs/grpc.md name alerts, metrics, topics and gRPC services: each must exist in the code
// and deploy/, and each alert and topic of the system must be in the runbook, so neither drifts silently.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { TOPICS_OF_THE_SYSTEM } from '@a2a-inbound/engines';

const root = new URL('../..', import.meta.url).pathname;
const read = (p: string): string => readFileSync(join(root, p), 'utf8');
const runbook = read('docs/runbook.md');
const grpcDoc = read('docs/grpc.md');

function files(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'node_modules' || f === 'dist' || f === 'test' ? [] : files(p, ext);
    return p.endsWith(ext) ? [p] : [];
  });
}

describe('docs/runbook.md matches the code and deploy/', () => {
  it('lists every alert rule of deploy/monitoring/alerts.yaml, and names no alert that does not exist', () => {
    const doc = parse(read('deploy/monitoring/alerts.yaml')) as { groups: { rules: { alert: string }[] }[] };
    const alerts = doc.groups.flatMap((g) => g.rules.map((r) => r.alert)).sort();
    expect(alerts.length).toBeGreaterThan(0);
    const named = [...new Set([...runbook.matchAll(/`(A2A[A-Za-z]+)`/g)].map((m) => m[1]!))].sort();
    expect(named).toEqual(alerts);
  });

  it('names only a2a_* metrics an instrument of the code creates (What to watch)', () => {
    const created = new Set<string>();
    for (const f of [...files(join(root, 'packages'), '.ts'), ...files(join(root, 'services'), '.ts')])
      for (const m of readFileSync(f, 'utf8').matchAll(/\.create[A-Za-z]+\(\s*'(a2a_[a-z0-9_]+)'/g)) created.add(m[1]!);
    const watch = runbook.slice(runbook.indexOf('## What to watch'), runbook.indexOf('## Draining'));
    const named = [...new Set([...watch.matchAll(/`(a2a_[a-z0-9_]+)(?:\{[^`]*\})?`/g)].map((m) => m[1]!))];
    expect(named.length).toBeGreaterThan(0);
    // A counter is scraped with `_total`; the runbook may use either name.
    for (const n of named) expect(created.has(n) || created.has(n.replace(/_total$/, '')), n).toBe(true);
  });

  it('tells how to provide and rotate every secret setting the manifests reference, with CLI commands that exist', () => {
    const refs = new Set<string>();
    for (const f of files(join(root, 'deploy/k8s/base'), '.yaml'))
      for (const m of readFileSync(f, 'utf8').matchAll(/secretKeyRef: \{ name: [a-z0-9-]+, key: ([A-Z0-9_]+)/g))
        refs.add(m[1]!);
    expect([...refs]).toEqual(expect.arrayContaining(['SECRETS_KEY', 'LINKER_SERVICE_TOKEN', 'MONGO_URL']));
    for (const k of refs) expect(runbook, k).toContain(`\`${k}\``);
    const rotating = runbook.slice(
      runbook.indexOf('## Rotating credentials'),
      runbook.indexOf('## Backup and restore'),
    );
    for (const k of ['SECRETS_KEY', 'SECRETS_KEY_PREVIOUS', 'LINKER_SERVICE_TOKEN']) expect(rotating, k).toContain(k);
    const usage = read('services/tasks/src/cli-run.ts');
    const commands = [...runbook.matchAll(/services\/tasks\/dist\/cli\.js ([a-z-]+)/g)].map((m) => m[1]!);
    expect(commands).toEqual(expect.arrayContaining(['create-admin', 'reseal-secrets']));
    for (const c of commands) expect(usage, c).toMatch(new RegExp(`command [!=]== '${c}'`));
  });

  it('lists exactly the Kafka topics of the system', () => {
    const line = runbook.split('\n').find((l) => l.startsWith('- Kafka topics:'));
    const section = runbook.slice(runbook.indexOf(line!), runbook.indexOf('\n- Redis keys:'));
    const named = [...section.matchAll(/`(a2a\.[a-z.]+)`/g)].map((m) => m[1]!);
    expect(named.sort()).toEqual([...TOPICS_OF_THE_SYSTEM].sort());
  });
});

describe('docs/grpc.md matches the contracts', () => {
  it('documents every gRPC service that proto/ declares, by its full name', () => {
    const declared: string[] = [];
    for (const f of files(join(root, 'proto'), '.proto')) {
      const text = readFileSync(f, 'utf8');
      const pkg = /^package ([a-z0-9_.]+);/m.exec(text)?.[1];
      for (const m of text.matchAll(/^service (\w+) \{/gm)) declared.push(`${pkg}.${m[1]}`);
    }
    expect(declared.sort()).toEqual([
      'a2a_inbound.control.v1.ControlPlaneService',
      'a2a_inbound.linker.v1.LinkerService',
      'a2a_inbound.tasks.v1.TasksService',
      'a2a_inbound.webhooks.v1.WebhooksService',
      'grpc.health.v1.Health',
      'lf.a2a.v1.A2AService',
    ]);
    for (const s of declared) expect(grpcDoc, s).toContain(`\`${s}\``);
  });
});
