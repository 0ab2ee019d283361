/** Any JSON value as display text (objects as JSON, never "[object Object]"). */
export const str = (v: unknown, fallback = ''): string =>
  v === undefined || v === null
    ? fallback
    : typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : JSON.stringify(v);
