import type { BusSummary, SourceFacts } from './model';

/**
 * Message-bus call sites instantiated with the summaries of the library methods they call (any attached
 * source: a shared library folder is a source like the services): a publish of `new OrderPaid(…)` through
 * a method summarised as "publishes to exchange X with the message's type name as routing key" is a
 * publish to X / `OrderPaid` at the call site; a call of a generic registration method summarised as
 * "binds queue Q to X with the type argument's name, and consumes Q" is that binding and consume at the
 * call site, Q named by the calling source's configuration. The report names the service's call site,
 * never the library's. Without a summary, MassTransit's convention: one exchange per message type
 * (publish), and a subscription `<Message, Handler>` binds a queue named after the handler to it.
 */
export function instantiateBusSites(sources: readonly SourceFacts[]): SourceFacts[] {
  const summaries = new Map<string, BusSummary[]>();
  for (const s of sources)
    for (const x of s.busSummaries ?? []) {
      const key = `${x.kind}:${x.method}`;
      const list = summaries.get(key) ?? [];
      if (!list.some((y) => y.exchange === x.exchange && y.queue === x.queue && y.typeIndex === x.typeIndex))
        list.push(x);
      summaries.set(key, list);
    }
  // An outbox publishes through the application's event bus: its one publish summary, when there is one.
  const publishAll = [...summaries.entries()].filter(([k]) => k.startsWith('publish:')).flatMap(([, v]) => v);
  const anyPublish = new Set(publishAll.map((x) => x.exchange)).size === 1 ? [publishAll[0]!] : undefined;
  return sources.map((s) => {
    const sites = s.busSites ?? [];
    if (sites.length === 0) return s;
    const publishes = [...s.publishes];
    const consumes = [...s.consumes];
    const bindings = [...s.bindings];
    const exchanges = [...s.exchanges];
    const queues = [...s.queues];
    const declared = new Set<string>();
    for (const site of sites) {
      if (site.kind === 'publish') {
        const sum = site.method === '*' ? anyPublish : summaries.get(`publish:${site.method}`);
        for (const type of site.types) {
          if (sum)
            for (const x of sum) publishes.push({ broker: x.broker, exchange: x.exchange, key: type, loc: site.loc });
          else publishes.push({ broker: 'rabbitmq', exchange: type, key: '', loc: site.loc });
        }
        continue;
      }
      const sum = summaries.get(`subscribe:${site.method}`);
      if (sum) {
        for (const x of sum) {
          const type = site.types[x.typeIndex ?? 0];
          if (!type || x.queue === undefined) continue;
          // Each subscription consumes the queue; the report names the one whose binding routed the message.
          bindings.push({ exchange: x.exchange, queue: x.queue, key: type, loc: site.loc });
          consumes.push({ broker: x.broker, queue: x.queue, loc: site.loc });
          if (!declared.has(x.queue)) {
            declared.add(x.queue);
            queues.push({ name: x.queue, loc: site.loc });
          }
        }
      } else if (site.method === 'AddSubscription' && site.types.length === 2) {
        const [message, handler] = site.types as [string, string];
        exchanges.push({ name: message, type: 'fanout', loc: site.loc });
        queues.push({ name: handler, loc: site.loc });
        bindings.push({ exchange: message, queue: handler, key: '', loc: site.loc });
        consumes.push({ broker: 'rabbitmq', queue: handler, loc: site.loc });
      }
    }
    return { ...s, publishes, consumes, bindings, exchanges, queues };
  });
}
