import type { BusSummary, SourceFacts } from './model';

/**
 * Message-bus call sites instantiated with the summaries of the library methods they call (any attached
 * source: a shared library folder is a source like the services): a publish of `new OrderPaid(…)` through
 * a method summarised as "publishes to exchange X with the message's type name as routing key" is a
 * publish to X / `OrderPaid` at the call site; a call of a generic registration method summarised as
 * "binds queue Q to X with the type argument's name, and consumes Q" is that binding and consume at the
 * call site, Q named by the calling source's configuration. The report names the service's call site,
 * never the library's. Without a summary, MassTransit's convention: one exchange per message type, named
 * `Namespace:Type` when an attached source declares the type (publish), and each `IConsumer<T>` a receive
 * endpoint (a queue named by the source's endpoint name formatter, or its `ReceiveEndpoint`) bound to it;
 * a subscription `<Message, Handler>` binds a queue named after the handler the same way. NServiceBus's
 * conventional routing topology: endpoint queues and exchanges, `Namespace.Type` event exchanges, commands
 * routed to an endpoint (`RouteToEndpoint`, `SetDestination`, `Send("Sales", …)`). EasyNetQ's conventions:
 * `Namespace.Type, Assembly` topic exchanges, `<exchange>_<subscriptionId>` queues bound with `#` or their topics.
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
  // MassTransit's message exchange: `Namespace:Type`, the namespace of the type's one declaration in the
  // attached sources (else the bare name: both sides of a flow must name it alike, written qualified or not).
  const namespaces = new Map<string, Set<string>>();
  for (const s of sources)
    for (const [type, ns] of Object.entries(s.typeNamespaces ?? {})) {
      const set = namespaces.get(type) ?? new Set<string>();
      set.add(ns);
      namespaces.set(type, set);
    }
  const messageExchange = (written: string): string => {
    const bare = written.replace(/<.*$/, '').replace(/^.*\./, '');
    const ns = namespaces.get(bare);
    return ns?.size === 1 ? `${[...ns][0]!}:${bare}` : bare;
  };
  // EasyNetQ names a message's exchange after its type name as its serializer writes it, `Namespace.Type, Assembly`.
  const assemblies = new Map<string, Set<string>>();
  for (const s of sources)
    for (const [type, asm] of Object.entries(s.typeAssemblies ?? {})) {
      const set = assemblies.get(type) ?? new Set<string>();
      set.add(asm);
      assemblies.set(type, set);
    }
  const easyExchange = (written: string): string => {
    const bare = written.replace(/<.*$/, '').replace(/^.*\./, '');
    const ns = namespaces.get(bare);
    const asm = assemblies.get(bare);
    if (ns?.size !== 1) return bare;
    return `${[...ns][0]!}.${bare}${asm?.size === 1 ? `, ${[...asm][0]!}` : ''}`;
  };
  // NServiceBus names a message's exchange after its full name, `Namespace.Type`.
  const nsbExchange = (written: string): string => {
    const bare = written.replace(/<.*$/, '').replace(/^.*\./, '');
    const ns = namespaces.get(bare);
    return ns?.size === 1 ? `${[...ns][0]!}.${bare}` : bare;
  };
  // A bus configured once in a shared library (an `AddMessageBroker` extension every service calls): its
  // endpoint name formatter, when the sources that set one agree.
  const formatters = new Set(
    sources.flatMap((s) =>
      (s.busSites ?? []).filter((x) => x.method === 'EndpointNameFormatter').map((x) => x.types[0]!),
    ),
  );
  const sharedFormatter = formatters.size === 1 ? [...formatters][0] : undefined;
  return sources.map((s) => {
    const sites = s.busSites ?? [];
    if (sites.length === 0) return s;
    const publishes = [...s.publishes];
    const consumes = [...s.consumes];
    const bindings = [...s.bindings];
    const exchanges = [...s.exchanges];
    const queues = [...s.queues];
    const declared = new Set<string>();
    const formatter = sites.find((x) => x.method === 'EndpointNameFormatter')?.types[0] ?? sharedFormatter;
    const explicit = new Map(
      sites.filter((x) => x.method === 'ReceiveEndpoint').map((x) => [x.types[1]!, x.types[0]!]),
    );
    // NServiceBus (RabbitMQ conventional routing topology): the endpoint's queue and fanout exchange are named
    // after it (`new EndpointConfiguration("Sales")`, else the source); a command is sent to the destination
    // endpoint's exchange; an event is published to the fanout exchange of its full type name, bound (through
    // the endpoint's exchange) to the queue of every endpoint with a handler of it.
    const nsbConfig = sites.find((x) => x.method === 'NsbEndpoint');
    const endpoint = nsbConfig?.types[0] ?? s.source;
    const routes = new Map(sites.filter((x) => x.method === 'NsbRoute').map((x) => [x.types[0]!, x.types[1]!]));
    let endpointDeclared = false;
    for (const site of sites) {
      if (site.method === 'NsbPublish' || site.method === 'NsbSend') {
        const [message, dest] = site.types as [string, string | undefined];
        const exchange = site.method === 'NsbPublish' ? nsbExchange(message) : (dest ?? routes.get(message) ?? '{}');
        publishes.push({ broker: 'rabbitmq', exchange, key: '', loc: site.loc, types: [message] });
        continue;
      }
      if (site.method === 'IHandleMessages') {
        const [message] = site.types as [string, string];
        if (!endpointDeclared) {
          endpointDeclared = true;
          const at = nsbConfig?.loc ?? site.loc;
          exchanges.push({ name: endpoint, type: 'fanout', loc: at });
          queues.push({ name: endpoint, loc: at });
          bindings.push({ exchange: endpoint, queue: endpoint, key: '', loc: at });
        }
        exchanges.push({ name: nsbExchange(message), type: 'fanout', loc: site.loc });
        bindings.push({ exchange: nsbExchange(message), queue: endpoint, key: '', loc: site.loc });
        consumes.push({ broker: 'rabbitmq', queue: endpoint, loc: site.loc, types: [message] });
        continue;
      }
      if (site.method === 'NsbEndpoint' || site.method === 'NsbRoute') continue;
      // EasyNetQ's conventions: a topic exchange per message type; a publish's routing key is its topic ('' by
      // default); a subscription's queue is `<type name>_<subscriptionId>`, bound with its topics, else `#`.
      if (site.method === 'EasyPublish') {
        const [message, topic] = site.types as [string, string];
        const exchange = easyExchange(message);
        exchanges.push({ name: exchange, type: 'topic', loc: site.loc });
        publishes.push({ broker: 'rabbitmq', exchange, key: topic, loc: site.loc, types: [message] });
        continue;
      }
      if (site.method === 'EasySubscribe') {
        const [message, id, ...topics] = site.types as [string, string, ...string[]];
        const exchange = easyExchange(message);
        const queue = `${exchange}_${id}`;
        exchanges.push({ name: exchange, type: 'topic', loc: site.loc });
        queues.push({ name: queue, loc: site.loc });
        for (const key of topics.length ? topics : ['#']) bindings.push({ exchange, queue, key, loc: site.loc });
        consumes.push({ broker: 'rabbitmq', queue, loc: site.loc, types: [message] });
        continue;
      }
      if (site.method === 'EasySend') {
        publishes.push({ broker: 'rabbitmq', exchange: '', key: site.types[0]!, loc: site.loc });
        continue;
      }
      if (site.method === 'EasyReceive') {
        queues.push({ name: site.types[0]!, loc: site.loc });
        consumes.push({ broker: 'rabbitmq', queue: site.types[0]!, loc: site.loc });
        continue;
      }
      if (site.kind === 'publish') {
        const sum = site.method === '*' ? anyPublish : summaries.get(`publish:${site.method}`);
        for (const type of site.types) {
          if (sum)
            for (const x of sum) publishes.push({ broker: x.broker, exchange: x.exchange, key: type, loc: site.loc });
          else publishes.push({ broker: 'rabbitmq', exchange: messageExchange(type), key: '', loc: site.loc });
        }
        continue;
      }
      if (site.method === 'IConsumer' && site.types.length === 2) {
        const [message, consumer] = site.types as [string, string];
        const exchange = messageExchange(message);
        const queue = explicit.get(consumer) ?? endpointName(consumer, formatter);
        exchanges.push({ name: exchange, type: 'fanout', loc: site.loc });
        queues.push({ name: queue, loc: site.loc });
        bindings.push({ exchange, queue, key: '', loc: site.loc });
        consumes.push({ broker: 'rabbitmq', queue, loc: site.loc });
        continue;
      }
      if (site.method === 'EndpointNameFormatter' || site.method === 'ReceiveEndpoint') continue;
      const sum = summaries.get(`subscribe:${site.method}`);
      if (sum) {
        for (const x of sum) {
          const type = site.types[x.typeIndex ?? 0];
          if (!type || x.queue === undefined) continue;
          // A queue the library names from what each service constructs it with (`new EventBus(…, queueName)`):
          // that service's own queue, written with the service's name in place of the unknown part.
          const queue = x.queue.includes('{}') ? x.queue.replace(/\{\}/g, `<${s.source}>`) : x.queue;
          // Each subscription consumes the queue; the report names the one whose binding routed the message.
          bindings.push({ exchange: x.exchange, queue, key: type, loc: site.loc });
          consumes.push({ broker: x.broker, queue, loc: site.loc });
          if (!declared.has(queue)) {
            declared.add(queue);
            queues.push({ name: queue, loc: site.loc });
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

/**
 * MassTransit's endpoint name for a consumer class: the name without its `Consumer` suffix, as is
 * (DefaultEndpointNameFormatter), or in kebab or snake case (`SubmitOrderConsumer` → `submit-order`).
 */
export function endpointName(consumer: string, formatter: string | undefined): string {
  const base = consumer.length > 'Consumer'.length ? consumer.replace(/Consumer$/, '') : consumer;
  if (formatter !== 'KebabCase' && formatter !== 'SnakeCase') return base;
  const words = base
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
  return formatter === 'KebabCase' ? words.replace(/_/g, '-') : words;
}
