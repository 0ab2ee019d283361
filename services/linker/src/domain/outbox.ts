import type { SourceFacts } from './model';

/**
 * A message outbox (C#): a library saves each message with its type's name into a table and later publishes
 * what it reads back, its type rebuilt from that name (`Type.GetType(name)`), through the bus. The publish the
 * broker sees is then the type of what was saved: a call of one of the outbox's entry methods with a created
 * message (`_eventDispatcher.SendAsync(new UserCreated(…))`) is a publish of that type at the call site, through
 * the outbox's bus method (MassTransit's `Publish`: the type's exchange, `bus.ts`). The outbox's own publish, of a
 * run-time type, is then no gap of its own. Domain events (`…DomainEvent`) stay in the process: a library maps
 * them to integration events before they reach the outbox, and that mapping is not followed. Entries are
 * matched by method name; the library's own calls of them are not sites.
 */
export function instantiateOutboxes(sources: readonly SourceFacts[]): SourceFacts[] {
  const entries = new Map<string, string>();
  for (const s of sources)
    for (const name of s.outboxEntries ?? []) entries.set(name, s.outboxPublishes?.[0]?.method ?? 'Publish');
  if (entries.size === 0) return [...sources];
  return sources.map((s) => {
    // The outbox library's own calls of its entries hand on run-time messages (`new MessageEnvelope(evt)`).
    const sites = s.outboxEntries?.length ? [] : (s.outboxSites ?? []).filter((x) => entries.has(x.name));
    const own = new Set((s.outboxPublishes ?? []).map((p) => `${p.loc.file}:${p.loc.line}`));
    if (sites.length === 0 && own.size === 0) return s;
    const busSites = [...(s.busSites ?? [])];
    for (const site of sites) {
      const types = site.types.filter((t) => !/DomainEvent$/.test(t));
      if (types.length) busSites.push({ kind: 'publish', method: entries.get(site.name)!, types, loc: site.loc });
    }
    return {
      ...s,
      busSites,
      publishes: s.publishes.filter((p) => !own.has(`${p.loc.file}:${p.loc.line}`)),
    };
  });
}
