import { createHash } from 'node:crypto';
import { SPILL_PREFIX, type SpillOutcome } from '@a2a-inbound/a2a-wire';

/**
 * Reads a JSON body as it arrives and takes the base64 `bytes` of file parts out of it (issue 19, item 6;
 * ADR 0031): each such string at one of `paths` is decoded while it streams in and handed to `store` (the
 * blob store) when it ends; the body keeps a short placeholder in its place. Everything else is copied as is,
 * so what remains is a small JSON document for `JSON.parse`, and a request never holds its files as one
 * body, one string and one decoded copy at once: at most one file (20 MB decoded) per request is in memory.
 *
 * The scanner only tracks structure (objects, arrays, keys, strings); it does not validate JSON. A malformed
 * body still ends as malformed text and fails `JSON.parse` as before.
 */

// What became of one spilled `bytes` string, and the placeholder's prefix, are the shared send rules' (a2a-wire).
export { SPILL_PREFIX, type SpillOutcome } from '@a2a-inbound/a2a-wire';

export interface SpillScannerOptions {
  /** Where file bytes are: key paths from the root, `*` for any array index. */
  paths: readonly (readonly string[])[];
  /** Decoded bytes above which a file is refused (its string is still read to its end, then dropped). */
  maxFileBytes: number;
  /** Stores one decoded file; returns its blob reference. */
  store(data: Buffer): Promise<{ id: string; size: number; sha256: string }>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MAX_KEY_BYTES = 64;
const BASE64_BODY = /^[A-Za-z0-9+/]*$/;

interface Frame {
  array: boolean;
  /** The current key (objects) or `*` (arrays). */
  slot: string;
  /** Objects: the next string is a key. */
  expectKey: boolean;
}

/** Streaming base64 decoder of one string: checks the alphabet and padding, bounds the decoded size. */
class Base64Sink {
  readonly #chunks: Buffer[] = [];
  readonly #hash = createHash('sha256');
  #carry = '';
  #chars = 0;
  #pad = 0;
  #decoded = 0;
  #problem: 'too-large' | 'invalid' | undefined;
  /** A `\` whose escaped character has not arrived yet. */
  escape = false;

  constructor(private readonly maxBytes: number) {}

