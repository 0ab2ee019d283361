import { AppError } from '@a2a-inbound/errors';
import type { BlobStore } from './blob-store';

/**
 * Large payloads kept out of bus messages and documents (ADR 0013).
 *
 * A message part (A2A Part JSON) too large to carry inline is stored in the blob store against the
 * subscription and replaced by a **spilled part**: the same `kind`, an empty body, and the field
 * `a2aInboundBlob` listing the blobs that hold it. Documents, bus messages and the event log carry only
 * the spilled form; the edges that answer clients (tasks: tasks/get, message/send, SSE) and the runner
 * (its run input) resolve it back to the full part. Clients never produce the field: the gateway rebuilds
 * every part from its known fields.
 *
 * A text part may be spilled in several chunks (an artifact's text deltas appended over time), plus a short
 * inline `tail` of deltas appended since the last spill; its text is the chunks' texts then the tail.
 */
export const SPILL_FIELD = 'a2aInboundBlob';

export interface SpilledChunk {
  /** Blob id (owner: the subscription). The blob holds one Part as JSON. */
  readonly id: string;
  /** UTF-8 bytes of that JSON. */
  readonly bytes: number;
}

export interface SpillRef {
  readonly chunks: readonly SpilledChunk[];
  /** Text appended after the last chunk, kept inline until it is large enough to spill. */
  readonly tail?: string;
}

/** The structural subset of an A2A Part this module needs (ports do not depend on the SDK's types). */
export interface PartLike {
  readonly kind: string;
  readonly text?: string;
  readonly metadata?: Record<string, unknown>;
}

export interface MessageLike<P extends PartLike = PartLike> {
  readonly parts: P[];
}

export interface LargePayloadLimits {
  /** A part list (a message's or an artifact's parts) is spilled, largest parts first, down to this size. */
  readonly inlinePartsBytes: number;
  /** Parts smaller than this are never spilled (a reference would not be much smaller). */
  readonly minSpillBytes: number;
}

export const DEFAULT_LARGE_PAYLOAD_LIMITS: LargePayloadLimits = {
  inlinePartsBytes: 16 * 1024,
  minSpillBytes: 1024,
};

const enc = new TextEncoder();
const dec = new TextDecoder();

/** UTF-8 bytes of the value's JSON, counted without encoding it (every part of every send and event is sized). */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * An upper bound of `jsonBytes(value)` counted without serialising (a string's code unit is at most 6 bytes of
 * JSON, a number at most 32 characters), or a number above `budget` once the bound passes it. Anything that is not
 * a plain object, an array or a primitive is measured exactly.
 */
export function jsonBytesBound(value: unknown, budget: number): number {
  switch (typeof value) {
    case 'string':
      return 6 * value.length + 2;
    case 'number':
      return 32;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      let n = 2;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length && n <= budget; i++) n += jsonBytesBound(value[i], budget - n) + 1;
        return n;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return jsonBytes(value);
      for (const key in value) {
        if (n > budget) break;
        if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
        n += 6 * key.length + 4 + jsonBytesBound((value as Record<string, unknown>)[key], budget - n);
      }
      return n;
    }
    case 'undefined':
    case 'function':
    case 'symbol':
      return 4; // left out of an object, `null` in an array
    default:
      return jsonBytes(value);
  }
}

export function spillRefOf(part: PartLike): SpillRef | undefined {
  const ref = (part as unknown as Record<string, unknown>)[SPILL_FIELD];
  return typeof ref === 'object' && ref !== null ? (ref as SpillRef) : undefined;
}

export const isSpilled = (part: PartLike): boolean => spillRefOf(part) !== undefined;

/** A quick test on serialized JSON: does it contain any spilled part? */
export const mentionsSpill = (json: string): boolean => json.includes(`"${SPILL_FIELD}"`);

/**
 * Size of the part as clients see it (JSON bytes of the resolved part), without reading any blob. Used to
 * bound conversation memory by what the agent would receive.
 */
export function resolvedBytes(part: PartLike): number {
  const ref = spillRefOf(part);
  if (!ref) return jsonBytes(part);
  return ref.chunks.reduce((n, c) => n + c.bytes, 0) + (ref.tail ? Buffer.byteLength(ref.tail, 'utf8') : 0);
}

export const messageResolvedBytes = (m: MessageLike): number => m.parts.reduce((n, p) => n + resolvedBytes(p), 0);

function placeholder<P extends PartLike>(part: P, ref: SpillRef): P {
  const base: Record<string, unknown> = { kind: part.kind };
  const src = part as unknown as Record<string, unknown>;
  if (part.kind === 'text') base.text = '';
  else if (part.kind === 'data') base.data = {};
  else if (part.kind === 'file') base.file = src.file; // a file part's body is small (bytes are stored apart)
  base[SPILL_FIELD] = ref;
  return base as unknown as P;
}

/** Spills and resolves parts through a blob store; every blob is owned by the subscription. */
export class LargePayloads {
  readonly limits: LargePayloadLimits;

