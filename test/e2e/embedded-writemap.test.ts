import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '@a2a-inbound/logger';

/** DATA_WRITEMAP (ADR 0077): the durable embedded mode writes LMDB pages in its shared map unless turned off. */
describe('DATA_WRITEMAP', () => {
  it('is on by default, off with DATA_WRITEMAP=false (the database opens without the writemap), refused when not a boolean', async () => {
    const { loadEmbeddedConfig, openEmbeddedEngines } = await import('@a2a-inbound/embedded');
    expect(loadEmbeddedConfig({}, process.cwd()).writemap).toBe(true);
    expect(() => loadEmbeddedConfig({ DATA_WRITEMAP: 'sometimes' }, process.cwd())).toThrow(/DATA_WRITEMAP/);
    for (const [value, expected] of [
      ['false', false],
      ['true', true],
    ] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'embedded-writemap-'));
      try {
        const config = loadEmbeddedConfig({ DATA_DIR: dir, DATA_WRITEMAP: value }, process.cwd());
        const { engines, dataDir } = await openEmbeddedEngines(config, silentLogger(), {});
        expect((engines as unknown as { database: { writemap: boolean } }).database.writemap).toBe(expected);
        const c = await engines.store.collection<{ n: number }>({ name: 'tasks' });
        await c.insert('t1', { n: 1 });
        expect((await c.get('t1'))?.doc.n).toBe(1);
        for (const x of [engines.bus, engines.eventLog, engines.cache, engines.limiter, engines.blobs, engines.store])
          await x.close();
        dataDir?.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });
});
