import { describe, expect, it } from 'vitest';
import { inMemoryEngines } from '@a2a-inbound/embedded';

/**
 * The in-memory embedded mode's retained bound (ADR 0075) drops the oldest finished work. A push config (and its
 * task's list of them, and the context's list of tasks) is written with its retention when it is set, while its
 * task may still run: the bound must not take it, or a task still working when that many newer push configs
 * were set never notifies its webhook.
 */
describe('in-memory embedded mode: what the retained bound leaves alone', () => {
  const RETAINED = 100;
  const later = Date.now() + 3_600_000;

  it('keeps the push configs, their lists and the context lists of running tasks past the bound', async () => {
    const { store } = inMemoryEngines(undefined, undefined, RETAINED);
    for (const name of ['push_configs', 'push_config_lists', 'contexts']) {
      const c = await store.collection<{ n: number }>({ name });
      for (let i = 0; i <= RETAINED; i++) await c.insert(`task${i}`, { n: i }, { expiresAt: later });
      expect((await c.get('task0'))?.doc.n, name).toBe(0);
    }
  });

  it('still drops the oldest finished work past it', async () => {
    const { store } = inMemoryEngines(undefined, undefined, RETAINED);
    const messageIds = await store.collection<{ n: number }>({ name: 'message_ids' });
    for (let i = 0; i <= RETAINED; i++) await messageIds.insert(`m${i}`, { n: i }, { expiresAt: later });
    expect(await messageIds.get('m0')).toBeUndefined();
    expect((await messageIds.get('m1'))?.doc.n).toBe(1);
  });
});
