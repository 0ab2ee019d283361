import type { Loc } from '../model';
import type { Sink } from './common';

/**
 * Laravel queued jobs (`extract/laravel.ts`): a class implementing `ShouldQueue` is a job its source's queue
 * worker (`php artisan queue:work`) runs; the job's payload names its class, so a dispatch of class `X` in one
 * service reaches the class of the same fully-qualified name in any service reading that queue. Read from the
 * text of PHP files that mention the idioms (one linear pass, no parse of its own):
 *
 * - consumers: `class X implements …ShouldQueue…`, named `Namespace\X`, at its `handle()`; the queue and
 *   connection the class declares (`$queue`/`$connection` properties, `$this->onQueue(…)`/`onConnection(…)`);
 *   a queued listener also names the event its `handle(E $event)` takes (Consume.types);
 * - producers: `X::dispatch(…)`/`dispatchIf`/`dispatchUnless`, `dispatch(new X)` (also `$this->dispatch`,
 *   `Bus::dispatch`, `Bus::dispatchToQueue`), `Queue::push/later/pushOn/laterOn(new X)` (also on
 *   `Queue::connection('c')`), a job held in a variable (`$job = new X; dispatch($job)`), with `->onQueue('q')`
 *   and `->onConnection('c')` on the dispatch or the job; the class resolved through the file's `use` imports and
 *   namespace; events (`E::dispatch(…)`, `event(new E)`, `Event::dispatch(new E)`) are published by class too and
 *   become, when linking, the jobs of the dispatching source's queued listeners of E. Synchronous forms (`dispatchSync`, `dispatchNow`, `->afterResponse()`) run in the process: no message;
 * - `config/queue.php`: the default connection and each connection's driver and queue, as configuration entries
 *   (`env('X', 'd')` kept as `${X:d}`, resolved when linking with the source's `.env`).
 */

/** Configuration keys of `config/queue.php` (relaxed keys of the source's configuration). */
export const LARAVEL_DEFAULT_CONNECTION = 'laravel.queue.default';
export const LARAVEL_CONNECTION = 'laravel.queue.connections.';

const MARKERS = /ShouldQueue|::\s*dispatch(?:If|Unless)?\s*\(|\bdispatch(?:ToQueue)?\s*\(|Queue::|'connections'\s*=>/;

/**
 * The text with its comments blanked (`//`, `#` but not a `#[…]` attribute, `/* … *\/`), strings left as they are and
 * every offset and line kept: a dispatch or job class commented out is none. One linear pass.
 */
export function phpWithoutComments(text: string): string {
  const out: string[] = [];
  let from = 0;
  const blank = (a: number, b: number): void => {
    out.push(text.slice(from, a), text.slice(a, b).replace(/[^\n]/g, ' '));
    from = b;
  };
  for (let i = 0; i < text.length;) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === '\\' ? 2 : 1;
      i = j + 1;
    } else if ((c === '#' && text[i + 1] !== '[') || (c === '/' && text[i + 1] === '/')) {
      const e = text.indexOf('\n', i);
      const end = e < 0 ? text.length : e;
      blank(i, end);
      i = end;
    } else if (c === '/' && text[i + 1] === '*') {
      const e = text.indexOf('*/', i + 2);
      const end = e < 0 ? text.length : e + 2;
      blank(i, end);
      i = end;
    } else i++;
  }
  out.push(text.slice(from));
  return out.join('');
}

/** The end of a string, comment or bracket group starting at `i` (`text[i]` one of `'"([{`), or -1. */
function skipOver(text: string, i: number): number {
  const open = text[i]!;
  if (open === "'" || open === '"') {
    for (let j = i + 1; j < text.length; j++) {
      if (text[j] === '\\') j++;
      else if (text[j] === open) return j + 1;
    }
    return -1;
  }
  const close = open === '(' ? ')' : open === '[' ? ']' : '}';
  let depth = 0;
  for (let j = i; j < text.length && j < i + 200_000; j++) {
    const c = text[j]!;
    if (c === "'" || c === '"') {
      const k = skipOver(text, j);
      if (k < 0) return -1;
      j = k - 1;
    } else if (c === '/' && text[j + 1] === '/') {
      const k = text.indexOf('\n', j);
      if (k < 0) return -1;
      j = k;
    } else if (c === '/' && text[j + 1] === '*') {
      const k = text.indexOf('*/', j + 2);
      if (k < 0) return -1;
      j = k + 1;
    } else if (c === open) depth++;
    else if (c === close && --depth === 0) return j + 1;
  }
  return -1;
}

