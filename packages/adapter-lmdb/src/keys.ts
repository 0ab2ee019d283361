import { createHash } from 'node:crypto';

/**
 * Binary keys built from typed elements. Each element is a tag byte, its payload and a 0x00 terminator;
 * 0x00 and 0x01 inside a payload are escaped (0x01 0x01, 0x01 0x02). So no element's encoding is a prefix of
 * another's, and the keys that extend a prefix are exactly the keys whose bytes start with it: one range
 * `[prefix, prefix + 0xFF)` (tags are below 0xFF). lmdb's own ordered-binary key encoding gives no such
 * guarantee for strings holding control characters.
 */
const TERMINATOR = 0x00;
const ESCAPE = 0x01;
/** LMDB keys are at most 1978 bytes (lmdb-js's build): a longer value is keyed by its hash (equality only). */
const MAX_PAYLOAD_BYTES = 256;

function escape(bytes: Buffer): Buffer {
  if (!bytes.includes(TERMINATOR) && !bytes.includes(ESCAPE)) return bytes;
  const out: number[] = [];
  for (const b of bytes) {
    if (b === TERMINATOR) out.push(ESCAPE, 0x01);
    else if (b === ESCAPE) out.push(ESCAPE, 0x02);
    else out.push(b);
  }
  return Buffer.from(out);
}

/** No U+0000 or U+0001: the only code points whose UTF-8 holds a 0x00 or 0x01 byte. */
const PLAIN = /^[^\u0000\u0001]*$/;

function element(tag: string, payload: string): Buffer {
  // The common case in one allocation (keys are built for every write): a short payload with nothing to escape.
  // Three UTF-8 bytes at most per UTF-16 unit, so it is within MAX_PAYLOAD_BYTES.
  if (payload.length * 3 <= MAX_PAYLOAD_BYTES && PLAIN.test(payload))
    return Buffer.from(`${tag}${payload}\u0000`, 'utf8');
  return slowElement(tag, payload);
}

/** `element` for any payload: escaped, hashed when long. */
export function slowElement(tag: string, payload: string): Buffer {
  let bytes = Buffer.from(payload, 'utf8');
  if (bytes.length > MAX_PAYLOAD_BYTES) {
    tag = tag.toUpperCase(); // a hashed value never equals a short one with the same text
    bytes = Buffer.from(createHash('sha256').update(bytes).digest('hex'), 'latin1');
  }
  return Buffer.concat([Buffer.from(tag, 'latin1'), escape(bytes), Buffer.of(TERMINATOR)]);
}

/** One element per value: equal values (undefined and null alike, as filters treat them) encode equally. */
export function valueElement(value: unknown): Buffer {
  if (value === undefined || value === null) return element('z', '');
  if (typeof value === 'string') return element('s', value);
  if (typeof value === 'number') return element('n', String(value));
  if (typeof value === 'boolean') return element('b', value ? '1' : '0');
  return element('j', JSON.stringify(value));
}

export const key = (...parts: readonly Buffer[]): Buffer => Buffer.concat(parts);
export const str = (s: string): Buffer => element('s', s);

/** `key(str(a), str(b), ...)` in one allocation when no value needs escaping or hashing (a document's key). */
export function strs(...values: readonly string[]): Buffer {
  let text = '';
  for (const v of values) {
    if (v.length * 3 > MAX_PAYLOAD_BYTES || !PLAIN.test(v)) return key(...values.map(str));
    text += `s${v}\u0000`;
  }
  return Buffer.from(text, 'utf8');
}

/** A fixed-width decimal: numeric order is byte order (sequence numbers, expiry times). */
export const num = (n: number): Buffer =>
  Buffer.from(Math.max(0, Math.floor(n)).toString().padStart(16, '0'), 'latin1');

/** The end of the range of every key that starts with `prefix`. */
export const rangeEnd = (prefix: Buffer): Buffer => Buffer.concat([prefix, Buffer.of(0xff)]);
