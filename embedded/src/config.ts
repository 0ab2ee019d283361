import { isAbsolute, join, resolve } from 'node:path';
import { EnvReader, type Env } from '@a2a-inbound/config';

/** What `STORE=memory` keeps of finished work by default (STORE_MEMORY_RETAINED; ADR 0075). */
export const IN_MEMORY_RETAINED = 20_000;

export interface EmbeddedConfig {
  /** `durable`: every state-holding port on LMDB in `dataDir` (the default); `memory`: nothing survives the process. */
  store: 'durable' | 'memory';
  /** Absolute; holds the database, the secrets key and the process lock (durable only). */
  dataDir: string;
  /** When writes reach the disk (ADR 0029): `interval` (default) syncs every `syncIntervalMs`; `commit` each commit. */
  sync: 'interval' | 'commit';
  syncIntervalMs: number;
  /**
   * `interval` sync only: LMDB writes pages in its shared map (MDB_WRITEMAP, ADR 0077). DATA_WRITEMAP=false for a
   * file system where a shared writable mapping misbehaves (some network file systems).
   */
  writemap: boolean;
  /** HTTP listen address: loopback unless the operator opens it (a container sets HOST=0.0.0.0). */
  host: string;
  /** `memory` only: finished items kept per collection and event-log streams before the oldest go (ADR 0075). */
  memoryRetained: number;
}

/** The embedded mode's own settings; `projectDir` is where the default data directory goes (`.data/embedded`). */
export function loadEmbeddedConfig(env: Env, projectDir: string): EmbeddedConfig {
  const r = new EnvReader(env);
  const store = r.oneOf('STORE', ['durable', 'memory'], 'durable');
  const dir = r.string('DATA_DIR', join(projectDir, '.data', 'embedded'));
  const config: EmbeddedConfig = {
    store,
    dataDir: isAbsolute(dir) ? dir : resolve(dir),
    sync: r.oneOf('DATA_SYNC', ['interval', 'commit'], 'interval'),
    syncIntervalMs: r.int('DATA_SYNC_INTERVAL_MS', 100, { min: 10, max: 10_000 }),
    writemap: r.bool('DATA_WRITEMAP', true),
    host: r.string('HOST', '127.0.0.1'),
    memoryRetained: r.int('STORE_MEMORY_RETAINED', IN_MEMORY_RETAINED, { min: 100, max: 1_000_000 }),
  };
  r.done();
  return config;
}
