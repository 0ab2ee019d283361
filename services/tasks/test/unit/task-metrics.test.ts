// a2a_tasks{state}: stored tasks by state, counted in the shared store when Prometheus scrapes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@a2a-inbound/logger';
import { InMemoryDocumentStore, ManualClock, type Collection } from '@a2a-inbound/ports';
import { startMetrics, type MetricsServer } from '@a2a-inbound/telemetry';
import { openTaskCollections } from '../../src/domain/task-service';
import { registerTaskStateGauge, TASK_STATES } from '../../src/task-metrics';

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.split(' ').at(-1));
  }
  return undefined;
}

describe('a2a_tasks{state}', () => {
  let metrics: MetricsServer;
  let tasks: Collection<object>;
  const clock = new ManualClock(Date.UTC(2026, 10, 25));
  const lines: string[] = [];
  const log = createLogger({
    service: 'tasks-test',
    level: 'info',
    destination: { write: (l: string) => lines.push(l) },
  });

  beforeAll(async () => {
    metrics = await startMetrics({ enabled: true, host: '127.0.0.1', port: 0 }, 'tasks-test');
    tasks = (await openTaskCollections(new InMemoryDocumentStore())).tasks;
  });
  afterAll(async () => {
    await metrics.close();
  });

  const scrape = async (): Promise<string> => (await fetch(`http://127.0.0.1:${metrics.port}/metrics`)).text();
  let n = 0;
  const add = async (state: string, count: number): Promise<void> => {
    for (let i = 0; i < count; i++) await tasks.insert(`t${++n}`, { state, status: { state } });
  };

  it('reports every state, zeros included, from the store; counts are reused for minIntervalMs', async () => {
    await add('working', 3);
    await add('completed', 5);
    await add('input-required', 1);
    const gauge = registerTaskStateGauge(tasks, { clock, log, minIntervalMs: 10_000 });
    try {
      let text = await scrape();
      expect(Object.fromEntries(TASK_STATES.map((s) => [s, sample(text, 'a2a_tasks', { state: s })]))).toEqual({
        working: 3,
        'input-required': 1,
        completed: 5,
        failed: 0,
        canceled: 0,
      });
      // Within the interval another scrape costs no count.
      await add('failed', 2);
      text = await scrape();
      expect(sample(text, 'a2a_tasks', { state: 'failed' })).toBe(0);
      clock.advance(10_000);
      text = await scrape();
      expect(sample(text, 'a2a_tasks', { state: 'failed' })).toBe(2);
      expect(sample(text, 'a2a_tasks', { state: 'working' })).toBe(3);
      expect(sample(text, 'a2a_tasks_count_age_seconds')).toBe(0);
    } finally {
      gauge.close();
    }
    // Closed: no more counts.
    await add('failed', 1);
    clock.advance(10_000);
    expect(sample(await scrape(), 'a2a_tasks', { state: 'failed' })).toBe(2);
  });

  it('a failing or slow count keeps the last counts, their age grows, and it warns once per outage', async () => {
    let mode: 'ok' | 'fail' | 'hang' = 'ok';
    const flaky = {
      count: (filter: Record<string, unknown>) =>
        mode === 'fail'
          ? Promise.reject(new Error('store down'))
          : mode === 'hang'
            ? new Promise<number>(() => undefined)
            : tasks.count(filter as never),
    };
    const gauge = registerTaskStateGauge(flaky, { clock, log, minIntervalMs: 0, timeoutMs: 100 });
    try {
      expect(sample(await scrape(), 'a2a_tasks', { state: 'failed' })).toBe(3);
      mode = 'fail';
      lines.length = 0;
      await add('failed', 1);
      clock.advance(30_000);
      let text = await scrape();
      expect(sample(text, 'a2a_tasks', { state: 'failed' })).toBe(3);
      expect(sample(text, 'a2a_tasks_count_age_seconds')).toBe(30);
      mode = 'hang';
      clock.advance(30_000);
      text = await scrape();
      expect(sample(text, 'a2a_tasks', { state: 'failed' })).toBe(3);
      expect(sample(text, 'a2a_tasks_count_age_seconds')).toBe(60);
      expect(lines.filter((l) => l.includes('task state counts failed'))).toHaveLength(1);
      expect(lines.join('')).toContain('store down');
      mode = 'ok';
      text = await scrape();
      expect(sample(text, 'a2a_tasks', { state: 'failed' })).toBe(4);
      expect(sample(text, 'a2a_tasks_count_age_seconds')).toBe(0);
      expect(lines.some((l) => l.includes('task state counts work again'))).toBe(true);
    } finally {
      gauge.close();
    }
  });
});