/** The top-level comma-separated parts of the group opening at `open` (`(` or `[`), and where it ends. */
function groupParts(text: string, open: number): { parts: string[]; end: number } | undefined {
  const end = skipOver(text, open);
  if (end < 0) return undefined;
  const parts: string[] = [];
  let from = open + 1;
  for (let j = open + 1; j < end - 1; j++) {
    const c = text[j]!;
    if (c === "'" || c === '"' || c === '(' || c === '[' || c === '{') {
      const k = skipOver(text, j);
      if (k < 0 || k > end) return undefined;
      j = k - 1;
    } else if (c === ',') {
      parts.push(text.slice(from, j).trim());
      from = j + 1;
    }
  }
  const last = text.slice(from, end - 1).trim();
  if (last) parts.push(last);
  return { parts, end };
}

/** A PHP value as the linker keeps a name: a string literal, `env('X'[, 'd'])` as `${X[:d]}`, else `{}`. */
function phpValue(expr: string): string {
  const e = expr.trim();
  const lit = /^'([^'\\]*)'$|^"([^"\\$]*)"$/.exec(e);
  if (lit) return lit[1] ?? lit[2]!;
  const env = /^(?:env|getenv)\(\s*['"](\w+)['"]\s*(?:,\s*(?:'([^'\\]*)'|"([^"\\$]*)"|null)\s*)?\)$/i.exec(e);
  if (env) {
    const d = env[2] ?? env[3];
    return d === undefined ? `\${${env[1]!}}` : `\${${env[1]!}:${d}}`;
  }
  return '{}';
}

