import type { BusSite, BusSummary, ExchangeType, SourceFacts } from './model';

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
  const sharedFormatterSite = sources
    .flatMap((s) => s.busSites ?? [])
    .find((x) => x.method === 'EndpointNameFormatter' && x.types[0] === sharedFormatter)?.types;
  return sources.map((s) => {
    const all = s.busSites ?? [];
    if (all.length === 0) return s;
    // A site under a configuration switch its settings turn off (`if (bool.Parse(configuration["UseSqs"]))` with
    // `"UseSqs": "false"` in every settings file of the source) is not deployed.
    const sites = all.some((x) => x.guards) ? all.filter((x) => deployed(s, x)) : all;
    const ofType = (method: string): Map<string, string> =>
      new Map(sites.filter((x) => x.method === method).map((x) => [x.types[0]!, x.types[1] ?? '']));
    // MassTransit topology of the source's bus: entity names, exchange types, routing-key formatters, endpoint
    // conventions of message types.
    const entityNames = ofType('MtEntityName');
    const exchangeKinds = ofType('MtExchangeType');
    const keyFormatted = ofType('MtRoutingKey');
    const conventions = ofType('MtConvention');
    const mtExchange = (type: string): string => {
      const bare = type.replace(/<.*$/, '').replace(/^.*\./, '');
      return entityNames.get(bare) ?? messageExchange(type);
    };
    const publishes = [...s.publishes];
    const consumes = [...s.consumes];
    const bindings = [...s.bindings];
    const exchanges = [...s.exchanges];
    const queues = [...s.queues];
    const declared = new Set<string>();
    const formatter = sites.find((x) => x.method === 'EndpointNameFormatter')?.types ?? sharedFormatterSite;
    const explicit = new Map(
      sites.filter((x) => x.method === 'ReceiveEndpoint').map((x) => [x.types[1]!, x.types[0]!]),
    );
    const noTopology = new Set(
      sites.filter((x) => x.method === 'ReceiveEndpoint' && x.types[2] === 'noTopology').map((x) => x.types[1]!),
    );
    // A MassTransit receive endpoint's queue has an exchange of its own name bound to it (where `Send` goes).
    const endpoints = new Set<string>();
    const endpoint = (queue: string, loc: BusSite['loc']): void => {
      if (endpoints.has(queue)) return;
      endpoints.add(queue);
      exchanges.push({ name: queue, type: 'fanout', loc });
      bindings.push({ exchange: queue, queue, key: '', loc });
    };
    // NServiceBus (RabbitMQ conventional routing topology): the endpoint's queue and fanout exchange are named
    // after it (`new EndpointConfiguration("Sales")`, else the source); a command is sent to the destination
    // endpoint's exchange; an event is published to the fanout exchange of its full type name, bound (through
    // the endpoint's exchange) to the queue of every endpoint with a handler of it.
    const nsbConfig = sites.find((x) => x.method === 'NsbEndpoint');
    const nsbEndpoint = nsbConfig?.types[0] ?? s.source;
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
          exchanges.push({ name: nsbEndpoint, type: 'fanout', loc: at });
          queues.push({ name: nsbEndpoint, loc: at });
          bindings.push({ exchange: nsbEndpoint, queue: nsbEndpoint, key: '', loc: at });
        }
        exchanges.push({ name: nsbExchange(message), type: 'fanout', loc: site.loc });
        bindings.push({ exchange: nsbExchange(message), queue: nsbEndpoint, key: '', loc: site.loc });
        consumes.push({ broker: 'rabbitmq', queue: nsbEndpoint, loc: site.loc, types: [message] });
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
          else {
            // MassTransit: the message type's exchange (renamed by `SetEntityName`, typed by `ExchangeType`),
            // with the routing key a `UseRoutingKeyFormatter` sets per message.
            const exchange = mtExchange(type);
            const kind = exchangeKinds.get(type);
            if (kind) exchanges.push({ name: exchange, type: kind as ExchangeType, loc: site.loc });
            if (keyFormatted.has(type))
              publishes.push({ broker: 'rabbitmq', exchange, key: '{}', anyKey: true, loc: site.loc });
            else publishes.push({ broker: 'rabbitmq', exchange, key: '', loc: site.loc });
          }
        }
        continue;
      }
      if (site.method === 'MtSend') {
        // `Send(msg)` on a send endpoint of an address, else the endpoint convention of its type (`queue:orders`),
        // else nowhere known.
        const address = site.types[1] ?? conventions.get(site.types[0]!);
        if (address !== undefined) {
          const exchange = address.includes('${') ? address : addressExchange(address);
          publishes.push({ broker: 'rabbitmq', exchange, key: '', loc: site.loc, address: true });
        }
        continue;
      }
      if (site.method === 'MtSendTo') {
        // `Send` on the endpoint `GetSendEndpoint(new Uri(address))` gave: the exchange the address names.
        const address = site.types[0]!;
        const exchange = address.includes('${') ? address : addressExchange(address);
        publishes.push({ broker: 'rabbitmq', exchange, key: '', loc: site.loc, address: true });
        continue;
      }
      if (site.method === 'MtBind') {
        const [queue, exchange, key, kind] = site.types as [string, string, string, string];
        exchanges.push({ name: exchange, type: kind as ExchangeType, loc: site.loc });
        queues.push({ name: queue, loc: site.loc });
        bindings.push({ exchange, queue, key, loc: site.loc });
        continue;
      }
      if (site.method === 'IConsumer' && site.types.length === 2) {
        const [message, consumer] = site.types as [string, string];
        const exchange = mtExchange(message);
        const queue =
          explicit.get(consumer) ?? endpointName(consumer, formatter?.[0], formatterOptions(s, consumer, formatter));
        queues.push({ name: queue, loc: site.loc });
        endpoint(queue, site.loc);
        if (!(explicit.has(consumer) && noTopology.has(consumer))) {
          exchanges.push({ name: exchange, type: 'fanout', loc: site.loc });
          bindings.push({ exchange, queue, key: '', loc: site.loc });
        }
        consumes.push({ broker: 'rabbitmq', queue, loc: site.loc });
        continue;
      }
      if (site.method === 'EndpointNameFormatter' || site.method === 'ReceiveEndpoint' || site.method.startsWith('Mt'))
        continue;
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
    // One call publishes one message: a publish of it at a site with a run-time key (a library's method summarised
    // as an object, ADR 0062) is the same publish a bus summary names with the message's type there, not another.
    const known = new Set(
      publishes.filter((p) => p.key !== '{}').map((p) => `${p.loc.file}:${p.loc.line}|${p.broker}|${p.exchange}`),
    );
    const kept = publishes.filter(
      (p) => p.key !== '{}' || p.anyKey === true || !known.has(`${p.loc.file}:${p.loc.line}|${p.broker}|${p.exchange}`),
    );
    return { ...s, publishes: kept, consumes, bindings, exchanges, queues };
  });
}

