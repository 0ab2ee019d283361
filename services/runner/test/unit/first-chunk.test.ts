import { describe, expect, it } from 'vitest';
import { DEMO_RUNTIMES } from '../../src/domain/demo-agents';
import type { AgentRuntime } from '../../src/domain/agent-runtime';
import { createGraphRuntime } from '../../src/runtimes/graph-runtime';
import type { GuardedFetch } from '../../src/runtimes/guarded-fetch';
import { fakeRun, type Recorded } from '../support/fake-run';

/** Each artifact's `append` flags, in the order the runtime sent its chunks. */
function appendFlags(run: Recorded): boolean[][] {
  const by = new Map<string, boolean[]>();
  for (const a of run.artifacts) by.set(a.artifactId, [...(by.get(a.artifactId) ?? []), a.append]);
  return [...by.values()];
}

/**
 * A2A 0.3 §7.2.3: `append` continues an artifact sent before; the official Python and Java clients drop an
 * `append: true` chunk of an artifact they have not seen. The runtimes that emit artifacts themselves start
 * each one without it (the http, model and a2a-upstream runtimes are covered end to end, with the tasks
 * service's normalisation, in test/agents/first-chunk.e2e.test.ts).
 */
describe('runtimes start every artifact without append', () => {
  const fetch: GuardedFetch = (url, init) => globalThis.fetch(url, init);
  const cases: [string, AgentRuntime, Record<string, unknown>][] = [
    ['demo:echo', DEMO_RUNTIMES['demo:echo']!, {}],
    ['demo:slow (early output)', DEMO_RUNTIMES['demo:slow']!, { workMs: 0, earlyOutput: true }],
    ['demo:task-graph', DEMO_RUNTIMES['demo:task-graph']!, {}],
    [
      'graph',
      createGraphRuntime({ fetch, expressionTimeoutMs: 300 }),
      { steps: [{ id: 'say', kind: 'transform', expression: '"graph done"' }] },
    ],
  ];
  it.each(cases)('%s', async (_name, runtime, config) => {
    const run = fakeRun({ text: 'a text long enough to be sent in several chunks', config });
    await runtime(run.ctx);
    const flags = appendFlags(run);
    expect(flags.length).toBeGreaterThan(0);
    for (const f of flags) expect(f).toEqual(f.map((_, i) => i > 0));
  });
});
