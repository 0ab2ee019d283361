import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '@a2a-inbound/errors';

const LOCK = 'embedded.pid';
const SECRETS_KEY = 'secrets.key';
const CREATED = 'created.json';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The durable embedded mode's data directory: one process at a time (live tails are woken in-process, and a
 * start fails the runs it finds in flight, which would be another live process's runs), the secrets key
 * that sealed its stored secrets, and when its demo credentials were printed.
 */
export class DataDir {
  private constructor(readonly path: string) {}

  /** Creates the folder on first use and takes the process lock (a lock left by a killed process is taken over). */
  static open(path: string): DataDir {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    const lock = join(path, LOCK);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 });
        return new DataDir(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number(readFileSync(lock, 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid))
          throw new AppError(
            'UNAVAILABLE',
            `the data directory ${path} is in use by process ${pid} (another npm start?); stop it, or set DATA_DIR to another folder`,
          );
        rmSync(lock, { force: true }); // stale: its process is gone
      }
    }
    throw new AppError('UNAVAILABLE', `could not take the lock ${lock}`);
  }

  get databaseDir(): string {
    return join(this.path, 'db');
  }

  /** The key that seals stored secrets: made once (0600), so secrets stored by an earlier start still open. */
  secretsKey(): string {
    const file = join(this.path, SECRETS_KEY);
    if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
    return readFileSync(file, 'utf8').trim();
  }

  /** When the demo credentials of this directory were printed (undefined before the first start finished seeding). */
  credentialsShownAt(): string | undefined {
    try {
      return (JSON.parse(readFileSync(join(this.path, CREATED), 'utf8')) as { credentialsShownAt?: string })
        .credentialsShownAt;
    } catch {
      return undefined;
    }
  }

  recordCredentialsShown(at: Date): void {
    writeFileSync(join(this.path, CREATED), JSON.stringify({ credentialsShownAt: at.toISOString() }), { mode: 0o600 });
  }

  /** Releases the lock (the files stay). */
  close(): void {
    try {
      if (readFileSync(join(this.path, LOCK), 'utf8').trim() === String(process.pid))
        rmSync(join(this.path, LOCK), { force: true });
    } catch {
      // already gone
    }
  }
}
