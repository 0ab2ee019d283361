import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Per process log file: its warning and error lines counted by message, most frequent first, with when. */
export function logDigest(dir: string): string {
  const out: string[] = ['', 'warnings and errors per process (count, first and last time, message):'];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.log'))) {
    const counts = new Map<string, { n: number; first: string; last: string }>();
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line.startsWith('{')) continue;
      let rec: { level?: unknown; msg?: unknown; time?: unknown; err?: { message?: unknown }; error?: unknown };
      try {
        rec = JSON.parse(line) as typeof rec;
      } catch {
        continue;
      }
      if (rec.level !== 'warn' && rec.level !== 'error' && rec.level !== 'fatal') continue;
      const why = String(rec.err?.message ?? rec.error ?? '').slice(0, 120);
      const key = `${String(rec.level)} ${String(rec.msg)}${why ? ` (${why})` : ''}`;
      const at = String(rec.time ?? '').slice(11, 23);
      const c = counts.get(key);
      if (c) {
        c.n += 1;
        c.last = at;
      } else counts.set(key, { n: 1, first: at, last: at });
    }
    out.push(`- ${file}:`);
    for (const [key, c] of [...counts].sort((a, b) => b[1].n - a[1].n).slice(0, 15))
      out.push(`    ${c.n} × ${c.first}–${c.last} ${key}`);
  }
  return `${out.join('\n')}\n`;
}
