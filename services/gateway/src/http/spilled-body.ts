import type { Request } from 'express';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { AppError } from '@a2a-inbound/errors';
import type { BlobStore } from '@a2a-inbound/ports';
import { SpillScanner, type SpillOutcome } from '../protocol/spill-scanner';

/** A body above this many bytes (or chunked, of unknown length) counts as large: bounded in flight. */
export const LARGE_BODY_BYTES = 1024 * 1024;

/** A body of at most this many bytes, announced and not compressed, is read whole (`readWhole`). */
const SMALL_BODY_BYTES = 64 * 1024;

/** Where the JSON-RPC endpoint finds file bytes: `params.message.parts[i].file.bytes`. */
export const JSON_RPC_FILE_PATHS = [['params', 'message', 'parts', '*', 'file', 'bytes']] as const;

/** The client went away mid-body: nothing to answer. */
export class BodyAbortedError extends Error {}

/**
 * At most `max` large bodies are read at once; more wait with their socket unread (TCP back-pressure holds
 * the rest of the upload in the client), so memory does not grow with the number of uploads.
 */
export class LargeBodyGate {
  #open = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly max: number) {}

  get waiting(): number {
    return this.#waiting.length;
  }

  async enter(): Promise<() => void> {
    if (this.#open >= this.max) await new Promise<void>((r) => this.#waiting.push(r));
    else this.#open += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const next = this.#waiting.shift();
      if (next)
        next(); // the slot passes on
      else this.#open -= 1;
    };
  }
}

export interface SpilledBody {
  /** The body without the spilled file bytes (placeholders in their place). */
  json: Buffer;
  spilled: ReadonlyMap<string, SpillOutcome>;
  /** Deletes the stored files not in `keep` (refused requests keep none). */
  discard(keep?: ReadonlySet<string>): Promise<void>;
}

function decoded(req: Request): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  // A client that goes away mid-body must end the decompressor too (with an error), or the reader below would
  // wait for it forever and keep its large-body slot. Not `pipeline`: a decoder error (corrupt gzip) would
  // destroy the request, and with it the socket the PARSE_ERROR answer is sent on.
  const through = (decompressor: Readable & NodeJS.WritableStream): Readable => {
    req.pipe(decompressor);
    decompressor.on('error', () => undefined); // the reader sees it; none left unhandled once it stopped
    req.once('close', () => {
      if (!req.complete) decompressor.destroy(new BodyAbortedError('request aborted'));
    });
    return decompressor;
  };
  switch (encoding) {
    case 'identity':
      return req;
    case 'gzip':
    case 'x-gzip':
      return through(createGunzip());
    case 'deflate':
      return through(createInflate());
    case 'br':
      return through(createBrotliDecompress());
    default:
      throw new AppError('PARSE_ERROR', 'Unsupported body encoding');
  }
}

/**
 * The rest of a small body, read with the stream's events: the async iterator's set-up (an end-of-stream watcher,
 * a promise per step) was about 3 % of a send's CPU. Fails as the iterator does when the request ends early.
 */
function readWhole(req: Readable): Promise<Buffer[]> {
  if (req.readableEnded) return Promise.resolve([]);
  if (req.destroyed) return Promise.reject(new Error('request destroyed'));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
    };
    const settle = (err?: Error): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', settle);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks);
    };
    const onEnd = (): void => settle();
    const onClose = (): void => settle(new Error('premature close'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', settle);
    req.once('close', onClose);
  });
}

/**
 * Reads a JSON body as a stream (issue 19, item 6): file bytes at `paths` go to the blob store (owner: the
 * caller's subscription) as they arrive; the rest is returned for `JSON.parse`. `limitBytes` bounds the
 * decoded body (PAYLOAD_TOO_LARGE, as before); large bodies pass `gate` first.
 */
export async function readSpilledBody(
  req: Request,
  options: {
    limitBytes: number;
    blobs: BlobStore;
    owner: string;
    gate: LargeBodyGate;
    paths: readonly (readonly string[])[];
    maxFileBytes: number;
  },
): Promise<SpilledBody> {
  const announced = Number(req.headers['content-length'] ?? NaN);
  if (announced > options.limitBytes) throw new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
  const stored: string[] = [];
  const discard = async (keep?: ReadonlySet<string>): Promise<void> => {
    for (const id of stored.splice(0))
      if (!keep?.has(id)) await options.blobs.delete(id, options.owner).catch(() => undefined);
  };
  const scanner = new SpillScanner({
    paths: options.paths,
    maxFileBytes: options.maxFileBytes,
    store: async (data) => {
      const ref = await options.blobs.put(data, { owner: options.owner, mimeType: 'application/octet-stream' });
      stored.push(ref.id);
      return ref;
    },
  });
  // Neither a length nor chunked: no body at all (RFC 9112 6.3), not one of unknown length.
  const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
  const large = !bodiless && !(announced <= LARGE_BODY_BYTES);
  const leave = large ? await options.gate.enter() : undefined;
  try {
    const source = decoded(req);
    let total = 0;
    try {
      // Not destroyed when the loop stops early (too large, the blob store failed): the connection must stay
      // up for the JSON answer (sent with `Connection: close`, the rest of the body unread).
      const chunks =
        source === req && announced <= SMALL_BODY_BYTES
          ? await readWhole(req)
          : (source.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>);
      for await (const chunk of chunks) {
        total += chunk.length;
        if (total > options.limitBytes) throw new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
        await scanner.write(chunk);
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (req.destroyed && !req.complete) throw new BodyAbortedError('request aborted');
      throw new AppError('PARSE_ERROR', 'Parse error: the body could not be decoded', { cause: err });
    }
    if (!req.complete) throw new BodyAbortedError('request aborted');
    const { json, spilled } = scanner.end();
    return { json, spilled, discard };
  } catch (err) {
    await discard();
    throw err;
  } finally {
    leave?.();
  }
}
