import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEnginesConfig } from '@a2a-inbound/engines';
import { loadMetricsConfig, loadTelemetryConfig } from '@a2a-inbound/telemetry';
import { loadGatewayConfig } from '@a2a-inbound/gateway';
import { loadLinkerConfig } from '@a2a-inbound/linker';
import { loadRunnerConfig } from '@a2a-inbound/runner';
import { loadTasksConfig } from '@a2a-inbound/tasks';
import { loadWebhooksConfig } from '@a2a-inbound/webhooks';

const root = join(__dirname, '..', '..');
type Env = Record<string, string | undefined>;

/** The variables a loader reads: it is called with environments that record every name looked up. */
function namesRead(load: (env: Env) => unknown): Set<string> {
  const names = new Set<string>();
  // Production with memory adapters makes the conditional reads happen too (ALLOW_MEMORY_*).
  for (const base of [{}, { NODE_ENV: 'production', ENGINES: 'memory', STORE: 'memory' }] as Env[]) {
    const env = new Proxy(base, {
      get: (target, name) => {
        if (typeof name === 'string') names.add(name);
        return target[name as string];
      },
    });
    try {
      load(env);
    } catch {
      // a refused combination still read what it read
    }
  }
  return names;
}

/** Names in the first column of the README's "## Environment" table. */
function documented(service: string): Set<string> {
  const text = readFileSync(join(root, 'services', service, 'README.md'), 'utf8');
  const section = /^## Environment\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const names = new Set<string>();
  for (const row of section.split('\n').filter((l) => l.startsWith('| `'))) {
    const first = row.split('|')[1] ?? '';
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)) names.add(m[1]!);
  }
  return names;
}

/** process.env reads of the service's main.ts (LOG_LEVEL). */
function mainReads(service: string): string[] {
  const text = readFileSync(join(root, 'services', service, 'src', 'main.ts'), 'utf8');
  return [...text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!);
}

const engines = (env: Env): unknown => loadEnginesConfig(env, { engines: 'real', clientId: 'x' });
// Every main starts telemetry first (src/instrument.ts) with the whole environment, then its metrics endpoint.
const telemetry = (env: Env): unknown => [loadTelemetryConfig(env, { serviceName: 'x' }), loadMetricsConfig(env)];

const services: Record<string, ((env: Env) => unknown)[]> = {
  gateway: [loadGatewayConfig, engines, telemetry],
  tasks: [loadTasksConfig, engines, telemetry],
  runner: [(env) => loadRunnerConfig(env, 'x'), engines, telemetry],
  webhooks: [loadWebhooksConfig, engines, telemetry],
  linker: [loadLinkerConfig, telemetry],
};

describe("each service README's env table is exactly what the service reads", () => {
  for (const [service, loaders] of Object.entries(services)) {
    it(service, () => {
      const read = new Set([...loaders.flatMap((l) => [...namesRead(l)]), ...mainReads(service)]);
      expect(read.size).toBeGreaterThan(2);
      expect([...documented(service)].sort()).toEqual([...read].sort());
    });
  }
});