/** The namespace and prefix a formatter site (`[style, 'namespace' | '', prefix]`) asks for, for one consumer. */
function formatterOptions(
  s: SourceFacts,
  consumer: string,
  formatter: readonly string[] | undefined,
): { namespace?: string | undefined; prefix?: string | undefined } {
  return {
    namespace: formatter?.[1] === 'namespace' ? s.typeNamespaces?.[consumer] : undefined,
    prefix: formatter?.[2] || undefined,
  };
}

/**
 * MassTransit's endpoint name for a consumer class: the name without its `Consumer` suffix, after the prefix
 * and the namespace when the formatter includes them, as is (DefaultEndpointNameFormatter), or in kebab or
 * snake case (`SubmitOrderConsumer` → `submit-order`; with its namespace `Shop.Consumers` → `shop-consumers-submit-order`).
 */
export function endpointName(
  consumer: string,
  formatter: string | undefined,
  options: { namespace?: string | undefined; prefix?: string | undefined } = {},
): string {
  const bare = consumer.length > 'Consumer'.length ? consumer.replace(/Consumer$/, '') : consumer;
  const base = `${options.prefix ?? ''}${options.namespace ? `${options.namespace}.` : ''}${bare}`;
  if (formatter !== 'KebabCase' && formatter !== 'SnakeCase') return base;
  const words = base
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .replace(/\./g, '_')
    .toLowerCase();
  return formatter === 'KebabCase' ? words.replace(/_/g, '-') : words;
}

/**
 * The exchange a MassTransit endpoint address names: `queue:orders`, `exchange:orders` and
 * `rabbitmq://host/vhost/orders?durable=true` name `orders`.
 */
export function addressExchange(address: string): string {
  const path = address.replace(/\?.*$/, '');
  const short = /^(?:queue|exchange|topic):(.+)$/i.exec(path);
  if (short) return short[1]!;
  const url = /^\w+:\/\/[^/]+\/(.+)$/.exec(path);
  return url ? url[1]!.replace(/^.*\//, '') : path;
}

const settingKey = (key: string): string => key.toLowerCase().replace(/__|:/g, '.');

/**
 * Whether a site under configuration switches runs with the source's settings: a switch counts only when the
 * source's .NET settings files (`appsettings*.json`) set its key, all to the same boolean.
 */
function deployed(s: SourceFacts, site: BusSite): boolean {
  for (const g of site.guards ?? []) {
    const want = settingKey(g.key);
    const values = new Set(
      s.config
        .filter((c) => !c.scope && /(^|\/)appsettings[^/]*\.json$/i.test(c.loc.file) && settingKey(c.key) === want)
        .map((c) => c.value.trim().toLowerCase()),
    );
    const only = values.size === 1 ? [...values][0] : undefined;
    if ((only === 'true' || only === 'false') && (only === 'true') !== g.when) return false;
  }
  return true;
}