  constructor(
    private readonly blobs: BlobStore,
    limits: Partial<LargePayloadLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LARGE_PAYLOAD_LIMITS, ...limits };
  }

  /**
   * Spills the largest parts until the inline JSON of the list is at most `inlinePartsBytes` (or nothing
   * worth spilling is left). Order, kinds and every other part are kept; already spilled parts stay as they are
   * (a long inline tail is spilled as a further chunk).
   */
  async compactParts<P extends PartLike>(parts: readonly P[], owner: string): Promise<P[]> {
    const out = [...parts];
    // Most part lists are far below the limit: a bound of their size spares serialising each part to count it.
    const limit = this.limits.inlinePartsBytes;
    let bound = 0;
    for (let i = 0; i < out.length && bound <= limit; i++) bound += jsonBytesBound(out[i], limit - bound);
    if (bound <= limit) return out;
    const sizes = out.map((p) => jsonBytes(p));
    let total = sizes.reduce((a, b) => a + b, 0);
    const tried = new Set<number>();
    while (total > this.limits.inlinePartsBytes) {
      let pick = -1;
      for (let i = 0; i < out.length; i++) {
        if (tried.has(i) || sizes[i]! < this.limits.minSpillBytes) continue;
        if (pick < 0 || sizes[i]! > sizes[pick]!) pick = i;
      }
      if (pick < 0) break;
      tried.add(pick);
      const spilled = await this.#spill(out[pick]!, owner);
      const size = jsonBytes(spilled);
      total += size - sizes[pick]!;
      sizes[pick] = size;
      out[pick] = spilled;
    }
    return out;
  }

  async compactMessage<M extends MessageLike>(message: M, owner: string): Promise<M> {
    return { ...message, parts: await this.compactParts(message.parts, owner) };
  }

  /**
   * Appends a text delta to a text part (A2A `append: true`): inline texts concatenate; once either side is
   * spilled, the result is a spilled part whose chunks are both sides' chunks, in order.
   */
  async appendText<P extends PartLike>(last: P, delta: P, owner: string): Promise<P> {
    const a = spillRefOf(last);
    const b = spillRefOf(delta);
    if (!a && !b) return { ...last, text: (last.text ?? '') + (delta.text ?? '') };
    if (a && !b) return placeholder(last, { chunks: a.chunks, tail: (a.tail ?? '') + (delta.text ?? '') });
    const head = a ? await this.#flushTail(a, owner) : await this.#chunk(last, owner);
    const chunks = [...head, ...b!.chunks];
    return placeholder(last, b!.tail ? { chunks, tail: b!.tail } : { chunks });
  }

  async resolvePart<P extends PartLike>(part: P, owner: string): Promise<P> {
    const ref = spillRefOf(part);
    if (!ref) return part;
    const pieces: P[] = [];
    for (const c of ref.chunks) pieces.push((await this.getJson(c.id, owner)) as P);
    const first = pieces[0];
    if (!first) return { kind: 'text', text: ref.tail ?? '' } as unknown as P;
    if (pieces.length === 1 && ref.tail === undefined) return first;
    // Chunks of one text part: the first chunk's part (its metadata) with every chunk's text in order.
    const text = pieces.map((p) => p.text ?? '').join('') + (ref.tail ?? '');
    return { ...first, text };
  }

  async resolveParts<P extends PartLike>(parts: readonly P[], owner: string): Promise<P[]> {
    if (!parts.some(isSpilled)) return [...parts];
    const out: P[] = [];
    for (const p of parts) out.push(await this.resolvePart(p, owner));
    return out;
  }

  async resolveMessage<M extends MessageLike>(message: M, owner: string): Promise<M> {
    if (!message.parts.some(isSpilled)) return message;
    return { ...message, parts: await this.resolveParts(message.parts, owner) };
  }

  /** Stores any JSON value as one blob (e.g. a run's input when it would not fit a bus message). */
  async putJson(value: unknown, owner: string, name = 'a2a-payload'): Promise<SpilledChunk> {
    const data = enc.encode(JSON.stringify(value));
    const ref = await this.blobs.put(data, { owner, name, mimeType: 'application/json' });
    return { id: ref.id, bytes: data.byteLength };
  }

  async getJson(id: string, owner: string): Promise<unknown> {
    const blob = await this.blobs.get(id, owner);
    // Blobs are immutable and removed only with what references them: a miss is a broken invariant.
    if (!blob) throw new AppError('INTERNAL', `stored payload ${id} is missing`);
    return JSON.parse(dec.decode(blob.data)) as unknown;
  }

  async #spill<P extends PartLike>(part: P, owner: string): Promise<P> {
    const ref = spillRefOf(part);
    if (ref) return placeholder(part, { chunks: await this.#flushTail(ref, owner) });
    return placeholder(part, { chunks: await this.#chunk(part, owner) });
  }

  async #chunk(part: PartLike, owner: string): Promise<SpilledChunk[]> {
    return [await this.putJson(part, owner, 'a2a-part')];
  }

  async #flushTail(ref: SpillRef, owner: string): Promise<SpilledChunk[]> {
    if (!ref.tail) return [...ref.chunks];
    return [...ref.chunks, await this.putJson({ kind: 'text', text: ref.tail }, owner, 'a2a-part')];
  }
}
