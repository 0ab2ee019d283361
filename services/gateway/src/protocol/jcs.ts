/**
 * The JSON Canonicalization Scheme (RFC 8785): object members sorted by their names' UTF-16 code units, no
 * whitespace, numbers and strings as ECMAScript's JSON.stringify writes them (RFC 8785 section 3.2.2 is
 * defined by it). Values JSON cannot carry (NaN, Infinity, lone surrogates, undefined in an array,
 * functions, bigints) are refused: a signature over them would not verify elsewhere.
 */
export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('JCS: a number must be finite');
      return JSON.stringify(value); // -0 becomes "0", as RFC 8785 requires
    case 'string':
      if (!isWellFormed(value)) throw new TypeError('JCS: a string must not hold a lone surrogate');
      return JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        return `[${value
          .map((v: unknown) => {
            if (v === undefined) throw new TypeError('JCS: an array must not hold undefined');
            return canonicalJson(v);
          })
          .join(',')}]`;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) throw new TypeError('JCS: only plain objects are JSON objects');
      const record = value as Record<string, unknown>;
      // Array.prototype.sort without a comparator compares UTF-16 code units: RFC 8785 section 3.2.3.
      const names = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort();
      return `{${names
        .map((k) => {
          if (!isWellFormed(k)) throw new TypeError('JCS: a member name must not hold a lone surrogate');
          return `${JSON.stringify(k)}:${canonicalJson(record[k])}`;
        })
        .join(',')}}`;
    }
    default:
      throw new TypeError(`JCS: a ${typeof value} is not a JSON value`);
  }
}

/** String.prototype.isWellFormed (Node 20 has it; the lib typings of ES2022 do not). */
function isWellFormed(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}
