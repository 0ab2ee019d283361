import type { Loc, SourceFacts } from '../model';
import type { Sink } from './common';
import { lineIndex } from './channels';
import { nestFactoryQueue } from './nest-micro';

/**
 * Eventuate Tram domain events (Java). A domain event is published to the channel named by its aggregate
 * type's full class name (`DomainEventPublisher.publish(Order.class, id, events)`, or a subclass of
 * `AbstractAggregateDomainEventPublisher<Order, …>` / `AbstractDomainEventPublisherForAggregateImpl<Order, …>`
 * whose `publish`/`publishById` the services call through a field of its own or its interface's type); a
 * consumer subscribes to a channel (`@EventuateDomainEventHandler(channel = "…")`,
 * `DomainEventHandlersBuilder.forAggregateType("…")`, commands' `CommandHandlersBuilder.fromChannel("…")`).
 * With the Kafka transport (the default) a channel is a topic, so each side is a Kafka topic here.
 *
 * Each file contributes what it declares (`EventuateFile`); class names resolve to full names once every
 * file of the source is read (the file's imports, then its package, then a class the source declares once).
 * Read from the text: a few linear regular expressions, bounded quantifiers only.
 */

const AGGREGATE_PUBLISHER =
  /\bclass[ \t]{1,16}(\w+)[^{]{0,400}?\bextends[ \t\n]{1,16}(?:[\w.]{1,200}\.)?(?:AbstractAggregateDomainEventPublisher|AbstractDomainEventPublisherForAggregateImpl)[ \t]{0,16}<[ \t\n]{0,16}(?:[\w.]{1,200}\.)?(\w+)([^{]{0,400})\{/g;
const CLASS_NAME = String.raw`(?:[\w.]{1,200}\.)?([A-Z]\w{0,63})\.class(?:\.get(?:Name|TypeName)\(\))?`;
const STRING = String.raw`"([^"\n]{0,300})"`;
/**
 * A channel argument: a string literal, `X.class`, `X.class.getName()`, a constant of a class
 * (`KitchenServiceChannels.COMMAND_CHANNEL`, maybe of another source) or a constant of the file.
 */
const CHANNEL_ARG = String.raw`(?:${STRING}|${CLASS_NAME}|(?:[\w]{1,200}\.)?([A-Z]\w{0,63})\.([A-Za-z_]\w{0,63})(?![\w(])|([A-Za-z_]\w{0,63}))`;
const COLLECTIONS = /^(List|Set|Collection|Iterable|ArrayList|LinkedList|Stream|Optional)$/;
/** Groups CHANNEL_ARG adds to a regular expression. */
const CHANNEL_GROUPS = 5;

/**
 * A channel as written: a literal, a class to resolve, a constant of a class (`qual`), or a constant of the
 * file to look up.
 */
export type ChannelRef =
  | { readonly lit: string }
  | { readonly cls: string }
  | { readonly qual: string; readonly id: string }
  | { readonly id: string };

export interface EventuateFile {
  readonly file: string;
  readonly pkg: string;
  /** Simple name → full name, from the file's imports. */
  readonly imports: Record<string, string>;
  /** Types the file declares (full names follow from `pkg`). */
  readonly types: string[];
  /** Aggregate publisher classes: their name, their interfaces and the aggregate's simple name. */
  readonly publishers: { name: string; interfaces: string[]; aggregate: string }[];
  /** `x.publish(`/`x.publishById(` of a variable declared with type `type` in the file. */
  readonly sites: { type: string; line: number; events?: string[] }[];
  /** `DomainEventPublisher.publish(channel, …)` calls. */
  readonly direct: { channel: ChannelRef; line: number; events?: string[] }[];
  /** Subscriptions, with the event types their handlers take when the code names them. */
  readonly consumers: { channel: ChannelRef; line: number; events?: string[] }[];
  /** String constants of the file (`static final String CHANNEL = "…"`). */
  readonly constants: Record<string, string>;
  /**
   * Saga command endpoints (`CommandEndpointBuilder.forCommand(X.class).withChannel(…)`) held in a field of
   * the file's class, and the saga steps that invoke one through a variable of that class
   * (`invokeParticipant(kitchenService.create, …)`): the command is sent where the step is.
   */
  readonly endpoints?: { field: string; command: string; channel: ChannelRef; line: number }[];
  readonly invocations?: { type: string; field: string; line: number }[];
}

/** Comments blanked (newlines kept, so offsets and lines stay); strings are left as they are. */
function withoutComments(text: string): string {
  // An unclosed `/*` runs to the end in one match (not one scan to the end per later `/*`).
  return text.replace(/\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))|\/\/[^\n]*/g, (c) => c.replace(/[^\n]/g, ' '));
}

function channelRef(m: RegExpMatchArray, at: number): ChannelRef | undefined {
  if (m[at] !== undefined) return { lit: m[at] };
  if (m[at + 1] !== undefined) return { cls: m[at + 1]! };
  if (m[at + 2] !== undefined) return { qual: m[at + 2]!, id: m[at + 3]! };
  if (m[at + 4] !== undefined) return { id: m[at + 4]! };
  return undefined;
}

/** String constants of a Java text (`static final String CHANNEL = "…"`). */
function stringConstants(text: string): Record<string, string> {
  const constants: Record<string, string> = {};
  for (const m of text.matchAll(/\bString[ \t]{1,16}([A-Za-z_]\w{0,63})[ \t]{0,16}=[ \t]{0,16}"([^"\n]{0,300})"/g))
    if (m[1] !== '__proto__') constants[m[1]!] = m[2]!;
  return constants;
}

/** What one Java file says about Eventuate Tram, or nothing when it does not mention it. */
export function eventuateFile(raw: string, file: string): EventuateFile | undefined {
  if (!file.endsWith('.java')) return undefined;
  const text = withoutComments(raw);
  const line = lineIndex(text);
  const pkg = /^[ \t]{0,16}package[ \t]{1,16}([\w.]{1,300})[ \t]{0,16};/m.exec(text)?.[1] ?? '';
  const types = [...text.matchAll(/\b(?:class|interface|record|enum)[ \t]{1,16}([A-Z]\w{0,63})/g)].map((m) => m[1]!);
  const mentions =
    /eventuate|DomainEvent|EventPublisher|CommandEndpoint|CommandHandlersBuilder|CommandProducer|SimpleSaga|invokeParticipant/.test(
      text,
    );
  // A class of constants only (`KitchenServiceChannels`): the channels other files and sources name.
  if (!mentions) return types.length ? empty(file, pkg, types, stringConstants(text)) : undefined;
  const imports: Record<string, string> = {};
  for (const m of text.matchAll(/^[ \t]{0,16}import[ \t]{1,16}([\w.]{1,300}\.([A-Z]\w{0,63}))[ \t]{0,16};/gm))
    imports[m[2]!] = m[1]!;
  const constants = stringConstants(text);
  const publishers = [...text.matchAll(AGGREGATE_PUBLISHER)].map((m) => ({
    name: m[1]!,
    aggregate: m[2]!,
    interfaces: [...(/\bimplements\b([^{]*)$/.exec(m[3] ?? '')?.[1] ?? '').matchAll(/(?:[\w.]+\.)?([A-Z]\w*)/g)].map(
      (i) => i[1]!,
    ),
  }));
  // Declared types of the variables the file publishes through (`private OrderEventPublisher publisher;`).
  const declared = new Map<string, string>();
  for (const m of text.matchAll(
    /\b([A-Z]\w{0,63})(?:<[^<>;(){}\n]{0,200}>)?[ \t\n]{1,16}([a-z_]\w{0,63})[ \t]{0,16}[;,)=]/g,
  ))
    declared.set(m[2]!, m[1]!);
  /**
   * The event classes a publish call passes after its first `skip` arguments (`new OrderApprovedEvent(…)`, a
   * variable declared with its class, `List.of(new X(), …)`), or nothing when one argument names none
   * (`result.getEvents()`).
   */
  let named = 0;
  const eventsOf = (at: number, skip: number): string[] | undefined => {
    // Bounded: a call's arguments within 600 characters, for the file's first 1,000 calls (past that a site's
    // events are unnamed: every subscription of the topic gets it).
    if (++named > 1_000) return undefined;
    const limit = Math.min(text.length, at + 600);
    const args: string[] = [];
    let level = 0;
    let from = at;
    let end = -1;
    for (let i = at; i < limit && end < 0; i++) {
      const ch = text[i];
      if (ch === '(' || ch === '[' || ch === '{') level++;
      else if ((ch === ')' || ch === ']' || ch === '}') && --level < 0) end = i;
      else if (ch === ',' && level === 0) {
        args.push(text.slice(from, i));
        from = i + 1;
      }
    }
    if (end < 0) return undefined;
    args.push(text.slice(from, end));
    const out: string[] = [];
    for (const a of args.slice(skip)) {
      const created = [...a.matchAll(/\bnew[ \t\n]{1,16}(?:[\w.]{1,200}\.)?([A-Z]\w{0,63})[ \t]{0,16}\(/g)].map(
        (m) => m[1]!,
      );
      const variable = /^[ \t\n]{0,16}([a-z_]\w{0,63})[ \t\n]{0,16}$/.exec(a)?.[1];
      // A collection of events (`List<TicketDomainEvent> events`) names none of its elements' classes.
      const declaredType = variable ? declared.get(variable) : undefined;
      const typed = declaredType && !COLLECTIONS.test(declaredType) ? declaredType : undefined;
      if (created.length) out.push(...created);
      else if (typed) out.push(typed);
      else return undefined;
    }
    return out.length ? out : undefined;
  };
  const sites: EventuateFile['sites'] = [];
  const direct: EventuateFile['direct'] = [];
  for (const m of text.matchAll(
    new RegExp(
      String.raw`(?<![\w$.])([a-z_]\w{0,63})[ \t\n]{0,16}\.[ \t\n]{0,16}(publish|publishById)[ \t]{0,16}\([ \t\n]{0,16}(?:${CHANNEL_ARG})?`,
      'g',
    ),
  )) {
    const type = declared.get(m[1]!);
    if (!type) continue;
    const open = text.indexOf('(', m.index + m[1]!.length) + 1;
    if (type === 'CommandProducer') continue;
    if (type === 'DomainEventPublisher') {
      const channel = channelRef(m, 3);
      const events = eventsOf(open, 2);
      if (channel && m[2] === 'publish') direct.push({ channel, line: line(m.index), ...(events ? { events } : {}) });
    } else {
      const events = eventsOf(open, 1);
      sites.push({ type, line: line(m.index), ...(events ? { events } : {}) });
    }
  }
  const consumers: EventuateFile['consumers'] = [];
  // The handler methods of one subscriber and channel are one subscription: the first stands for them, with
  // the event types of every handler (`DomainEventEnvelope<OrderCreatedEvent>`).
  const subscriptions = new Map<string, { channel: ChannelRef; line: number; events?: string[] }>();
  for (const m of text.matchAll(/@EventuateDomainEventHandler[ \t]{0,16}\(([^)]{0,600})\)/g)) {
    const c = new RegExp(String.raw`\bchannel[ \t\n]{0,16}=[ \t\n]{0,16}${CHANNEL_ARG}`).exec(m[1]!);
    const channel = c ? channelRef(c, 1) : undefined;
    if (!channel) continue;
    const subscriber = /\bsubscriberId[ \t\n]{0,16}=[ \t\n]{0,16}([^,)]{1,300})/.exec(m[1]!)?.[1]?.trim() ?? '';
    const key = `${JSON.stringify(channel)}|${subscriber}`;
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 400);
    const event = /^[^{;]{0,300}?DomainEventEnvelope[ \t]{0,16}<[ \t]{0,16}(?:[\w.]{1,200}\.)?([A-Z]\w{0,63})/.exec(
      after,
    )?.[1];
    const prev = subscriptions.get(key);
    if (!prev) subscriptions.set(key, { channel, line: line(m.index), ...(event ? { events: [event] } : {}) });
    else if (prev.events && event) prev.events.push(event);
    else delete prev.events;
  }
  consumers.push(...subscriptions.values());
  for (const m of text.matchAll(
    new RegExp(
      String.raw`\.[ \t\n]{0,16}(?:forAggregateType|andForAggregateType|fromChannel)[ \t]{0,16}\([ \t\n]{0,16}${CHANNEL_ARG}[ \t\n]{0,16}\)`,
      'g',
    ),
  )) {
    const channel = channelRef(m, 1);
    if (!channel) continue;
    // The builder's `.onEvent(X.class, …)` up to the end of its statement.
    // `.andForAggregateType(…)` starts the next subscription of the same builder.
    const rest = text
      .slice(m.index, m.index + 3000)
      .split(';')[0]!
      .split(/\.[ \t\n]{0,16}andForAggregateType\b/)
      .filter((x) => x.trim().length > 0)[0]!;
    const events = [
      ...rest.matchAll(
        /\.[ \t\n]{0,16}on(?:Event|Message)[ \t]{0,16}\([ \t\n]{0,16}(?:[\w.]{1,200}\.)?([A-Z]\w{0,63})\.class/g,
      ),
    ].map((e) => e[1]!);
    consumers.push({ channel, line: line(m.index), ...(events.length ? { events } : {}) });
  }
  // Saga commands. `send(new X(…)).to(channel)` (a step's `CommandWithDestination`) and
  // `commandProducer.send(channel, new X(…), …)` send command X to the channel.
  const sends = text.includes('send');
  for (const m of (sends ? text : '').matchAll(
    /(?<![\w$.])send[ \t]{0,16}\([ \t\n]{0,16}new[ \t\n]{1,16}(?:[\w.]{1,200}\.)?([A-Z]\w{0,63})[ \t]{0,16}\(/g,
  )) {
    const statement = text.slice(m.index, m.index + 1500).split(';')[0]!;
    const to = new RegExp(String.raw`\.[ \t\n]{0,16}to[ \t]{0,16}\([ \t\n]{0,16}${CHANNEL_ARG}[ \t\n]{0,16}\)`).exec(
      statement,
    );
    const channel = to ? channelRef(to, 1) : undefined;
    if (channel) direct.push({ channel, line: line(m.index), events: [m[1]!] });
  }
  for (const m of (sends && text.includes('CommandProducer') ? text : '').matchAll(
    new RegExp(
      String.raw`(?<![\w$.])([a-z_]\w{0,63})[ \t\n]{0,16}\.[ \t\n]{0,16}send[ \t]{0,16}\([ \t\n]{0,16}${CHANNEL_ARG}[ \t\n]{0,16},[ \t\n]{0,16}new[ \t\n]{1,16}(?:[\w.]{1,200}\.)?([A-Z]\w{0,63})`,
      'g',
    ),
  )) {
    const channel = declared.get(m[1]!) === 'CommandProducer' ? channelRef(m, 2) : undefined;
    if (channel) direct.push({ channel, line: line(m.index), events: [m[2 + CHANNEL_GROUPS]!] });
  }
  const endpoints: NonNullable<EventuateFile['endpoints']> = [];
  for (const m of (text.includes('CommandEndpointBuilder') ? text : '').matchAll(
    new RegExp(
      String.raw`\b([A-Za-z_]\w{0,63})[ \t\n]{0,16}=[ \t\n]{0,16}CommandEndpointBuilder[ \t\n]{0,16}\.[ \t\n]{0,16}forCommand[ \t]{0,16}\([ \t\n]{0,16}${CLASS_NAME}[ \t\n]{0,16}\)[ \t\n]{0,16}\.[ \t\n]{0,16}withChannel[ \t]{0,16}\([ \t\n]{0,16}${CHANNEL_ARG}[ \t\n]{0,16}\)`,
      'g',
    ),
  )) {
    const channel = channelRef(m, 3);
    if (channel) endpoints.push({ field: m[1]!, command: m[2]!, channel, line: line(m.index) });
  }
  const invocations: NonNullable<EventuateFile['invocations']> = [];
  for (const m of (/invokeParticipant|withCompensation|notifyParticipant/.test(text) ? text : '').matchAll(
    /\.[ \t\n]{0,16}(?:invokeParticipant|withCompensation|notifyParticipant)[ \t]{0,16}\([ \t\n]{0,16}([a-z_]\w{0,63})[ \t]{0,16}\.[ \t]{0,16}([A-Za-z_]\w{0,63})[ \t\n]{0,16},/g,
  )) {
    const type = declared.get(m[1]!);
    if (type) invocations.push({ type, field: m[2]!, line: line(m.index) });
  }
  return {
    file,
    pkg,
    imports,
    types,
    publishers,
    sites,
    direct,
    consumers,
    constants,
    ...(endpoints.length ? { endpoints } : {}),
    ...(invocations.length ? { invocations } : {}),
  };
}

function empty(file: string, pkg: string, types: string[], constants: Record<string, string> = {}): EventuateFile {
  return { file, pkg, imports: {}, types, publishers: [], sites: [], direct: [], consumers: [], constants };
}

/** Whether a file's facts matter beyond its declared types. */
export const eventuateActive = (f: EventuateFile): boolean =>
  f.publishers.length +
    f.sites.length +
    f.direct.length +
    f.consumers.length +
    (f.endpoints?.length ?? 0) +
    (f.invocations?.length ?? 0) >
  0;

/**
 * The flows' two sides once every file of the source is read: each publish site through an aggregate
 * publisher (its class or an interface it implements) or `DomainEventPublisher`, each consumer, as Kafka
 * topics. A class that resolves to no full name is a run-time channel (`{}`).
 */
export function linkEventuate(files: readonly EventuateFile[], sink: Sink): void {
  // `Type.NAME` string constants of the source's classes (one value each), also for the sources that name them.
  const classConstants = new Map<string, string | null>();
  for (const f of files) {
    const owner = f.types[0];
    if (owner)
      for (const [k, v] of Object.entries(f.constants)) {
        const key = `${owner}.${k}`;
        const prev = classConstants.get(key);
        classConstants.set(key, prev === undefined || prev === v ? v : null);
      }
  }
  const exported = [...classConstants].filter((e): e is [string, string] => e[1] !== null);
  if (exported.length)
    sink.facts.channelConstants = {
      ...sink.facts.channelConstants,
      ...Object.fromEntries(exported.slice(0, MAX_EXPORTED_CONSTANTS)),
    };
  const active = files.filter(eventuateActive);
  if (active.length === 0) return;
  // Simple name → full names the source declares.
  const declared = new Map<string, Set<string>>();
  for (const f of files)
    for (const t of f.types) {
      const set = declared.get(t) ?? new Set<string>();
      set.add(f.pkg ? `${f.pkg}.${t}` : t);
      declared.set(t, set);
    }
  const fullName = (simple: string, f: EventuateFile): string => {
    if (f.imports[simple]) return f.imports[simple];
    const all = declared.get(simple);
    const own = f.pkg ? `${f.pkg}.${simple}` : simple;
    if (all?.has(own)) return own;
    return all?.size === 1 ? [...all][0]! : '{}';
  };
  const channel = (ref: ChannelRef, f: EventuateFile): string => {
    if ('lit' in ref) return ref.lit;
    if ('cls' in ref) return fullName(ref.cls, f);
    // Another source's class (an `-api` module): resolved once every source is known (`applyChannelConstants`).
    if ('qual' in ref) return classConstants.get(`${ref.qual}.${ref.id}`) ?? `${CONSTANT_MARK}${ref.qual}.${ref.id}`;
    return f.constants[ref.id] ?? '{}';
  };
  // Publisher type (the class or an interface it implements) → the aggregate's full name; a type two
  // publishers of different aggregates share says nothing.
  const byType = new Map<string, string | null>();
  for (const f of active)
    for (const p of f.publishers) {
      const topic = fullName(p.aggregate, f);
      for (const t of [p.name, ...p.interfaces]) {
        const prev = byType.get(t);
        byType.set(t, prev === undefined || prev === topic ? topic : null);
      }
    }
  const endpoints = new Map<string, { f: EventuateFile; endpoint: NonNullable<EventuateFile['endpoints']>[number] }>();
  for (const f of active)
    for (const endpoint of f.endpoints ?? [])
      if (f.types[0]) endpoints.set(`${f.types[0]}.${endpoint.field}`, { f, endpoint });
  const invoked = new Set<{ f: EventuateFile }>();
  for (const f of active) {
    const at = (line: number): Loc => ({ file: f.file, line });
    for (const s of f.sites) {
      const topic = byType.get(s.type);
      if (topic) sink.publish('kafka', '', topic, at(s.line), false, s.events);
    }
    for (const d of f.direct) {
      const key = channel(d.channel, f);
      // `commandProducer.send(…)` is a Kafka send to the language rules too: the same fact, with its command.
      const i = sink.facts.publishes.findIndex(
        (p) => p.broker === 'kafka' && p.key === key && p.loc.file === f.file && p.loc.line === d.line && !p.types,
      );
      if (i >= 0 && d.events) sink.facts.publishes[i] = { ...sink.facts.publishes[i]!, types: d.events };
      else sink.publish('kafka', '', key, at(d.line), false, d.events);
    }
    // Saga steps invoking a command endpoint of a proxy class: the command is sent where the step is.
    for (const i of f.invocations ?? []) {
      const e = endpoints.get(`${i.type}.${i.field}`);
      if (!e) continue;
      invoked.add(e);
      sink.publish('kafka', '', channel(e.endpoint.channel, e.f), at(i.line), false, [e.endpoint.command]);
    }
    for (const c of f.consumers) sink.consume('kafka', channel(c.channel, f), at(c.line), false, c.events);
  }
  // An endpoint no step of the source invokes (a saga of another source): sent where it is declared.
  for (const e of endpoints.values())
    if (!invoked.has(e))
      sink.publish('kafka', '', channel(e.endpoint.channel, e.f), { file: e.f.file, line: e.endpoint.line }, false, [
        e.endpoint.command,
      ]);
}

/** Constants a source exports for the channels other sources name (`KitchenServiceChannels.COMMAND_CHANNEL`). */
const MAX_EXPORTED_CONSTANTS = 2000;
/** A channel named by a constant of a class the source does not declare, until every source is known. */
/** A channel named by a constant of another source (`Type.NAME`, Go `pkg.Name`), resolved when linking. */
export const CONSTANT_MARK = '\u0003const:';
/** A constant a source declares with two values (two files, two classes of one name): a run-time value. */
export const AMBIGUOUS_CONSTANT = '{}';
/** A constant's mark inside a longer name (`"orders." + Topics.Suffix`), ended by `CONSTANT_END`. */
export const CONSTANT_END = '\u0004';
const MARKED_CONSTANT = /\u0003const:([\w.]+)\u0004/g;

/**
 * Channels named by another source's constant (`fromChannel(KitchenServiceChannels.COMMAND_CHANNEL)` with the
 * class in `ftgo-kitchen-service-api`): the value when the attached sources give that constant one value,
 * else a run-time channel (`{}`).
 */
export function applyChannelConstants(sources: readonly SourceFacts[]): SourceFacts[] {
  const has = (n: string): boolean => n.includes(CONSTANT_MARK);
  const pending = (x: { key?: string; queue?: string; exchange?: string }): boolean =>
    has(x.key ?? x.queue ?? '') || has(x.exchange ?? '');
  // Bus sites (`ReceiveEndpoint(Constants.Queue, …)`) name theirs the same way, instantiated after (bus.ts).
  const pendingSite = (x: { types: readonly string[] }): boolean => x.types.some(has);
  const waits = (s: SourceFacts): boolean =>
    s.publishes.some(pending) ||
    s.consumes.some(pending) ||
    (s.busSites ?? []).some(pendingSite) ||
    s.bindings.some(pending) ||
    s.queues.some((q) => has(q.name)) ||
    s.exchanges.some((x) => has(x.name));
  if (!sources.some(waits)) return [...sources];
  const values = new Map<string, string | null>();
  for (const s of sources)
    for (const [k, v] of Object.entries(s.channelConstants ?? {})) {
      const prev = values.get(k);
      values.set(k, prev === undefined || prev === v ? v : null);
    }
  const value = (k: string): string => values.get(k) ?? '{}';
  const known = (k: string): string | undefined => values.get(k) ?? undefined;
  // A Nest factory's queue (`nest-call:`/`nest-factory:` marks); the whole name (`Type.NAME`, Go `pkg.Name`); or a C#
  // constant inside a concatenation (`"orders." + Topics.Suffix`).
  const name = (n0: string): string => {
    if (n0.startsWith(CONSTANT_MARK)) {
      const queue = nestFactoryQueue(n0.slice(CONSTANT_MARK.length), known);
      if (queue !== undefined) return queue;
    }
    const n = n0.replace(MARKED_CONSTANT, (_, k: string) => value(k));
    return n.startsWith(CONSTANT_MARK) ? value(n.slice(CONSTANT_MARK.length)) : n;
  };
  // A Nest factory call no source explains is no fact (it may be no RabbitMQ at all).
  const unknownCall = (n: string): boolean => n.startsWith(`${CONSTANT_MARK}nest-call:`) && name(n) === '{}';
  return sources.map((s) =>
    waits(s)
      ? {
          ...s,
          publishes: s.publishes
            .filter((p) => !unknownCall(p.key))
            .map((p) => (pending(p) ? { ...p, exchange: name(p.exchange), key: name(p.key) } : p)),
          consumes: s.consumes
            .filter((c) => !unknownCall(c.queue))
            .map((c) => (pending(c) ? { ...c, queue: name(c.queue) } : c)),
          bindings: s.bindings.map((b) =>
            pending(b) ? { ...b, exchange: name(b.exchange), queue: name(b.queue), key: name(b.key) } : b,
          ),
          queues: s.queues
            .filter((q) => !unknownCall(q.name))
            .map((q) => (has(q.name) ? { ...q, name: name(q.name) } : q)),
          exchanges: s.exchanges.map((x) => (has(x.name) ? { ...x, name: name(x.name) } : x)),
          ...(s.busSites
            ? { busSites: s.busSites.map((b) => (pendingSite(b) ? { ...b, types: b.types.map(name) } : b)) }
            : {}),
        }
      : s,
  );
}
