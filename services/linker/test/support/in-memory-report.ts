import { extractSource, type SourceFile } from '../../src/domain/extract/index';
import { type LinkReport, buildReport } from '../../src/domain/report';

/** The report of in-memory sources: source name → (path → text). */
export async function reportOf(app: Record<string, Record<string, string>>): Promise<LinkReport> {
  const facts = [];
  for (const [name, files] of Object.entries(app)) {
    const list: SourceFile[] = Object.entries(files).map(([path, text]) => ({
      path,
      read: () => Promise.resolve(text),
    }));
    facts.push(await extractSource(name, list));
  }
  return buildReport(facts, { application: 'app' });
}

/** The API table as `caller | calls | served by` rows. */
export const rows = (r: LinkReport): string[] => r.table.map((t) => `${t.caller} | ${t.calls} | ${t.servedBy}`);

/** Unresolved calls with their evidence and reason. */
export const unresolved = (r: LinkReport): string[] =>
  r.unresolvedCalls.map(
    (u) => `${u.caller.source} ${u.caller.file}:${u.caller.line} ${u.calls} — ${u.reason}: ${u.detail}`,
  );

/** Messaging gaps with their side, evidence and reason. */
export const gaps = (r: LinkReport): string[] =>
  r.messagingGaps.map((g) => `${g.side} ${g.at.source} ${g.at.file}:${g.at.line} ${g.reason}`);
