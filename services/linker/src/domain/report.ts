import type { Evidence, LinkResult, MessagingGap, SharedData, UnresolvedCall, UsedBinding } from './link';
import { describeBinding, link } from './link';
import type { SourceFacts } from './model';
import { type ServiceMap, buildServiceMap, renderMermaid } from './service-map';

export const EMPTY_STATE =
  'No call or message crosses a repository boundary. Both outcomes are legitimate: the application may have a single source, or its services may simply not call each other.';

export const KAFKA_NOTE =
  'Kafka has no exchanges: a topic is its own binding, so each topic with a producer and a consumer in different repositories counts as one queue binding.';

export const CHANNEL_NOTE =
  'Celery tasks, Bull queues, NATS subjects, SQS queues, SNS topics, Dapr topics, Sidekiq workers, Dramatiq actors, RQ queues, Laravel queued jobs and Rails Active Jobs (by class) are routed by name: a producer and a consumer of the same name (a NATS subscription by subject wildcard) form a flow, and the name counts as one queue binding.';

export interface ReportRow {
  readonly caller: string;
  readonly calls: string;
  readonly servedBy: string;
  readonly match: string;
}

export interface Statistics {
  readonly apiLinks: number;
  readonly messageFlows: number;
  readonly queueBindings: number;
  readonly unresolvedCalls: number;
  readonly messagingGaps: number;
  readonly sharedData: number;
}

export interface LinkReport {
  readonly application: string;
  readonly sources: readonly string[];
  /** Rule 6: false when the application has one source or its ingest predates the link stage. */
  readonly linked: boolean;
  readonly notLinkedReason?: string;
  readonly statistics: Statistics;
  /** API links first, then message flows; each row's cells carry `source file:line` evidence. */
  readonly table: readonly ReportRow[];
  readonly emptyState?: string;
  readonly queueBindings: readonly UsedBinding[];
  readonly unresolvedCalls: readonly UnresolvedCall[];
  readonly messagingGaps: readonly MessagingGap[];
  readonly sharedData: readonly SharedData[];
  readonly notes: readonly string[];
  /** Files read but not analysed (a parse over its time budget), by source; absent when none. */
  readonly skippedFiles?: readonly SkippedSourceFile[];
  /** The links as a graph (console SVG, Markdown Mermaid); reports stored before issue 20 have none. */
  readonly map?: ServiceMap;
}

export interface SkippedSourceFile {
  readonly source: string;
  readonly file: string;
  readonly reason: string;
}

export const evidence = (e: Evidence): string => `${e.source} ${e.file}:${e.line}`;

export interface ReportOptions {
  readonly application: string;
  /** Set when the version is not linked for a reason other than having one source (rule 6). */
  readonly notLinkedReason?: string;
}

