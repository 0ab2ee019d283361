import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CodeFileJob, CodeFileResult } from './domain/extract/code-file';

interface Pending {
  readonly resolve: (r: CodeFileResult) => void;
  readonly reject: (e: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

/**
 * Worker threads that parse and extract code files (tree-sitter and the rules are CPU-bound and
 * single-threaded): an ingest hands each code file to the least busy worker and merges the answers in
 * file order (`extractSource`'s `runCode`). Idle workers do not keep the process alive; a worker that
 * dies fails the files it held and is replaced on the next file.
 */
export class ParsePool {
  readonly #slots: (Slot | undefined)[];
  #next = 0;
  #closed = false;

  private constructor(
    readonly script: string,
    readonly size: number,
  ) {
    this.#slots = Array.from({ length: size }, () => undefined);
  }

  /**
   * A pool of `size` workers running `script` (the bundled `parse-worker.js`); undefined when `size` is 0
   * or the script is not there (running from TypeScript sources: files are then extracted in process).
   */
  static open(size: number, script: string = defaultWorkerScript()): ParsePool | undefined {
    if (size < 1 || !existsSync(script)) return undefined;
    return new ParsePool(script, size);
  }

  /** Files handed out ahead of the merge: enough to keep every worker busy while the next files are read. */
  get window(): number {
    return this.size * 4;
  }

  readonly run = (job: CodeFileJob): Promise<CodeFileResult> => {
    if (this.#closed) return Promise.reject(new Error('the parse pool is closed'));
    const slot = this.#slot();
    const id = this.#next++;
    return new Promise<CodeFileResult>((resolve, reject) => {
      if (slot.pending.size === 0) slot.worker.ref();
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, job });
    });
  };

  async close(): Promise<void> {
    this.#closed = true;
    const workers = this.#slots.filter((s): s is Slot => s !== undefined).map((s) => s.worker);
    this.#slots.fill(undefined);
    await Promise.all(workers.map((w) => w.terminate()));
  }

  /** The least busy worker, started when its place is empty. */
  #slot(): Slot {
    let best = -1;
    for (let i = 0; i < this.#slots.length; i++) {
      const s = this.#slots[i];
      if (!s) return this.#start(i);
      if (best < 0 || s.pending.size < this.#slots[best]!.pending.size) best = i;
    }
    return this.#slots[best]!;
  }

  #start(i: number): Slot {
    const worker = new Worker(this.script);
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    const fail = (err: Error): void => {
      if (this.#slots[i] === slot) this.#slots[i] = undefined;
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    worker.on('message', (msg: { id: number; result?: CodeFileResult; error?: string }) => {
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      if (slot.pending.size === 0) worker.unref();
      if (msg.result) p.resolve(msg.result);
      else p.reject(new Error(msg.error ?? 'the parse worker failed'));
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the parse worker exited (code ${code})`)));
    this.#slots[i] = slot;
    return slot;
  }
}

/** `parse-worker.js` beside the running bundle (`dist/`); absent when running from sources. */
export function defaultWorkerScript(): string {
  return join(typeof __dirname === 'string' ? __dirname : process.cwd(), 'parse-worker.js');
}

/**
 * LINKER_PARSE_WORKERS' default: none (the main thread). On a 2-core machine two workers gave the same wall time
 * for 15 % more CPU and 125 MB more memory (ADR 0049): set it where the linker has idle cores of its own.
 */
export function defaultParseWorkers(): number {
  return 0;
}
