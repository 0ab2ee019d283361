import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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
  /** Armed while the worker holds files: it answers one within `jobTimeoutMs` or is terminated. */
  timer?: NodeJS.Timeout | undefined;
  /** Fails the files the worker holds and frees its place (it died, or missed its deadline). */
  fail?: (err: Error) => void;
}

/** Limits of a pool's workers: how long a busy worker may go without answering, and its heap. */
export interface ParsePoolLimits {
  /** A busy worker that answers no file for this long is terminated, failing the files it held (default 120 s). */
  readonly jobTimeoutMs?: number;
  /** Each worker's old-generation heap, in MB (default 1024): past it the worker dies, not the process. */
  readonly maxHeapMb?: number;
}

/**
 * Worker threads that parse and extract code files (tree-sitter and the rules are CPU-bound and
 * single-threaded): an ingest hands each code file to the least busy worker and merges the answers in
 * file order (`extractSource`'s `runCode`). Idle workers do not keep the process alive; a worker that
 * dies fails the files it held and is replaced on the next file. The parse budget bounds tree-sitter only,
 * so a worker is also bounded in time and heap (`ParsePoolLimits`): an extraction that loops or grows
 * without end fails its ingest, instead of holding it forever or taking the process's memory.
 */
export class ParsePool {
  readonly #slots: (Slot | undefined)[];
  #next = 0;
  #closed = false;

  private constructor(
    readonly script: string,
    readonly size: number,
    readonly limits: Required<ParsePoolLimits>,
  ) {
    this.#slots = Array.from({ length: size }, () => undefined);
  }

  /**
   * A pool of `size` workers running `script` (the bundled `parse-worker.js`); undefined when `size` is 0
   * or the script is not there (running from TypeScript sources: files are then extracted in process).
   */
  static open(
    size: number,
    script: string = defaultWorkerScript(),
    limits: ParsePoolLimits = {},
  ): ParsePool | undefined {
    if (size < 1 || !existsSync(script)) return undefined;
    return new ParsePool(script, size, { jobTimeoutMs: 120_000, maxHeapMb: 1024, ...limits });
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
      if (slot.pending.size === 0) {
        slot.worker.ref();
        this.#arm(slot);
      }
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, job });
    });
  };

  async close(): Promise<void> {
    this.#closed = true;
    const slots = this.#slots.filter((s): s is Slot => s !== undefined);
    for (const s of slots) clearTimeout(s.timer);
    const workers = slots.map((s) => s.worker);
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

  /** (Re)starts the slot's answer deadline: past it the worker is terminated and its files fail. */
  #arm(slot: Slot): void {
    clearTimeout(slot.timer);
    const ms = this.limits.jobTimeoutMs;
    slot.timer = setTimeout(() => {
      slot.fail?.(new Error(`the parse worker answered no file for ${ms} ms: terminated`));
      void slot.worker.terminate();
    }, ms);
    slot.timer.unref();
  }

  #start(i: number): Slot {
    const worker = new Worker(this.script, { resourceLimits: { maxOldGenerationSizeMb: this.limits.maxHeapMb } });
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    const fail = (err: Error): void => {
      clearTimeout(slot.timer);
      if (this.#slots[i] === slot) this.#slots[i] = undefined;
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    slot.fail = fail;
    worker.on('message', (msg: { id: number; result?: CodeFileResult; error?: string }) => {
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      if (slot.pending.size === 0) {
        clearTimeout(slot.timer);
        worker.unref();
      } else this.#arm(slot);
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

/** Workers started by default at most: each holds its own grammars and heap (~50–65 MB RSS), and few ingests run at once. */
export const MAX_DEFAULT_PARSE_WORKERS = 4;

/**
 * LINKER_PARSE_WORKERS' default: one worker per core the process may use (`os.availableParallelism()`), at most
 * `MAX_DEFAULT_PARSE_WORKERS`; none on one core, where a worker only adds its start-up and copies (ADR 0068).
 */
export function defaultParseWorkers(cores: number = availableParallelism()): number {
  return cores < 2 ? 0 : Math.min(cores, MAX_DEFAULT_PARSE_WORKERS);
}