export function buildReport(sources: readonly SourceFacts[], options: ReportOptions): LinkReport {
  const names = sources.map((s) => s.source).sort();
  const reason = options.notLinkedReason ?? (sources.length < 2 ? 'the application has one source' : undefined);
  const result: LinkResult = reason ? { links: [], bindings: [], unresolved: [], gaps: [], shared: [] } : link(sources);
  const statistics: Statistics = {
    apiLinks: result.links.filter((l) => l.kind === 'api').length,
    messageFlows: result.links.filter((l) => l.kind === 'message').length,
    queueBindings: result.bindings.length,
    unresolvedCalls: result.unresolved.length,
    messagingGaps: result.gaps.length,
    sharedData: result.shared.length,
  };
  const table = result.links.map((l) => ({
    caller: evidence(l.caller),
    calls: l.calls,
    servedBy: `${evidence(l.servedBy)} ${l.served}`,
    match: l.match,
  }));
  const skippedFiles = sources.flatMap((s) =>
    (s.skippedFiles ?? []).map((f) => ({ source: s.source, file: f.path, reason: f.reason })),
  );
  const notes: string[] = [];
  if (
    sources.some((s) => s.publishes.some((p) => p.broker === 'kafka') || s.consumes.some((c) => c.broker === 'kafka'))
  )
    notes.push(KAFKA_NOTE);
  const channel = (b: string): boolean => b !== 'kafka' && b !== 'rabbitmq';
  if (sources.some((s) => s.publishes.some((p) => channel(p.broker)) || s.consumes.some((c) => channel(c.broker))))
    notes.push(CHANNEL_NOTE);
  return {
    application: options.application,
    sources: names,
    linked: reason === undefined,
    ...(reason !== undefined ? { notLinkedReason: reason } : {}),
    statistics,
    table,
    ...(table.length === 0 ? { emptyState: EMPTY_STATE } : {}),
    queueBindings: result.bindings,
    unresolvedCalls: result.unresolved,
    messagingGaps: result.gaps,
    sharedData: result.shared,
    notes,
    ...(skippedFiles.length ? { skippedFiles } : {}),
    map: buildServiceMap(names, result),
  };
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderMarkdown(r: LinkReport): string {
  const out: string[] = [];
  out.push(`# Link report: ${r.application}`, '');
  out.push(`Sources: ${r.sources.length ? r.sources.map((s) => `\`${s}\``).join(', ') : '(none)'}`, '');
  if (!r.linked) out.push(`> Not linked: ${r.notLinkedReason ?? ''}.`, '');
  const s = r.statistics;
  out.push('| Statistic | Count |', '|---|---|');
  out.push(`| API links | ${s.apiLinks} |`);
  out.push(`| Message flows | ${s.messageFlows} |`);
  out.push(`| Queue bindings | ${s.queueBindings} |`);
  out.push(`| Unresolved calls | ${s.unresolvedCalls} |`);
  out.push(`| Messaging gaps | ${s.messagingGaps} |`);
  out.push(`| Shared data | ${s.sharedData} |`, '');
  if (r.linked && r.map && r.map.edges.length) {
    out.push('## Service map', '', '```mermaid', renderMermaid(r.map), '```', '');
  }
  out.push('## Links', '');
  if (r.emptyState) out.push(r.emptyState, '');
  else {
    out.push('| Caller | Calls | Served by | Match |', '|---|---|---|---|');
    for (const row of r.table)
      out.push(`| ${cell(row.caller)} | ${cell(row.calls)} | ${cell(row.servedBy)} | ${cell(row.match)} |`);
    out.push('');
  }
  if (r.queueBindings.length) {
    out.push('## Queue bindings', '');
    for (const b of r.queueBindings) out.push(`- ${describeBinding(b)} (${evidence(b.at)})`);
    out.push('');
  }
  out.push('## Findings', '', 'Findings are not failures.', '');
  out.push('### Unresolved calls', '');
  if (r.unresolvedCalls.length === 0) out.push('None.');
  for (const u of r.unresolvedCalls) {
    const cands = u.candidates.length ? ` (${u.candidates.map(evidence).join('; ')})` : '';
    out.push(`- ${evidence(u.caller)} — ${u.calls} — ${u.reason}: ${u.detail}${cands}`);
  }
  out.push('', '### Messaging gaps', '');
  if (r.messagingGaps.length === 0) out.push('None.');
  for (const g of r.messagingGaps) out.push(`- ${g.side} ${evidence(g.at)} — ${g.what} — ${g.reason}`);
  out.push('', '### Shared data', '');
  if (r.sharedData.length === 0) out.push('None.');
  for (const d of r.sharedData) out.push(`- ${d.store}: ${d.touchedBy.map(evidence).join('; ')}`);
  if (r.skippedFiles?.length) {
    out.push(
      '',
      '### Skipped files',
      '',
      'Read but not analysed: their calls, routes and messages are missing above.',
      '',
    );
    for (const f of r.skippedFiles) out.push(`- ${f.source} ${f.file} — ${f.reason}`);
  }
  if (r.notes.length) {
    out.push('', '## Notes', '');
    for (const n of r.notes) out.push(`- ${n}`);
  }
  out.push('');
  return out.join('\n');
}