  /** Raw string bytes (JSON escapes included: only `\/` may appear in base64). */
  write(raw: Buffer): void {
    if (this.#problem) return;
    let text = raw.toString('latin1');
    if (this.escape) {
      text = `\\${text}`;
      this.escape = false;
    }
    if (text.includes('\\')) {
      if (text.endsWith('\\') && !text.endsWith('\\\\')) {
        this.escape = true;
        text = text.slice(0, -1);
      }
      if (/\\[^/]/.test(text)) {
        this.#problem = 'invalid';
        return;
      }
      text = text.replace(/\\\//g, '/');
    }
    this.#add(text);
  }

  #add(text: string): void {
    if (text.length === 0) return;
    const padAt = text.indexOf('=');
    const body = padAt < 0 ? text : text.slice(0, padAt);
    if ((this.#pad > 0 && body.length > 0) || !BASE64_BODY.test(body)) {
      this.#problem = 'invalid';
      return;
    }
    if (padAt >= 0) {
      const pad = text.slice(padAt);
      if (!/^=+$/.test(pad) || this.#pad + pad.length > 2) {
        this.#problem = 'invalid';
        return;
      }
      this.#pad += pad.length;
    }
    this.#chars += text.length;
    if (this.#chars > Math.ceil((this.maxBytes * 4) / 3) + 4) {
      this.#problem = 'too-large';
      this.#chunks.length = 0;
      return;
    }
    // Decode whole groups of four; the rest waits for the next chunk.
    const all = this.#carry + text;
    const whole = all.length - (all.length % 4);
    this.#carry = all.slice(whole);
    if (whole > 0) {
      const bytes = Buffer.from(all.slice(0, whole), 'base64');
      this.#decoded += bytes.length;
      this.#hash.update(bytes);
      this.#chunks.push(bytes);
    }
  }

  finish(): { data: Buffer; sha256: string } | 'too-large' | 'invalid' {
    if (this.#problem) return this.#problem;
    if (this.escape || this.#carry.length !== 0 || this.#chars % 4 !== 0) return 'invalid';
    if (this.#decoded > this.maxBytes) return 'too-large';
    const data = Buffer.concat(this.#chunks);
    this.#chunks.length = 0;
    return { data, sha256: this.#hash.digest('hex') };
  }
}

export class SpillScanner {
  readonly #out: Buffer[] = [];
  readonly #spilled = new Map<string, SpillOutcome>();
  readonly #stack: Frame[] = [];
  /** Inside a string: 'key' (collecting it), 'value' (copied), 'spill' (decoded into the sink). */
  #inString: 'key' | 'value' | 'spill' | undefined;
  #escape = false;
  #key: Buffer[] = [];
  #keyBytes = 0;
  #sink: Base64Sink | undefined;
  #outBytes = 0;

  constructor(private readonly options: SpillScannerOptions) {}

  /** Bytes of the remaining (small) document so far. */
  get keptBytes(): number {
    return this.#outBytes;
  }

  /** Scans one chunk; resolves once a file that ended in it is stored (back-pressure on the upload). */
  async write(chunk: Buffer): Promise<void> {
    let i = 0;
    let copyFrom = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.#inString) {
        const end = this.#stringEnd(chunk, i);
        const stop = end < 0 ? n : end;
        if (this.#inString === 'spill') this.#sink!.write(chunk.subarray(i, stop));
        else if (this.#inString === 'key') this.#collectKey(chunk.subarray(i, stop));
        if (end < 0) {
          i = n;
          break;
        }
        // `end` is the closing quote.
        if (this.#inString === 'spill') {
          copyFrom = end + 1;
          await this.#closeSpill();
        } else if (this.#inString === 'key') this.#closeKey();
        this.#inString = undefined;
        i = end + 1;
        continue;
      }
      const c = chunk[i]!;
      switch (c) {
        case 0x7b: // {
          this.#stack.push({ array: false, slot: '', expectKey: true });
          break;
        case 0x5b: // [
          this.#stack.push({ array: true, slot: '*', expectKey: false });
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.#stack.pop();
          break;
        case 0x2c: {
          // ,
          const top = this.#stack.at(-1);
          if (top && !top.array) top.expectKey = true;
          break;
        }
        case 0x3a: {
          // :
          const top = this.#stack.at(-1);
          if (top && !top.array) top.expectKey = false;
          break;
        }
        case QUOTE: {
          const top = this.#stack.at(-1);
          this.#escape = false;
          if (top && !top.array && top.expectKey) {
            this.#inString = 'key';
            this.#key = [];
            this.#keyBytes = 0;
          } else if (this.#atFileBytes()) {
            // Everything before the opening quote is kept; the string's content goes to the sink.
            this.#keep(chunk.subarray(copyFrom, i + 1));
            copyFrom = -1;
            this.#inString = 'spill';
            this.#sink = new Base64Sink(this.options.maxFileBytes);
          } else this.#inString = 'value';
          break;
        }
        default:
          break;
      }
      i += 1;
    }
    if (copyFrom >= 0 && this.#inString !== 'spill') this.#keep(chunk.subarray(copyFrom, n));
  }

  /** The remaining document and what was spilled (placeholder → outcome). */
  end(): { json: Buffer; spilled: ReadonlyMap<string, SpillOutcome> } {
    if (this.#inString === 'spill') {
      // A body that ends inside a file string: malformed JSON; keep it malformed.
      this.#keep(Buffer.from('"'));
      this.#sink = undefined;
    }
    return { json: Buffer.concat(this.#out), spilled: this.#spilled };
  }

  #keep(b: Buffer): void {
    if (b.length === 0) return;
    // Copied: a chunk of the upload must not stay referenced by a small slice of it.
    const copy = Buffer.from(b);
    this.#out.push(copy);
    this.#outBytes += copy.length;
  }

  /** Index of the closing quote from `from`, or -1 when the string goes on past the chunk. */
  #stringEnd(chunk: Buffer, from: number): number {
    let i = from;
    if (this.#escape) {
      this.#escape = false;
      i += 1; // the escaped character
    }
    for (;;) {
      if (i >= chunk.length) return -1;
      const quote = chunk.indexOf(QUOTE, i);
      const backslash = chunk.indexOf(BACKSLASH, i);
      if (quote < 0 && backslash < 0) return -1;
      if (backslash >= 0 && (quote < 0 || backslash < quote)) {
        if (backslash + 1 >= chunk.length) {
          this.#escape = true;
          return -1;
        }
        i = backslash + 2;
        continue;
      }
      return quote;
    }
  }

  #collectKey(b: Buffer): void {
    if (this.#keyBytes > MAX_KEY_BYTES) return;
    this.#keyBytes += b.length;
    this.#key.push(Buffer.from(b));
  }

  #closeKey(): void {
    const top = this.#stack.at(-1);
    if (top && !top.array) top.slot = this.#keyBytes > MAX_KEY_BYTES ? '' : Buffer.concat(this.#key).toString('utf8');
  }

  #atFileBytes(): boolean {
    const depth = this.#stack.length;
    return this.options.paths.some(
      (p) =>
        p.length === depth &&
        p.every((slot, k) => (slot === '*' ? this.#stack[k]!.array : this.#stack[k]!.slot === slot)),
    );
  }

  async #closeSpill(): Promise<void> {
    const result = this.#sink!.finish();
    this.#sink = undefined;
    const placeholder = `${SPILL_PREFIX}${this.#spilled.size}`;
    let outcome: SpillOutcome;
    if (result === 'too-large' || result === 'invalid') outcome = { kind: result };
    else {
      const ref = await this.options.store(result.data);
      outcome = { kind: 'stored', blobId: ref.id, size: ref.size, sha256: ref.sha256 };
    }
    this.#spilled.set(placeholder, outcome);
    // The placeholder, JSON-escaped, then the closing quote.
    this.#keep(Buffer.from(`${JSON.stringify(placeholder).slice(1)}`));
  }
}

/**
 * The files one request spilled, as the validator takes them: `take` resolves a placeholder (and marks its
 * blob used); `handedOver` is set once the send went to `tasks`, after which its files are its own.
 */
export class SpilledFiles {
  readonly used = new Set<string>();
  handedOver = false;

  constructor(private readonly outcomes: ReadonlyMap<string, SpillOutcome>) {}

  take(placeholder: string): SpillOutcome | undefined {
    const o = this.outcomes.get(placeholder);
    if (o?.kind === 'stored') this.used.add(o.blobId);
    return o;
  }
}
