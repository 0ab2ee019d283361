import type { Loc } from '../model';
import type { Sink } from './common';
import { lineIndex } from './channels';

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
/** A channel argument: a string literal, `X.class`, `X.class.getName()`, or a constant of the file. */
const CHANNEL_ARG = String.raw`(?:${STRING}|${CLASS_NAME}|([A-Za-z_]\w{0,63}))`;

/** A channel as written: a literal, a class to resolve, or a constant of the file to look up. */
export type ChannelRef = { readonly lit: string } | { readonly cls: string } | { readonly id: string };

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
}

/** Comments blanked (newlines kept, so offsets and lines stay); strings are left as they are. */
function withoutComments(text: string): string {
  // An unclosed `/*` runs to the end in one match (not one scan to the end per later `/*`).
  return text.replace(/\/\*[\s\S]*?(?:\*\/|$(?![\s\S]))|\/\/[^\n]*/g, (c) => c.replace(/[^\n]/g, ' '));
}

function channelRef(m: RegExpMatchArray, at: number): ChannelRef | undefined {
  if (m[at] !== undefined) return { lit: m[at] };
  if (m[at + 1] !== undefined) return { cls: m[at + 1]! };
  if (m[at + 2] !== undefined) return { id: m[at + 2]! };
  return undefined;
}

/** What one Java file says about Eventuate Tram, or nothing when it does not mention it. */
export function eventuateFile(raw: string, file: string): EventuateFile | undefined {
  if (!file.endsWith('.java')) return undefined;
  const text = withoutComments(raw);
  const line = lineIndex(text);
  const pkg = /^[ \t]{0,16}package[ \t]{1,16}([\w.]{1,300})[ \t]{0,16};/m.exec(text)?.[1] ?? '';
  const types = [...text.matchAll(/\b(?:class|interface|record|enum)[ \t]{1,16}([A-Z]\w{0,63})/g)].map((m) => m[1]!);
  const mentions = /eventuate|DomainEvent|EventPublisher/.test(text);
  if (!mentions) return types.length ? empty(file, pkg, types) : undefined;
  const imports: Record<string, string> = {};
  for (const m of text.matchAll(/^[ \t]{0,16}import[ \t]{1,16}([\w.]{1,300}\.([A-Z]\w{0,63}))[ \t]{0,16};/gm))
    imports[m[2]!] = m[1]!;
  const constants: Record<string, string> = {};
  for (const m of text.matchAll(/\bString[ \t]{1,16}([A-Za-z_]\w{0,63})[ \t]{0,16}=[ \t]{0,16}"([^"\n]{0,300})"/g))
    constants[m[1]!] = m[2]!;
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
      const typed = variable ? declared.get(variable) : undefined;
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
      String.raw`\.[ \t\n]{0,16}(?:forAggregateType|fromChannel)[ \t]{0,16}\([ \t\n]{0,16}${CHANNEL_ARG}[ \t\n]{0,16}\)`,
      'g',
    ),
  )) {
    const channel = channelRef(m, 1);
    if (!channel) continue;
    // The builder's `.onEvent(X.class, …)` up to the end of its statement.
    const rest = text.slice(m.index, m.index + 3000).split(';')[0]!;
    const events = [
      ...rest.matchAll(/\.[ \t\n]{0,16}onEvent[ \t]{0,16}\([ \t\n]{0,16}(?:[\w.]{1,200}\.)?([A-Z]\w{0,63})\.class/g),
    ].map((e) => e[1]!);
    consumers.push({ channel, line: line(m.index), ...(events.length ? { events } : {}) });
  }
  return { file, pkg, imports, types, publishers, sites, direct, consumers, constants };
}

function empty(file: string, pkg: string, types: string[]): EventuateFile {
  return { file, pkg, imports: {}, types, publishers: [], sites: [], direct: [], consumers: [], constants: {} };
}

/** Whether a file's facts matter beyond its declared types. */
export const eventuateActive = (f: EventuateFile): boolean =>
  f.publishers.length + f.sites.length + f.direct.length + f.consumers.length > 0;

/**
 * The flows' two sides once every file of the source is read: each publish site through an aggregate
 * publisher (its class or an interface it implements) or `DomainEventPublisher`, each consumer, as Kafka
 * topics. A class that resolves to no full name is a run-time channel (`{}`).
 */
export function linkEventuate(files: readonly EventuateFile[], sink: Sink): void {
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
  const channel = (ref: ChannelRef, f: EventuateFile): string =>
    'lit' in ref ? ref.lit : 'cls' in ref ? fullName(ref.cls, f) : (f.constants[ref.id] ?? '{}');
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
  for (const f of active) {
    const at = (line: number): Loc => ({ file: f.file, line });
    for (const s of f.sites) {
      const topic = byType.get(s.type);
      if (topic) sink.publish('kafka', '', topic, at(s.line), false, s.events);
    }
    for (const d of f.direct) sink.publish('kafka', '', channel(d.channel, f), at(d.line), false, d.events);
    for (const c of f.consumers) sink.consume('kafka', channel(c.channel, f), at(c.line), false, c.events);
  }
}
