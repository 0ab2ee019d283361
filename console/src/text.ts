/** Any JSON value as display text (objects as JSON, never "[object Object]"). */
export const str = (v: unknown, fallback = ''): string =>
  v === undefined || v === null
    ? fallback
    : typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : JSON.stringify(v);

const pad = (n: number): string => String(n).padStart(2, '0');

/**
 * An ISO instant as the user's local date (`YYYY-MM-DD`), or with the time (`YYYY-MM-DD HH:MM`). Local, like the
 * date picker a key's expiry is chosen with: the expiry is the end of the picked day in the user's time zone,
 * so a UTC slice would show the next day west of Greenwich.
 */
export function localDate(iso: string | null | undefined, withTime = false): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return withTime ? `${day} ${pad(d.getHours())}:${pad(d.getMinutes())}` : day;
}
