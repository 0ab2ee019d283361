/**
 * Reversible encoding of user-supplied object keys for BSON storage (docs/adr/0003-mongo-document-layout.md).
 *
 * MongoDB (and more strictly FerretDB v1) refuse field names that contain `.`, start with `$` or contain
 * NUL, and treat `.` as a path separator in queries. Every key of a stored document is encoded:
 *   `%` → `%25`, `.` → `%2E`, `$` → `%24`, NUL → `%00`, and the empty key → `%`.
 * `%` is always escaped, so every `%` in an encoded key starts one of those escapes (or is the whole
 * empty-key marker): decoding is unambiguous. Keys without those characters are stored unchanged, so
 * ordinary documents stay readable in the database and queries on them need no translation beyond
 * `encodeKey(field)`.
 */

const NEEDS_ENCODING = /[%.$\u0000]/;
const ENCODE = /[%.$\u0000]/g;
const DECODE = /%(25|2E|24|00)/g;
const ESCAPES: Readonly<Record<string, string>> = { '%': '%25', '.': '%2E', $: '%24', '\u0000': '%00' };
const UNESCAPES: Readonly<Record<string, string>> = { '25': '%', '2E': '.', '24': '$', '00': '\u0000' };

export function encodeKey(key: string): string {
  if (key === '') return '%';
  if (!NEEDS_ENCODING.test(key)) return key;
  return key.replace(ENCODE, (c) => ESCAPES[c]!);
}

export function decodeKey(key: string): string {
  if (key === '%') return '';
  if (!key.includes('%')) return key;
  return key.replace(DECODE, (_, hex: string) => UNESCAPES[hex]!);
}

/**
 * The wrapper of an array held directly in an array (`[[a], [b]]` is stored `[{"%a": [a]}, {"%a": [b]}]`):
 * FerretDB refuses nested arrays ("nested arrays are not supported"). No encoded key is `%a` (every `%` of one
 * starts `%25`, `%2E`, `%24` or `%00`, or is the whole empty key), so the wrapper never meets user data.
 */
const NESTED = '%a';

/**
 * Encodes every key of a JSON value, recursively. Like JSON, `undefined` members are dropped and
 * `undefined` array items become null (BSON would otherwise store them as null or refuse them). An array
 * directly inside an array is wrapped (see `NESTED`).
 */
export function encodeDoc(value: unknown): unknown {
  if (Array.isArray(value))
    return value.map((v) => (v === undefined ? null : Array.isArray(v) ? { [NESTED]: encodeDoc(v) } : encodeDoc(v)));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined) continue;
      // defineProperty: a user key "__proto__" must stay an own property, never become a prototype.
      Object.defineProperty(out, encodeKey(k), {
        value: encodeDoc(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** The inverse of `encodeDoc`: a fresh plain JSON value (documents hand out copies). */
export function decodeDoc(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeDoc);
  if (value !== null && typeof value === 'object') {
    const nested = (value as Record<string, unknown>)[NESTED];
    if (Array.isArray(nested) && Object.keys(value).length === 1) return nested.map(decodeDoc);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      Object.defineProperty(out, decodeKey(k), {
        value: decodeDoc(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