/** A PHP array's `'key' => value` entries (top level). */
function arrayEntries(text: string, open: number): { key: string; value: string; at: number }[] {
  const g = groupParts(text, open);
  if (!g) return [];
  const out: { key: string; value: string; at: number }[] = [];
  for (const p of g.parts) {
    const m = /^['"]([\w.-]+)['"]\s*=>\s*([\s\S]*)$/.exec(p);
    if (m) out.push({ key: m[1]!, value: m[2]!, at: text.indexOf(p, open) });
  }
  return out;
}

/** `config/queue.php`: `'default' => …` and each connection's `driver` and `queue`. */
function queueConfig(text: string, path: string, sink: Sink, line: (i: number) => number): void {
  const start = /\breturn\s*\[/.exec(text);
  if (!start) return;
  const top = arrayEntries(text, start.index + start[0].length - 1);
  const loc = (at: number): Loc => ({ file: path, line: line(at) });
  for (const e of top) {
    if (e.key === 'default') {
      const v = phpValue(e.value);
      if (v !== '{}') sink.facts.config.push({ key: LARAVEL_DEFAULT_CONNECTION, value: v, loc: loc(e.at) });
    }
    if (e.key !== 'connections' || !e.value.startsWith('[')) continue;
    const at = text.indexOf(e.value, e.at);
    for (const c of arrayEntries(text, at)) {
      if (!c.value.startsWith('[')) continue;
      for (const f of arrayEntries(text, text.indexOf(c.value, c.at))) {
        if (f.key !== 'driver' && f.key !== 'queue') continue;
        const v = phpValue(f.value);
        if (v !== '{}')
          sink.facts.config.push({ key: `${LARAVEL_CONNECTION}${c.key}.${f.key}`, value: v, loc: loc(f.at) });
      }
    }
  }
}

/** The file's namespace and `use` imports: a class name as written → its fully-qualified name. */
function classResolver(text: string): (name: string) => string {
  const ns = /^[ \t]*namespace\s+([\w\\]+)\s*[;{]/m.exec(text)?.[1] ?? '';
  const uses = new Map<string, string>();
  // Bounded: a `use` with no `;` after it (prose, a template) must not scan the rest of the file once per line.
  for (const m of text.matchAll(/^[ \t]*use\s+([^;]{1,2000});/gm)) {
    const decl = m[1]!.trim();
    // Group use: `use App\Jobs\{A, B as C};`
    const group = /^\\?([\w\\]+)\\\{([^}]*)\}$/.exec(decl);
    const items = group
      ? group[2]!.split(',').map((x) => `${group[1]!}\\${x.trim()}`)
      : decl.includes(',')
        ? decl.split(',').map((x) => x.trim())
        : [decl];
    for (const item of items) {
      const a = /^\\?([\w\\]+?)(?:\s+as\s+(\w+))?$/i.exec(item.trim());
      if (!a || /^(function|const)\b/.test(item)) continue;
      // The file's imports come first; a class body's trait `use A, B;` does not rename them.
      const alias = a[2] ?? a[1]!.split('\\').pop()!;
      if (!uses.has(alias)) uses.set(alias, a[1]!);
    }
  }
  return (name) => {
    if (name.startsWith('\\')) return name.slice(1);
    const [head, ...rest] = name.split('\\');
    const imported = uses.get(head!);
    if (imported) return [imported, ...rest].join('\\');
    return ns ? `${ns}\\${name}` : name;
  };
}

/** The queue and connection a chain of calls names (`->onQueue('q')->onConnection('c')`), and `afterResponse`. */
function chained(text: string): { queue?: string; connection?: string; sync: boolean } {
  const arg = (method: string): string | undefined => {
    const m = new RegExp(String.raw`->\s*${method}\s*\(`).exec(text);
    const g = m ? groupParts(text, m.index + m[0].length - 1) : undefined;
    return g?.parts[0] !== undefined ? phpValue(g.parts[0]) : undefined;
  };
  const queue = arg('onQueue');
  const connection = arg('onConnection');
  return {
    ...(queue ? { queue } : {}),
    ...(connection ? { connection } : {}),
    sync: /->\s*afterResponse\s*\(/.test(text),
  };
}

/** The calls chained after `end` (`->onQueue(…)->delay(…)`): their text and where they end. */
function chainAfter(text: string, end: number): string {
  let j = end;
  for (let n = 0; n < 8; n++) {
    const m = /^\s*->\s*\w+\s*\(/.exec(text.slice(j, j + 200));
    if (!m) break;
    const close = skipOver(text, j + m[0].length - 1);
    if (close < 0) break;
    j = close;
  }
  return text.slice(end, j);
}

export function laravelJobs(raw: string, path: string, sink: Sink, line: (i: number) => number): void {
  if (!path.endsWith('.php') || !MARKERS.test(raw)) return;
  const text = phpWithoutComments(raw);
  const loc = (i: number): Loc => ({ file: path, line: line(i) });
  if (/(^|\/)config\/queue\.php$/.test(path)) return queueConfig(text, path, sink, line);
  const resolve = classResolver(text);

  // Consumers: queued job classes, at their handle().
  for (const m of text.matchAll(/\bclass\s+(\w+)\b([^{;]{0,500})\{/g)) {
    const implemented = /\bimplements\s+([^{]*)/.exec(m[2]!)?.[1] ?? '';
    if (!/(^|[\s,\\])ShouldQueue\b/.test(implemented)) continue;
    const open = m.index + m[0].length - 1;
    const end = skipOver(text, open);
    const body = text.slice(open, end < 0 ? text.length : end);
    const handle = /\bfunction\s+handle\s*\(/.exec(body);
    const prop = (name: string): string | undefined => {
      const p = new RegExp(
        String.raw`\$${name}\s*=\s*([^;]+);|\$this\s*->\s*on${name[0]!.toUpperCase()}${name.slice(1)}\s*\(\s*([^()]*?)\s*\)`,
      ).exec(body);
      const v = p ? phpValue(p[1] ?? p[2]!) : undefined;
      return v && v !== '{}' ? v : undefined;
    };
    const queue = prop('queue');
    const connection = prop('connection');
    // A queued listener's event: the class its handle() takes (`handle(OrderShipped $event)`).
    const param = handle ? /^\s*\??(\\?[A-Z][\w\\]*)\s+\$/.exec(body.slice(handle.index + handle[0].length)) : null;
    const types = param ? [resolve(param[1]!)] : undefined;
    sink.consume('laravel', resolve(m[1]!), loc(handle ? open + handle.index : m.index), undefined, types, {
      ...(queue ? { taskQueue: queue } : {}),
      ...(connection ? { connection } : {}),
    });
  }

  // Jobs held in variables: `$job = new X(…)` (the last assignment before a use).
  const held = [...text.matchAll(/\$(\w+)\s*=\s*\(?\s*new\s+(\\?[A-Za-z_][\w\\]*)/g)];
  const jobOf = (expr: string, at: number): { cls: string; rest: string } | undefined => {
    const n = /^\(?\s*new\s+(\\?[A-Za-z_][\w\\]*)/.exec(expr);
    if (n) return { cls: resolve(n[1]!), rest: expr.slice(n[0].length) };
    const v = /^\$(\w+)\b/.exec(expr);
    if (!v) return undefined;
    // Within the method around the use (a closure in it shares its `$job`): another method's is not this one.
    let fnStart = text.lastIndexOf('function', at);
    while (fnStart > 0 && !/^function\s+&?\s*\w/.test(text.slice(fnStart, fnStart + 80)))
      fnStart = text.lastIndexOf('function', fnStart - 1);
    const h = held.filter((x) => x[1] === v[1] && x.index < at && x.index > fnStart).pop();
    if (!h) return undefined;
    // The variable's own chain (`$job = (new X)->onQueue('q')`) up to the statement's end.
    const stmt = text.slice(h.index, text.indexOf(';', h.index) + 1 || h.index + 300);
    return { cls: resolve(h[2]!), rest: stmt + expr.slice(v[0].length) };
  };
  const emit = (cls: string, at: number, chain: string, queue?: string, connection?: string): void => {
    const c = chained(chain);
    if (c.sync) return;
    const q = c.queue ?? queue;
    const conn = c.connection ?? connection;
    sink.publish('laravel', q ?? '', cls, loc(at), undefined, undefined, undefined, undefined, conn);
  };

  // `X::dispatch(…)`, `X::dispatchIf(cond, …)`, `X::dispatchUnless(cond, …)`.
  for (const m of text.matchAll(
    /(?<![\w\\$>:])(\\?[A-Z]\w*(?:\\\w+)*)\s*::\s*(?:dispatch|dispatchIf|dispatchUnless)\s*\(/g,
  )) {
    const name = m[1]!.replace(/^\\/, '').split('\\').pop()!;
    if (/^(Bus|Event|Queue|self|static|parent)$/.test(name)) continue;
    const g = groupParts(text, m.index + m[0].length - 1);
    if (!g) continue;
    emit(resolve(m[1]!), m.index, chainAfter(text, g.end));
  }

  // `dispatch(new X)`, `$this->dispatch($job)`, `Bus::dispatch(…)`, `Bus::dispatchToQueue(…)`.
  for (const m of text.matchAll(
    /(?<![\w$>:\\])(?:(?:\$this|Bus|\\?Illuminate\\Support\\Facades\\Bus)\s*(?:->|::)\s*)?(dispatch|dispatchToQueue)\s*\(/g,
  )) {
    const before = text.slice(Math.max(0, m.index - 16), m.index);
    // A method call on another object, or the declaration of a method named `dispatch`.
    if (/(->|::)$|\bfunction\s+&?\s*$/.test(before)) continue;
    const g = groupParts(text, m.index + m[0].length - 1);
    const job = g?.parts[0] !== undefined ? jobOf(g.parts[0], m.index) : undefined;
    if (!g || !job) continue;
    emit(job.cls, m.index, job.rest + chainAfter(text, g.end));
  }

  // Events: `event(new E)`, `Event::dispatch(new E)` (and `E::dispatch(…)` above): their queued listeners' jobs.
  for (const m of text.matchAll(
    /(?<![\w$>:\\])(?:event|(?:Event|\\?Illuminate\\Support\\Facades\\Event)\s*::\s*dispatch)\s*\(/g,
  )) {
    const g = groupParts(text, m.index + m[0].length - 1);
    const event = g?.parts[0] !== undefined ? jobOf(g.parts[0], m.index) : undefined;
    if (event) emit(event.cls, m.index, '');
  }

  // `Queue::push(job)`, `later(delay, job)`, `pushOn(queue, job)`, `laterOn(queue, delay, job)`, also on
  // `Queue::connection('c')->…`.
  for (const m of text.matchAll(
    /\bQueue\s*::\s*(?:connection\s*\(\s*([^()]*?)\s*\)\s*->\s*)?(push|later|pushOn|laterOn)\s*\(/g,
  )) {
    const g = groupParts(text, m.index + m[0].length - 1);
    if (!g) continue;
    const verb = m[2]!;
    const jobAt = verb === 'push' ? 0 : verb === 'later' || verb === 'pushOn' ? 1 : 2;
    const job = g.parts[jobAt] !== undefined ? jobOf(g.parts[jobAt], m.index) : undefined;
    if (!job) continue;
    const queue = verb.endsWith('On') ? phpValue(g.parts[0] ?? '') : undefined;
    emit(job.cls, m.index, job.rest, queue, m[1] ? phpValue(m[1]) : undefined);
  }
}
