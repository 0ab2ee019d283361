import type { Loc } from '../model';
import type { Sink } from './common';

/**
 * Rails Active Job (`extract/active-job.ts`): the serialised job names its class, and the worker of the queue
 * adapter (Sidekiq, Resque, …) in any service defining that class runs it. Read from the text of Ruby files:
 *
 * - consumers: `class X < ApplicationJob` / `< ActiveJob::Base`, at its `perform`; its `queue_as :q` and
 *   `self.queue_adapter = :a`;
 * - producers: `X.perform_later(…)` and `X.set(queue: :q, …).perform_later(…)` (`perform_now` runs in the process);
 * - the adapter: `config.active_job.queue_adapter = :sidekiq` (`config/application.rb`, `config/environments/*.rb`),
 *   as a configuration entry resolved when linking.
 */

/** The configuration key of `config.active_job.queue_adapter`. */
export const ACTIVE_JOB_ADAPTER = 'rails.active_job.queue_adapter';

const SYMBOL = String.raw`(?::(\w+)|['"]([\w.-]+)['"])`;

/**
 * The text with its comments blanked (`#` to the end of the line outside a string, `=begin` … `=end`), every offset
 * and line kept: a `perform_later` or job class commented out is none. One linear pass.
 */
function rubyWithoutComments(text: string): string {
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
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      i = j + 1;
    } else if (c === '#') {
      const e = text.indexOf('\n', i);
      const end = e < 0 ? text.length : e;
      blank(i, end);
      i = end;
    } else if (c === '=' && (i === 0 || text[i - 1] === '\n') && text.startsWith('=begin', i)) {
      const e = text.indexOf('\n=end', i);
      const end = e < 0 ? text.length : e + 5;
      blank(i, end);
      i = end;
    } else i++;
  }
  out.push(text.slice(from));
  return out.join('');
}

export function activeJobs(raw: string, path: string, sink: Sink, line: (i: number) => number): void {
  if (!path.endsWith('.rb') || !/ActiveJob|ApplicationJob|perform_later|active_job/.test(raw)) return;
  const text = rubyWithoutComments(raw);
  const loc = (i: number): Loc => ({ file: path, line: line(i) });
  for (const m of text.matchAll(new RegExp(String.raw`\bactive_job\.queue_adapter\s*=\s*${SYMBOL}`, 'g')))
    sink.facts.config.push({ key: ACTIVE_JOB_ADAPTER, value: m[1] ?? m[2]!, loc: loc(m.index) });
  const classes = [...text.matchAll(/^[ \t]*class\s+([\w:]+)\s*<\s*(?:ApplicationJob|ActiveJob::Base)\b/gm)];
  classes.forEach((m, i) => {
    const name = m[1]!.split('::').pop()!;
    // `class ApplicationJob < ActiveJob::Base` is the base of the jobs, no job of its own.
    if (name === 'ApplicationJob') return;
    const body = text.slice(m.index + m[0].length, classes[i + 1]?.index ?? text.length);
    const queue = new RegExp(String.raw`^[ \t]*queue_as\s*\(?\s*${SYMBOL}`, 'm').exec(body);
    const adapter = new RegExp(String.raw`\bself\.queue_adapter\s*=\s*${SYMBOL}`).exec(body);
    const perform = /^[ \t]*def\s+perform\b/m.exec(body);
    const q = queue ? (queue[1] ?? queue[2]) : undefined;
    const a = adapter ? (adapter[1] ?? adapter[2]) : undefined;
    sink.consume(
      'activejob',
      name,
      loc(perform ? m.index + m[0].length + perform.index : m.index),
      undefined,
      undefined,
      {
        ...(q ? { taskQueue: q } : {}),
        ...(a ? { connection: a } : {}),
      },
    );
  });
  // One `\s*` between the constant and `.set(…)`/`.perform_later`: two in a row were quadratic in a run of blanks.
  for (const m of text.matchAll(/\b([A-Z][\w:]*)\s*(?:\.set\(([^)]*)\)\s*)?\.\s*perform_later\b/g)) {
    const q = m[2] ? new RegExp(String.raw`\bqueue:\s*${SYMBOL}`).exec(m[2]) : null;
    sink.publish('activejob', q ? (q[1] ?? q[2]!) : '', m[1]!.split('::').pop()!, loc(m.index));
  }
}
