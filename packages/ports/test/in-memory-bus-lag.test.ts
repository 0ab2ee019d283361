import { describe, expect, it } from 'vitest';
import { InMemoryBus } from '../src';

describe('InMemoryBus.consumerLag (a2a_bus_consumer_lag in the embedded mode)', () => {
  it('counts per group and topic what was published and is not handled yet, and 0 once handled', async () => {
    const bus = new InMemoryBus();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await bus.subscribe('a2a.task.events', 'slow', () => gate);
    await bus.subscribe('a2a.task.events', 'fast', async () => undefined);
    await bus.subscribe('a2a.run.requested', 'runners', async () => undefined);
    expect(bus.consumerLag()).toEqual([
      { group: 'slow', topic: 'a2a.task.events', lag: 0 },
      { group: 'fast', topic: 'a2a.task.events', lag: 0 },
      { group: 'runners', topic: 'a2a.run.requested', lag: 0 },
    ]);
    for (let i = 0; i < 3; i++)
      await bus.publish({ topic: 'a2a.task.events', key: `task-${i}`, value: Buffer.from('{}') });
    const lag = (group: string): number | undefined => bus.consumerLag().find((l) => l.group === group)?.lag;
    expect(lag('slow')).toBe(3);
    await new Promise((r) => setTimeout(r, 20));
    expect(lag('fast')).toBe(0);
    expect(lag('slow')).toBe(3);
    release();
    await bus.drain();
    expect(bus.consumerLag().map((l) => l.lag)).toEqual([0, 0, 0]);
    await bus.close();
  });
});
