import { Query } from 'web-tree-sitter';
import type { Node } from '../parsers';
import type { NestPiece } from './nest-micro';
import type {
  Broker,
  BusSite,
  BusSummary,
  DataTouch,
  ExchangeType,
  HttpMethod,
  Loc,
  Part,
  SourceFacts,
} from '../model';

export const lineOf = (node: Node): number => node.startPosition.row + 1;

/**
 * The exchange of an aio-pika exchange object whose origin the value flow does not reach (a field, an
 * `app.state` attribute, a FastAPI `Depends` parameter): once the source is read, the one exchange the
 * source declares (its only way to get an exchange object), else unknown (`{}`).
 */
export const SOURCE_EXCHANGE = '{exchange of the source}';

/** The text of a fully literal value, or undefined when any part is unknown. */
/**
 * A served route's path: its literal text, or the literal path after a base path read from a setting
 * (`os.Getenv("BASE_URL") + "/cart"`): the setting's default when it has one, else nothing (a base path
 * is a deployment choice, empty unless the service is mounted under a prefix). Settings with a declared
 * default elsewhere in the path (`f"/api/{settings.API_VERSION}/health"`, `API_VERSION: str = "v1"`) serve
 * that default.
 */
export function routePath(parts: readonly Part[] | undefined): string | undefined {
  const whole = literal(parts);
  if (whole !== undefined || !parts) return whole;
  if (parts.every((p) => 'lit' in p || (('env' in p || 'config' in p) && p.fallback !== undefined)))
    return parts.map((p) => ('lit' in p ? p.lit : 'fallback' in p ? (p.fallback ?? '') : '')).join('');
  if (parts.length < 2) return undefined;
  const [head, ...rest] = parts;
  const path = literal(rest);
  if (!head || !('env' in head || 'config' in head) || path === undefined || !path.startsWith('/')) return undefined;
  return (head.fallback ?? '').replace(/\/+$/, '') + path;
}

/**
 * The two branches of a conditional on a setting (`"ratings" if getenv("X") is None else getenv("X")`,
 * `getenv("X") == null ? "ratings" : getenv("X")`): the setting with the literal branch as its default.
 * An optional piece built around a setting (`"" if … else "." + getenv("DOMAIN")`) is its default, empty.
 */
export function settingOrDefault(a: readonly Part[], b: readonly Part[]): Part[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [...a];
  const la = literal(a);
  const fallback = la ?? literal(b);
  const other = la !== undefined ? b : a;
  if (fallback === undefined) return [HOLE_PART];
  const only = other.length === 1 ? other[0]! : undefined;
  if (only && ('env' in only || 'config' in only) && only.fallback === undefined) return [{ ...only, fallback }];
  const setting = other.some((p) => 'env' in p || 'config' in p);
  return setting && fallback === '' && other.every((p) => 'lit' in p || 'env' in p || 'config' in p)
    ? lit('')
    : [HOLE_PART];
}

/**
 * The value of a conditional expression from its two branches: a setting with its default
 * (`settingOrDefault`), or, when both branches are one URL that differs only in its query
 * (`` c ? `${BASE}/api/data/?k=${c}` : `${BASE}/api/data/?k=None` ``), that URL with the query computed.
 */
export function conditionalValue(a: readonly Part[], b: readonly Part[]): Part[] {
  const setting = settingOrDefault(a, b);
  if (setting.length !== 1 || !('hole' in setting[0]!)) return setting;
  const out: Part[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (JSON.stringify(x) === JSON.stringify(y)) {
      out.push(x);
      continue;
    }
    if (!('lit' in x) || !('lit' in y)) break;
    let k = 0;
    while (k < x.lit.length && x.lit[k] === y.lit[k]) k++;
    if (k > 0) out.push({ lit: x.lit.slice(0, k) });
    break;
  }
  const known = out.map((p) => ('lit' in p ? p.lit : '')).join('');
  return known.includes('?') ? [...out, HOLE_PART] : [HOLE_PART];
}

export function literal(parts: readonly Part[] | undefined): string | undefined {
  if (!parts) return undefined;
  let out = '';
  for (const p of parts) {
    if (!('lit' in p)) return undefined;
    out += p.lit;
  }
  return out;
}

/** Like nameOf, but an unresolved identifier keeps its text (`ExchangeType.Topic`). */
export function rawName(parts: readonly Part[] | undefined): string | undefined {
  if (!parts || parts.length === 0) return undefined;
  return parts.map((p) => ('lit' in p ? p.lit : 'ref' in p ? p.ref : '{}')).join('');
}

/**
 * Text of a value for names (queues, topics): configuration and environment values stay placeholders
 * (`${app.topic}`, `${TOPIC:orders}`) that the link stage resolves through the attached configuration;
 * other unknown parts become `{}`.
 */
export function nameOf(parts: readonly Part[] | undefined): string | undefined {
  if (!parts || parts.length === 0) return undefined;
  return parts
    .map((p) => {
      if ('lit' in p) return p.lit;
      if (!('config' in p) && !('env' in p)) return '{}';
      // `Section:Key` written `Section.Key` (one key under relaxed binding): a `:` would read as a default.
      const key = 'config' in p ? p.config.replace(/:/g, '.') : p.env;
      return p.fallback === undefined ? `\${${key}}` : `\${${key}:${p.fallback}}`;
    })
    .join('');
}

/** A value read from a field of a variable (`payment.metadata.receiver`), when that is all it is (a `keyRef`). */
export function fieldRefOf(parts: readonly Part[] | undefined): string | undefined {
  const only = parts?.length === 1 ? parts[0]! : undefined;
  return only && 'ref' in only && /^\w+(\.\w+)+$/.test(only.ref) ? only.ref : undefined;
}

export function concat(...lists: readonly (readonly Part[])[]): Part[] {
  const out: Part[] = [];
  for (const list of lists) {
    for (const p of list) {
      const last = out[out.length - 1];
      if (last && 'lit' in last && 'lit' in p) out[out.length - 1] = { lit: last.lit + p.lit };
      else out.push(p);
    }
  }
  return out;
}

export const HOLE_PART: Part = { hole: true };

/**
 * A queue the broker names (declared with an empty name): one identity per declaration, `amq.gen@<file>:<line>`.
 * Only the declaring connection reads it (exclusive or not, nothing else can know its name), so the link stage
 * keeps it within its source.
 */
export const SERVER_NAMED_QUEUE = 'amq.gen@';

/**
 * The name a RabbitMQ queue declaration gives its queue (`assertQueue(name)`, `queue_declare(queue=name)`,
 * `QueueDeclare(name)`): the name passed, or the broker's for an empty or absent one (`""`, `null`, `None`, no
 * argument), which the value flow then carries to the binding and the consumer like any name.
 */
export function declaredQueueName(name: readonly Part[] | undefined, file: string, line: number): Part[] {
  const only = name?.length === 1 ? name[0]! : undefined;
  const unnamed =
    !name ||
    name.length === 0 ||
    literal(name) === '' ||
    (only !== undefined && 'ref' in only && /^(null|undefined|None|nil)$/.test(only.ref));
  return unnamed ? lit(`${SERVER_NAMED_QUEUE}${file}:${line}`) : [...name];
}
/** A property of a C# options object (`options.Value.QueueName` of an `IOptions<RabbitMqOptions>`), as evaluated. */
export const OPTIONS_REF = /^IOptions<\w+>\.\w+$/;
/** A configuration section bound by a constant of another file (`GetSection(RabbitMqOptions.SectionName)`). */
export const SECTION_REF = '\u0003s:';

/**
 * A field of the object whose method is evaluated (`self.base_url`, `this.exchange`) when a constructor
 * sets it from its arguments: known only where the object is created (object summaries, ADR 0062).
 */
export const FIELD_REF = '\u0003f:';
export const isFieldRef = (p: Part): boolean => 'ref' in p && p.ref.startsWith(FIELD_REF);
/** Java: a constructor's parameter `i` of class C (`new C#i`), whatever `new C(…)` passes. */
export const CTOR_REF = /^new ([A-Z]\w*)#(\d+)$/;
/** A value known only where an object is created: one of its fields or its constructor's arguments. */
const isObjectRef = (p: Part): boolean => isFieldRef(p) || ('ref' in p && CTOR_REF.test(p.ref));

/** A call or publish of a method whose names come from the object's fields: an effect of its class. */
export type FieldUse =
  | {
      readonly kind: 'http';
      readonly method: HttpMethod;
      readonly url: Part[];
      readonly client: string;
      readonly loc: Loc;
    }
  | {
      readonly kind: 'publish';
      readonly broker: Broker;
      readonly exchange: Part[];
      readonly key: Part[];
      readonly loc: Loc;
    }
  /** A RabbitMQ queue consumed by the name of a field (aio-pika `declare_queue(name=self.service_name)`). */
  | { readonly kind: 'consume'; readonly queue: Part[]; readonly loc: Loc };

/** The names a field use is made of. */
export const fieldUseParts = (u: FieldUse): Part[] =>
  u.kind === 'http' ? u.url : u.kind === 'consume' ? u.queue : [...u.exchange, ...u.key];
/** The most values a variable set in several branches keeps (more: unknown), and calls one site expands to. */
export const MAX_ALTERNATIVES = 4;

/**
 * A value whose unknown parts carry alternatives (`{ hole, alts }`), as the list of values it may have
 * (every combination, at most `MAX_ALTERNATIVES`; beyond that the parts stay unknown).
 */
export function expandAlternatives(parts: readonly Part[]): Part[][] {
  let out: Part[][] = [[]];
  for (const p of parts) {
    const alts = 'hole' in p && p.alts ? p.alts : undefined;
    if (!alts || out.length * alts.length > MAX_ALTERNATIVES) {
      out = out.map((v) => concat(v, [alts ? HOLE_PART : p]));
      continue;
    }
    out = out.flatMap((v) => alts.map((a) => concat(v, a)));
  }
  return out;
}
/** How `nameOf` writes an unknown part. */
const PARAM_TEXT = '{}';

/**
 * A model class of an HTTP client (`…/client/…`, `…/clients/…`, `…/dto/…`): an annotation such as
 * `@Document` or `[Table]` on it describes the other service's data, not a store this source uses.
 */
export function isClientModel(file: string): boolean {
  return /(^|\/)(clients?|dtos?|feign)\//i.test(file);
}
export const lit = (s: string): Part[] => [{ lit: s }];

/** `base` + `/` + `url`, unless the URL is absolute (a client's base address in front of a relative path). */
export function withBase(base: Part[] | undefined, url: Part[]): Part[] {
  if (!base || base.length === 0) return url;
  const first = url[0];
  if (first && 'lit' in first && /^[a-z]+:\/\//i.test(first.lit)) return url;
  return concat(base, lit('/'), url);
}

export function httpMethod(name: string | undefined): HttpMethod | undefined {
  if (!name) return undefined;
  const m = name
    .toUpperCase()
    .replace(/^HTTP(METHOD)?\.?/, '')
    .replace(/^METHOD/, '');
  switch (m) {
    case 'GET':
    case 'POST':
    case 'PUT':
    case 'PATCH':
    case 'DELETE':
    case 'HEAD':
    case 'OPTIONS':
      return m;
    case 'ALL':
    case 'ANY':
      return 'ANY';
    default:
      return undefined;
  }
}

export function exchangeType(name: string | undefined): ExchangeType | undefined {
  const t = name?.toLowerCase().replace(/^.*[.:]/, '');
  return t === 'direct' || t === 'topic' || t === 'fanout' || t === 'headers' ? t : undefined;
}

const SQL_STATEMENT =
  /\b(select\b[\s\S]*?\bfrom|insert\s+into|update\s+[\w"`[\].]+\s+set|delete\s+from|create\s+table|alter\s+table|merge\s+into|references)\b/i;
const SQL_TABLES =
  /\b(?:from|join|insert\s+into|update|delete\s+from|create\s+table(?:\s+if\s+not\s+exists)?|alter\s+table(?:\s+only)?|merge\s+into|references)\s+([`"[]?[A-Za-z_][\w]*[`"\]]?(?:\.[`"[]?[A-Za-z_][\w]*[`"\]]?)?)/gi;
const NOT_TABLES = new Set(['select', 'set', 'where', 'values', 'lateral', 'unnest', 'only', 'if', 'table']);

/** Table names touched by SQL text (queries in code, migrations). */
export function sqlTables(text: string): string[] {
  // Statements start with their verb, upper-case or followed by SQL syntax; prose such as "Select a file
  // from the list" or "Delete from your account" does not count.
  const upper = /^\s*\(?\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|WITH|MERGE)\b/.test(text);
  const verb = upper || /^\s*\(?\s*(select|insert|update|delete|create|alter|with|merge)\b/i.test(text);
  const syntax =
    /\b(where|values|set|join|group\s+by|order\s+by|limit|returning|primary\s+key)\b|[=?*]|\$\d|%s|:\w+|@\w+/i.test(
      text,
    );
  if (!verb || !(upper || syntax) || !SQL_STATEMENT.test(text)) return [];
  const out = new Set<string>();
  for (const m of text.matchAll(SQL_TABLES)) {
    const raw = m[1]!.replace(/[`"[\]]/g, '');
    const name = raw.includes('.') ? raw.split('.').pop()! : raw;
    if (!NOT_TABLES.has(name.toLowerCase())) out.add(name.toLowerCase());
  }
  return [...out].sort();
}

/** A Redis key prefix (`cart:` of `cart:{id}`), when the key starts with a literal `word:`. */
export function redisPrefix(parts: readonly Part[] | undefined): string | undefined {
  const first = parts?.[0];
  if (!first || !('lit' in first)) return undefined;
  if (first.lit.includes('://')) return undefined;
  const m = /^([A-Za-z][\w-]*):/.exec(first.lit);
  return m ? `${m[1]}:` : undefined;
}

const REDIS_METHODS = new Set(
  'get set setex setnx getset mget mset hget hset hmset hmget hgetall hdel hincrby del unlink exists expire incr incrby decr lpush rpush lpop rpop lrange sadd srem smembers zadd zrange zrem publish stringget stringset stringgetasync stringsetasync stringincrementasync hashgetasync hashsetasync hashgetallasync keydeleteasync keyexpireasync listleftpushasync listrightpushasync setaddasync sortedsetaddasync opsforvalue'.split(
    ' ',
  ),
);
const REDIS_RECEIVER = /redis|cache|rdb|\bdb\b|^r$|^db$|client|conn|multiplexer|valueops|template/i;

/** What every language's call sites are normalised to before the shared rules look at them. */
export interface CallSite {
  readonly name: string;
  /** The receiver's source text (`this.http`, `channel`), '' for a plain function call. */
  readonly receiver: string;
  /** The receiver's declared type, when the language says (`KafkaTemplate<Long, Order> template` → `KafkaTemplate`). */
  readonly receiverType?: string | undefined;
  readonly args: readonly Part[][];
  /** Named arguments: Python keywords, C# `name:` arguments, JS/C# object literal properties merged in. */
  readonly named: ReadonlyMap<string, Part[]>;
  readonly loc: Loc;
  /** The function around the call, when the language says (publishes through a wrapper method). */
  readonly within?: Within | undefined;
  /**
   * Whether a reference names a constant of another file of the source (Python: `from config import QUEUE`,
   * `from config import *`, `config.QUEUE`): a RabbitMQ or Kafka name holding one is resolved with the source's
   * constants once every file is read, like a URL, wherever the call is (a method, a nested function, a lambda).
   */
  readonly lateRef?: ((ref: string) => boolean) | undefined;
}

/**
 * A function of the source that makes an HTTP call to a URL built from one of its parameters
 * (`helpers.get = function (url, res) { request.get(url, …) }`): its callers make the call.
 */
export interface HttpWrapper {
  readonly name: string;
  /** The parameter's position, and its name (for keyword arguments). */
  readonly index: number;
  readonly param?: string;
  /**
   * JavaScript: the URL is a property of the object argument at `index` (`({ url }) => axios.post(url)`,
   * `(opts) => axios.post(opts.url)`): the caller's object literal's `field`.
   */
  readonly field?: string;
  /**
   * The method is an argument too (`axios[method](url)` with `method` a parameter or a property of the object
   * argument): the caller's literal names it (`method: 'post'`); unknown, the wrapper's `method` (`ANY`).
   */
  readonly methodFrom?: {
    readonly index: number;
    readonly field?: string;
    /** The receiver is only named like a client: a call naming no literal HTTP verb is no HTTP call. */
    readonly literalOnly?: boolean;
  };
  /** The URL around the parameter. */
  readonly before: readonly Part[];
  readonly after: readonly Part[];
  readonly method: HttpMethod;
  readonly client: string;
  /** Only calls with exactly this many arguments (Java: overloads by arity). */
  readonly arity?: number;
  /** The wrapper's own call (dropped once its callers are known). */
  readonly loc: Loc;
}

/** A call of a function by name with URL-looking arguments: a caller of a wrapper, if one has that name. */
export interface WrapperSite {
  readonly name: string;
  readonly args: readonly Part[][];
  readonly loc: Loc;
  /** Keyword arguments (Python `publish(exchange="x", routing_key=k)`): bound to the parameter of that name. */
  readonly named?: Readonly<Record<string, Part[]>>;
  /** JavaScript: the properties of each argument that is an object literal, by position (null: not one). */
  readonly fields?: readonly (Readonly<Record<string, Part[]>> | null)[];
  /**
   * The function around the call (Python): when the call passes one of its parameters on to a publish
   * wrapper, that function is a wrapper too (wrappers over wrappers, to any depth within a budget).
   */
  readonly within?: Within;
  /** A site only of a message wrapper (its arguments do not look like a URL): no HTTP wrapper's. */
  readonly messageOnly?: boolean;
}

/** The function around a call: its name and its parameters' names (Python's `self`/`cls` left out). */
export interface Within {
  readonly name: string;
  readonly params: readonly string[];
  /** Only calls with exactly this many arguments (Java: overloads by arity). */
  readonly arity?: number;
  /** Python: the default value of each parameter, for calls that leave it out. */
  readonly defaults?: readonly (Part[] | undefined)[];
}

/**
 * A method of the source that publishes with an exchange, routing key or topic taken from its parameters
 * (`def publish(self, subject, msg): channel.basic_publish(exchange=X, routing_key=subject)`): each call
 * of it from another class or file (`client.publish(self.subject, msg)`) is the publish, with that call's
 * arguments in place of the parameters (one level).
 */
export interface MessageWrapper {
  readonly within: Within;
  /**
   * `publish` (the default); `bind`: binds `queue` to `exchange` with `key` (aio-pika `queue.bind(exchange,
   * key)` in an `event_consumer(cb, exchange, key, queue_name=None)`); `consume`: consumes `queue`; `exchange`: declares
   * `exchange` with `exchangeType`. A queue
   * the call leaves unnamed (`None`) is the broker-named queue of that call.
   */
  readonly kind?: 'publish' | 'bind' | 'consume' | 'exchange';
  readonly queue?: readonly Part[];
  /** `exchange`: the type it declares `exchange` with. */
  readonly exchangeType?: ExchangeType;
  readonly broker: Broker;
  /** The names with `{ ref: parameter }` parts where the call's arguments go. */
  readonly exchange: readonly Part[];
  readonly key: readonly Part[];
  /** The wrapper's own publish (dropped once its callers are known). */
  readonly loc: Loc;
  /**
   * `writerMap`: the wrapper picks its kafka-go writer from a map by the topic (`w, ok := writers[topic]; if !ok
   * { return … }`): a call passing a topic that is no key of the source's writer maps publishes nothing.
   */
  readonly guard?: 'writerMap';
  /**
   * Names that take nothing from the parameters: only a call passing every parameter without a default (no
   * more) is a call of it, and a function passing none on is no wrapper of it.
   */
  readonly fixed?: boolean;
}

/** A function named as a messaging helper (`publish`, `pubish`, `sendEvent`, `emit_message`, `produce`, `notify`…). */
export const MESSAGING_HELPER_NAME = /pub|send|emit|produc|notif|dispatch|message|event|enqueue|broadcast/i;

/** A wrapper's URL: the one part of `url` that is a parameter of `within`, and the URL around it. */
export function paramWrapper(
  within: Within | undefined,
  url: readonly Part[],
): { name: string; index: number; param: string; before: Part[]; after: Part[]; arity?: number } | undefined {
  if (!within) return undefined;
  const at = url.flatMap((p, i) => ('ref' in p && within.params.includes(p.ref) ? [i] : []));
  if (at.length !== 1) return undefined;
  const k = at[0]!;
  return {
    name: within.name,
    index: within.params.indexOf((url[k] as { ref: string }).ref),
    param: (url[k] as { ref: string }).ref,
    before: url.slice(0, k),
    after: url.slice(k + 1),
    ...(within.arity !== undefined ? { arity: within.arity } : {}),
  };
}

/** A sink's content as structured-cloneable data: `Sink.state()` and `Sink.absorb()`. */
export interface SinkState {
  readonly facts: SourceFacts;
  readonly seen: readonly string[];
  readonly wrappers: readonly HttpWrapper[];
  readonly sites: readonly WrapperSite[];
  readonly messageWrappers: readonly MessageWrapper[];
  readonly topicRefs: Sink['topicRefs'];
  readonly routeRefs: Sink['routeRefs'];
  readonly exchangeRefs: Sink['exchangeRefs'];
  readonly bindingRefs: Sink['bindingRefs'];
  readonly grpcChannels: Sink['grpcChannels'];
  readonly grpcFields: Sink['grpcFields'];
  readonly nest: Sink['nest'];
  readonly registryBinds: Sink['registryBinds'];
  readonly registrations: Sink['registrations'];
  readonly handlerMethods: Sink['handlerMethods'];
  readonly handlerRoutes: Sink['handlerRoutes'];
  readonly handlerScopes: Sink['handlerScopes'];
  readonly optionSections: ReadonlyMap<string, string>;
  readonly entityTables: ReadonlyMap<string, string>;
  readonly dbSets: Sink['dbSets'];
  readonly returnSummaries: readonly ReturnSummary[];
  readonly callValues: ReadonlyMap<string, CallValue>;
}

/**
 * Return-value summaries (issue 20): a function or method of any file of the source whose returned string
 * is built from its parameters (`static string GetBasket(string baseUri, string id) => $"{baseUri}/{id}"`)
 * is summarised once; a call of it elsewhere (`API.Basket.GetBasket(_base, id)`) is a placeholder part
 * instantiated with the call's argument values once every file is read (`instantiateReturns`).
 */
/** A call whose value a return summary gives once the source is read; `named`: keyword arguments (Python). */
export interface CallValue {
  readonly name: string;
  readonly args: Part[][];
  readonly named?: Record<string, Part[]>;
}

export interface ReturnSummary {
  /** The function's name qualified by its enclosing classes (`API.Basket.GetBasket`); a module's: its name. */
  readonly name: string;
  readonly params: number;
  /** The parameters' names, for calls that pass keyword arguments (Python). */
  readonly names?: readonly string[];
  /** Parameters without a default. */
  readonly required: number;
  /** The returned value, parameter `i` written as the part `paramPart(i)`. */
  readonly value: readonly Part[];
}
const PARAM_MARK = '\u0002param:';
const CALL_MARK = '\u0002call:';
/** The placeholder of a summarised function's `i`th parameter. */
export const paramPart = (i: number): Part => ({ ref: `${PARAM_MARK}${i}` });
/** Whether a part is a summarised function's parameter (`paramPart`). */
export const isParamPart = (p: Part): p is { ref: string } => 'ref' in p && p.ref.startsWith(PARAM_MARK);
/**
 * A setting read under the name a parameter gives, with the default another parameter (or a literal) gives: a
 * project's `getEnv(key, fallback)` helper summarised (`{ env: <param 0>, fallback: <param 1> }`), instantiated
 * with the call's literal arguments.
 */
export const paramSetting = (key: Part, fallback?: Part | string): Part => {
  const k = 'ref' in key ? key.ref : '';
  const fb = typeof fallback === 'string' ? fallback : fallback && 'ref' in fallback ? fallback.ref : undefined;
  return fb === undefined ? { env: k } : { env: k, fallback: fb };
};
/** A summary worth keeping: it returns something known (a literal, a setting or one of its parameters). */
export function summarisable(value: readonly Part[]): boolean {
  return value.some(
    (p) =>
      'lit' in p ||
      'env' in p ||
      'config' in p ||
      ('ref' in p && p.ref.startsWith(PARAM_MARK)) ||
      // A few known alternatives (`env.url ? env.url : ""`): a value too.
      ('hole' in p && p.alts !== undefined && p.alts.some((a) => a.length > 0)),
  );
}
/** A summary's value for one call: its parameters replaced by the arguments, in the calls it makes too. */
function bindParams(value: readonly Part[], args: readonly Part[][], sink: Sink): Part[] {
  return concat(
    ...value.map((q): readonly Part[] => {
      // A setting named by a parameter (`os.Getenv(key)` in a `getEnv(key, def)` helper): the call's literals.
      if ('env' in q && q.env.startsWith(PARAM_MARK)) {
        const key = literal(args[Number(q.env.slice(PARAM_MARK.length))]);
        const fb = q.fallback?.startsWith(PARAM_MARK)
          ? literal(args[Number(q.fallback.slice(PARAM_MARK.length))])
          : q.fallback;
        if (key === undefined || key === '') return [HOLE_PART];
        return [fb === undefined ? { env: key } : { env: key, fallback: fb }];
      }
      if (!('ref' in q)) return [q];
      if (q.ref.startsWith(PARAM_MARK)) return args[Number(q.ref.slice(PARAM_MARK.length))] ?? [HOLE_PART];
      const inner = q.ref.startsWith(CALL_MARK) ? sink.callValues.get(q.ref.slice(CALL_MARK.length)) : undefined;
      return inner
        ? sink.callValue(
            inner.name,
            inner.args.map((a) => bindParams(a, args, sink)),
          )
        : [q];
    }),
  );
}
/** Budget: nested summaries instantiated at most this deep. */
const MAX_RETURN_DEPTH = 4;
/**
 * Budget (review 22): the summary parts one source's resolution may instantiate, shared by all its values, and the
 * parts and literal text one instantiation may make (more: unknown). A summary may use its parameter, or call
 * another summary, many times, so each level multiplied the work and the value: 600 bytes of
 * `f1 = (a) => '/' + f0(a) + f0(a) + …` made a 311 KB URL in 35 s. The same call at the same depth is
 * instantiated once per source (`done`).
 */
const MAX_INSTANTIATED_WORK = 50_000;
const MAX_INSTANTIATED_PARTS = 256;
const MAX_INSTANTIATED_CHARS = 4_096;
const tooLong = (parts: readonly Part[]): boolean =>
  parts.length > MAX_INSTANTIATED_PARTS ||
  parts.reduce((n, p) => n + ('lit' in p ? p.lit.length : 0), 0) > MAX_INSTANTIATED_CHARS;
export interface InstantiationBudget {
  left: number;
  readonly done: Map<string, Part[]>;
}
/** What one source's resolution may instantiate, shared by all its values. */
export const instantiationBudget = (): InstantiationBudget => ({ left: MAX_INSTANTIATED_WORK, done: new Map() });

/**
 * A call's placeholder replaced by the summary it names: the summaries whose qualified name ends with the
 * call's (`Basket.GetBasket` → `API.Basket.GetBasket`, or the reverse for a namespace-qualified call), else,
 * for a call on a variable (`this.urls.orderUrl(id)`), the one URL-building summary of that method name; one
 * value when every fitting summary (by arity) agrees, else unknown. `resolve` resolves the other references.
 */
export function instantiateReturns(
  parts: readonly Part[],
  sink: Sink,
  resolve: (parts: readonly Part[]) => Part[],
  depth = 0,
  budget = instantiationBudget(),
): Part[] {
  return concat(
    ...parts.map((p): readonly Part[] => {
      // Alternatives (`cond ? A(x) : B(x)`): each instantiated.
      if ('hole' in p && p.alts)
        return [{ hole: true, alts: p.alts.map((a) => instantiateReturns(a, sink, resolve, depth, budget)) }];
      if (!('ref' in p)) return [p];
      if (p.ref.startsWith(PARAM_MARK)) return [HOLE_PART];
      if (!p.ref.startsWith(CALL_MARK)) return [p];
      const site = sink.callValues.get(p.ref.slice(CALL_MARK.length));
      const given = site ? site.args.length + Object.keys(site.named ?? {}).length : 0;
      const summary = site && depth < MAX_RETURN_DEPTH ? sink.summaryFor(site.name, given) : undefined;
      if (!summary) return [HOLE_PART];
      // Keyword arguments take the position of the parameter they name; one the function lacks: no value.
      const kw = site!.named;
      if (kw && Object.keys(kw).some((k) => !summary.names?.includes(k))) return [HOLE_PART];
      const args = kw
        ? (summary.names ?? []).map(
            (n, i) => site!.args[i] ?? (Object.prototype.hasOwnProperty.call(kw, n) ? kw[n]! : [HOLE_PART]),
          )
        : site!.args;
      const key = `${depth}|${p.ref}`;
      const done = budget.done.get(key);
      if (done) return done;
      if (budget.left <= 0) return [HOLE_PART];
      budget.left -= 1 + summary.value.length;
      const bound = bindParams(summary.value, args, sink);
      let value = tooLong(bound) ? [HOLE_PART] : instantiateReturns(resolve(bound), sink, resolve, depth + 1, budget);
      if (tooLong(value)) value = [HOLE_PART];
      budget.done.set(key, value);
      return value;
    }),
  );
}

/** Writes facts with de-duplication of exact repeats (the same fact found by two rules). */
export class Sink {
  readonly #seen = new Set<string>();
  /** Extraction-time only (not facts): wrappers and their possible callers, joined once the source is read. */
  readonly wrappers: HttpWrapper[] = [];
  readonly sites: WrapperSite[] = [];
  readonly messageWrappers: MessageWrapper[] = [];
  /** This file's calls and publishes over its objects' fields, taken by its class summaries (never across files). */
  readonly fieldUses: FieldUse[] = [];
  /**
   * Broker names resolved once the source is read: Kafka topics (and NATS subjects, `broker` set) named by a
   * constant of another file or package (`kafka.Topic`, `events.OrderCreated`, `settings.SUBJECT`), and RabbitMQ
   * names read from an options class (`routingKey: options.Value.QueueName`), whose configuration section another
   * file binds (`Configure<T>(GetSection(…))`). No broker: Kafka. `binding`: the name is a Spring Cloud Stream
   * binding (its topic is the binding's destination), dropped when it does not resolve (`x.m().send(…)` on
   * anything but a bound channel interface). A NATS consumer's queue group, JetStream stream and durable name alike.
   */
  readonly topicRefs: {
    side: 'publish' | 'consume' | 'queue';
    parts: Part[];
    loc: Loc;
    broker?: Broker;
    exchange?: Part[];
    binding?: true;
    group?: Part[];
    stream?: Part[];
    durable?: Part[];
    /** A consumer class the subscription routes to (Karafka): the consumer is shown at its handler method. */
    handler?: string;
  }[] = [];
  /** Handler methods of classes by `Class#method` (Ruby consumers' `consume`), for routed subscriptions. */
  readonly handlerMethods: { name: string; loc: Loc }[] = [];
  /**
   * actix-web: handlers whose attribute names their route (`#[get("/x")] async fn h`), and the registrations
   * of handlers by name under a scope (`web::scope("/api").service(h)`, `path` as written: `endpoints::h`);
   * the route takes the scope's prefix once every file is read (`applyHandlerScopes`).
   */
  readonly handlerRoutes: { handler: string; loc: Loc }[] = [];
  readonly handlerScopes: { path: string; prefix: string }[] = [];
  /**
   * Served routes whose path names a value of another file (`@app.get(f"/api/{settings.API_VERSION}/x")`):
   * made endpoints once the source is read, when the path resolves (`routePath`).
   */
  readonly routeRefs: {
    method: HttpMethod;
    parts: Part[];
    framework: string;
    loc: Loc;
    routerFile?: string;
    routerPrefix?: string;
  }[] = [];
  /** RabbitMQ exchanges declared with a name of another file (`declare_exchange(name=settings.x)`): resolved with the source. */
  readonly exchangeRefs: { parts: Part[]; type: ExchangeType; loc: Loc }[] = [];
  /** RabbitMQ bindings whose names hold values of other files (Elixir `Application.get_env` of `config/*.exs`). */
  readonly bindingRefs: { exchange: Part[]; queue: Part[]; key: Part[]; loc: Loc }[] = [];
  /** gRPC channels dialled into a named variable or field, with their address (for clients of other files). */
  readonly grpcChannels: { name: string; address: Part[] }[] = [];
  /** NestJS microservice registrations, injections, sends and handlers of every file (nest-micro.ts). */
  readonly nest: NestPiece[] = [];
  /**
   * Go: struct fields typed as a generated client (`uc userv1.UserClient`, `service` set) and calls through a
   * field of a receiver (`r.data.uc.GetUser(`, `method` set), by file; joined per package folder once the
   * source is read (the field is declared in one file of the package, called in others), or through the
   * packages of the same Go module the calling file imports (`api.App.Client.M(` with `App *config.Config`).
   */
  readonly grpcFields: {
    file: string;
    name: string;
    service?: string;
    method?: string;
    line: number;
    /** A file's import paths (`name` empty): the packages of the module whose fields its calls may reach. */
    imports?: string[];
  }[] = [];
  /**
   * Message-bus library facts joined once the source is read: a bind of `queue` to `exchange` with each
   * key of a registry member (`foreach (var (k, _) in info.EventTypes) QueueBind(q, ex, k)`), and the
   * generic methods that register their type argument's name in that member (`o.EventTypes[typeof(T).Name]`).
   */
  readonly registryBinds: { registry: string; exchange: string; queue: Part[]; loc: Loc }[] = [];
  readonly registrations: { method: string; registry: string; typeIndex: number }[] = [];
  /** Options classes bound to a configuration section (`Configure<EventBusOptions>(config.GetSection("EventBus"))`). */
  readonly optionSections = new Map<string, string>();
  /**
   * ORM entity classes mapped to another table (`[Table]`, EF Core `ToTable`, JPA `@Table`/`@Entity(name)`),
   * keyed by the class (or JPA entity) name in lower case; and EF Core `DbSet<T> Name` properties, whose table
   * is T's mapped table when the source maps it, else the property's name. Joined once every file is read.
   */
  readonly entityTables = new Map<string, string>();
  readonly dbSets: { entity: string; property: string; loc: Loc }[] = [];
  /** Return-value summaries of the source's functions, and the calls of them met while evaluating. */
  readonly returnSummaries: ReturnSummary[] = [];
  /** Calls of functions of other files, by their placeholder's key (their name and arguments). */
  readonly callValues = new Map<string, CallValue>();
  #summaryIndex: Map<string, ReturnSummary[]> | undefined;
  constructor(readonly facts: SourceFacts) {}

  /** What one file's extraction left here, as plain data (a parse worker sends it to the source's sink). */
  state(): SinkState {
    return {
      facts: this.facts,
      seen: [...this.#seen],
      wrappers: this.wrappers,
      sites: this.sites,
      messageWrappers: this.messageWrappers,
      topicRefs: this.topicRefs,
      routeRefs: this.routeRefs,
      exchangeRefs: this.exchangeRefs,
      bindingRefs: this.bindingRefs,
      grpcChannels: this.grpcChannels,
      grpcFields: this.grpcFields,
      nest: this.nest,
      registryBinds: this.registryBinds,
      registrations: this.registrations,
      handlerMethods: this.handlerMethods,
      handlerRoutes: this.handlerRoutes,
      handlerScopes: this.handlerScopes,
      optionSections: this.optionSections,
      entityTables: this.entityTables,
      dbSets: this.dbSets,
      returnSummaries: this.returnSummaries,
      callValues: this.callValues,
    };
  }

  /**
   * Adds one file's state after the files before it, as if that file had been extracted into this sink:
   * lists appended, records and maps overwritten key by key (the later file wins, as it did in place).
   */
  absorb(state: SinkState): void {
    for (const k of state.seen) this.#seen.add(k);
    const facts = this.facts as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(state.facts) as [string, unknown][]) {
      if (key === 'source' || key === 'files' || key === 'parsedFiles') continue;
      const mine = facts[key];
      if (Array.isArray(value)) {
        if (Array.isArray(mine)) for (const v of value as unknown[]) mine.push(v);
        else if (value.length) facts[key] = [...(value as unknown[])];
      } else if (value && typeof value === 'object') {
        const rec = (mine ?? (facts[key] = {})) as Record<string, unknown>;
        // Channel constants of two files disagreeing on a name are neither value (`applyChannelConstants`).
        const clash = key === 'channelConstants' ? '{}' : undefined;
        for (const [k, v] of Object.entries(value as Record<string, unknown>))
          if (k !== '__proto__') rec[k] = clash !== undefined && k in rec && rec[k] !== v ? clash : v;
      }
    }
    this.wrappers.push(...state.wrappers);
    this.sites.push(...state.sites);
    this.messageWrappers.push(...state.messageWrappers);
    this.topicRefs.push(...state.topicRefs);
    this.routeRefs.push(...state.routeRefs);
    this.exchangeRefs.push(...state.exchangeRefs);
    this.bindingRefs.push(...state.bindingRefs);
    this.grpcChannels.push(...state.grpcChannels);
    this.grpcFields.push(...state.grpcFields);
    this.nest.push(...state.nest);
    this.registryBinds.push(...state.registryBinds);
    this.registrations.push(...state.registrations);
    this.handlerMethods.push(...state.handlerMethods);
    this.handlerRoutes.push(...state.handlerRoutes);
    this.handlerScopes.push(...state.handlerScopes);
    for (const [k, v] of state.optionSections) this.optionSections.set(k, v);
    for (const [k, v] of state.entityTables) this.entityTables.set(k, v);
    this.dbSets.push(...state.dbSets);
    if (state.returnSummaries.length) {
      this.returnSummaries.push(...state.returnSummaries);
      this.#summaryIndex = undefined;
    }
    for (const [k, v] of state.callValues) this.callValues.set(k, v);
  }

  /** A call of a function of another file or class (`API.Basket.GetBasket`): a placeholder until it is summarised. */
  callValue(name: string, args: Part[][], named?: Record<string, Part[]>): Part[] {
    // Keyed by content: the same call evaluated twice (two rules) is one placeholder, so its facts stay one,
    // and a file's placeholders mean the same in the source's sink that absorbs it (parse workers).
    const kw = named && Object.keys(named).length ? named : undefined;
    const key = JSON.stringify(kw ? [name, args, kw] : [name, args]);
    if (!this.callValues.has(key)) this.callValues.set(key, kw ? { name, args, named: kw } : { name, args });
    return [{ ref: `${CALL_MARK}${key}` }];
  }

  /** The one summary a call names (see `instantiateReturns`). */
  summaryFor(name: string, arity: number): ReturnSummary | undefined {
    if (!this.#summaryIndex) {
      this.#summaryIndex = new Map();
      for (const s of this.returnSummaries) {
        const last = s.name.slice(s.name.lastIndexOf('.') + 1);
        this.#summaryIndex.set(last, [...(this.#summaryIndex.get(last) ?? []), s]);
      }
    }
    const segs = name.split('.');
    const fits = (this.#summaryIndex.get(segs[segs.length - 1]!) ?? []).filter(
      (s) => arity >= s.required && arity <= s.params,
    );
    const suffix = (a: readonly string[], b: readonly string[]): boolean =>
      a.length <= b.length && a.every((x, i) => x === b[b.length - a.length + i]);
    let found = fits.filter((s) => suffix(segs, s.name.split('.')) || suffix(s.name.split('.'), segs));
    // A call on a variable or field: by the method's name alone, when it builds a URL (a literal path).
    if (found.length === 0 && segs.length > 1 && /^(this|self|[a-z_])/.test(segs[0]!))
      found = fits.filter((s) => s.value.some((p) => 'lit' in p && /[/:]/.test(p.lit)));
    if (found.length === 0) return undefined;
    const first = JSON.stringify(found[0]!.value);
    return found.every((s) => JSON.stringify(s.value) === first) ? found[0] : undefined;
  }

  busSite(site: BusSite): void {
    if (this.#once(`bs|${site.kind}|${site.method}|${site.types.join(',')}|${site.loc.file}|${site.loc.line}`))
      this.facts.busSites?.push(site);
  }
  busSummary(summary: BusSummary): void {
    this.facts.busSummaries?.push(summary);
  }

  #once(key: string): boolean {
    if (this.#seen.has(key)) return false;
    this.#seen.add(key);
    return true;
  }

  endpoint(
    method: HttpMethod,
    path: string,
    framework: string,
    loc: Loc,
    routerFile?: string,
    routerPrefix?: string,
    versions?: readonly string[],
  ): void {
    if (this.#once(`e|${method}|${path}|${loc.file}|${loc.line}`))
      this.facts.endpoints.push({
        method,
        path,
        framework,
        loc,
        ...(routerFile ? { routerFile } : {}),
        ...(routerFile && routerPrefix !== undefined ? { routerPrefix } : {}),
        ...(versions && versions.length ? { versions } : {}),
      });
  }
  call(
    method: HttpMethod,
    url: Part[],
    client: string,
    loc: Loc,
    extra: {
      serviceName?: string;
      clientClass?: string;
      clientType?: string;
      clientMethod?: string;
      body?: Record<string, Part[]>;
    } = {},
  ): void {
    if (url.some(isObjectRef)) this.fieldUses.push({ kind: 'http', method, url, client, loc });
    // A URL built from a variable set in branches: one call per value it may have.
    for (const one of expandAlternatives(url))
      if (this.#once(`c|${loc.file}|${loc.line}|${JSON.stringify(one)}`))
        this.facts.calls.push({ method, url: one, client, loc, ...extra });
  }
  publish(
    broker: Broker,
    exchange: string,
    key: string,
    loc: Loc,
    stream?: boolean,
    types?: readonly string[],
    keyRef?: string,
    implicit?: boolean,
    connection?: string,
  ): void {
    if (this.#once(`p|${broker}|${exchange}|${key}|${loc.file}|${loc.line}`))
      this.facts.publishes.push({
        broker,
        exchange,
        key,
        loc,
        ...(stream ? { stream } : {}),
        ...(types?.length ? { types } : {}),
        ...(keyRef && key === '{}' ? { keyRef } : {}),
        ...(implicit ? { implicit } : {}),
        ...(connection ? { connection } : {}),
      });
  }
  consume(
    broker: Broker,
    queue: string,
    loc: Loc,
    stream?: boolean,
    types?: readonly string[],
    extra?: {
      readonly jetStream?: string;
      readonly durable?: string;
      readonly taskQueue?: string;
      readonly connection?: string;
      readonly moduleNamed?: boolean;
    },
  ): void {
    if (this.#once(`k|${broker}|${queue}|${loc.file}|${loc.line}`))
      this.facts.consumes.push({
        broker,
        queue,
        loc,
        ...(stream ? { stream } : {}),
        ...(types?.length ? { types } : {}),
        ...(extra?.jetStream ? { jetStream: extra.jetStream } : {}),
        ...(extra?.durable ? { durable: extra.durable } : {}),
        ...(extra?.taskQueue ? { taskQueue: extra.taskQueue } : {}),
        ...(extra?.moduleNamed ? { moduleNamed: true } : {}),
        ...(extra?.connection ? { connection: extra.connection } : {}),
      });
  }
  binding(exchange: string, queue: string, key: string, loc: Loc): void {
    if (this.#once(`b|${exchange}|${queue}|${key}|${loc.file}|${loc.line}`))
      this.facts.bindings.push({ exchange, queue, key, loc });
  }
  exchange(name: string, type: ExchangeType, loc: Loc): void {
    if (this.#once(`x|${name}|${loc.file}|${loc.line}`)) this.facts.exchanges.push({ name, type, loc });
  }
  queue(name: string, loc: Loc): void {
    if (this.#once(`q|${name}|${loc.file}|${loc.line}`)) this.facts.queues.push({ name, loc });
  }
  data(kind: 'table' | 'collection' | 'redis', name: string, loc: Loc): void {
    if (this.#once(`d|${kind}|${name.toLowerCase()}|${loc.file}|${loc.line}`))
      this.facts.data.push({ kind, name: name.toLowerCase(), loc });
  }
  sql(text: string, loc: Loc): void {
    for (const t of sqlTables(text)) this.data('table', t, loc);
  }
}

const SHARED_NAMES = new Set(
  'publish basicpublish basicpublishasync basic_publish publishwithcontext sendtoqueue convertandsend consume basicconsume basicconsumeasync basic_consume bindqueue queuebind queuebindasync queue_bind assertexchange exchangedeclare exchangedeclareasync exchange_declare assertqueue queuedeclare queuedeclareasync queue_declare send send_and_wait produce produceasync subscribe consumepartition setqueuenames collection getcollection get_collection'.split(
    ' ',
  ),
);

/**
 * Whether the shared rules look at a call of this name: the others are skipped before their
 * arguments are evaluated (most calls in a file are neither HTTP, messaging nor data).
 */
export function sharedRuleName(name: string): boolean {
  const lower = name.toLowerCase();
  return SHARED_NAMES.has(lower) || REDIS_METHODS.has(lower);
}

/** AMQP publishers by declared type, whatever the variable is called (golevelup's `bus.publish(exchange, key, msg)`). */
const AMQP_PUBLISHER_TYPE = /^AmqpConnection$/;

/** Kafka producers by declared type, whatever the variable is called (`template.send("orders", key, order)`). */
const KAFKA_SENDER_TYPE = /^(?:\w*Kafka\w*(?:Template|Producer)\w*|Producer)$/;

const arg = (c: CallSite, i: number, ...names: string[]): Part[] | undefined => {
  for (const n of names) {
    const v = c.named.get(n);
    if (v) return v;
  }
  return c.args[i];
};

/** The exchange of a Spring RabbitTemplate's `convertAndSend(routingKey, msg)` (a template's `setExchange` sets it). */
export const TEMPLATE_EXCHANGE = 'spring.rabbitmq.template.exchange';

/**
 * Rules shared by every language: RabbitMQ clients (amqplib, RabbitMQ.Client, pika, amqp091-go,
 * Spring RabbitTemplate), Kafka clients, Redis, Mongo. HTTP calls and endpoints are per language.
 */
export function sharedCallRules(c: CallSite, sink: Sink): void {
  const n = c.name;
  const lower = n.toLowerCase();
  const recv = c.receiver.toLowerCase();
  const s = (p: Part[] | undefined): string | undefined => nameOf(p);
  /** A RabbitMQ name read from an options class: resolved with the source's section binding (`topicRefs`). */
  const later = (side: 'publish' | 'consume' | 'queue', parts: Part[] | undefined, exchange?: Part[]): boolean => {
    const all = [...(parts ?? []), ...(exchange ?? [])];
    if (!all.some((p) => 'ref' in p && OPTIONS_REF.test(p.ref)) && !importedOnly(all)) return false;
    sink.topicRefs.push({
      side,
      broker: 'rabbitmq',
      parts: parts ?? [],
      loc: c.loc,
      ...(exchange ? { exchange } : {}),
    });
    return true;
  };
  /**
   * Names holding a constant of another file (`c.lateRef`) and nothing else of run time: no parameter of the
   * function around the call (its callers name those, see `viaParams`), no object field.
   */
  const importedOnly = (parts: readonly Part[]): boolean => {
    const late = c.lateRef;
    if (!late) return false;
    let imported = false;
    for (const p of parts) {
      if ('hole' in p) return false;
      if (!('ref' in p)) continue;
      if (isObjectRef(p) || c.within?.params.includes(p.ref) || !late(p.ref)) return false;
      imported = true;
    }
    return imported;
  };
  /** A publish whose exchange or key is a parameter of the function around it: that function is a wrapper. */
  const viaParams = (broker: Broker, exchange: Part[] | undefined, key: Part[] | undefined): void => {
    const w = c.within;
    const isParam = (p: Part): boolean => 'ref' in p && w !== undefined && w.params.includes(p.ref);
    // A name from the object's fields: its class's summary publishes where the object is created and used.
    if ([...(exchange ?? []), ...(key ?? [])].some(isObjectRef))
      sink.fieldUses.push({ kind: 'publish', broker, exchange: exchange ?? [], key: key ?? [], loc: c.loc });
    else if (w && [...(exchange ?? []), ...(key ?? [])].some(isParam))
      sink.messageWrappers.push({ within: w, broker, exchange: exchange ?? [], key: key ?? [], loc: c.loc });
    // Names written in the function (`def publish(self, method, body): basic_publish(exchange='', routing_key='q')`):
    // each call of the function is the publish, so that each calling site is its own row. Only a function named as a
    // messaging helper: a use case that also publishes (`registerCustomer`) is where its publish happens.
    else if (
      w &&
      MESSAGING_HELPER_NAME.test(w.name.replace(/^.*\./, '')) &&
      [...(exchange ?? []), ...(key ?? [])].every((p) => 'lit' in p)
    )
      sink.messageWrappers.push({
        within: w,
        broker,
        exchange: exchange ?? [],
        key: key ?? [],
        loc: c.loc,
        fixed: true,
      });
  };
  switch (lower) {
    // ---- RabbitMQ publishers
    case 'publish':
    case 'basicpublish':
    case 'basicpublishasync':
    case 'basic_publish':
    case 'publishwithcontext': {
      if (
        lower === 'publish' &&
        /redis|event|emitter|bus|pubsub/.test(recv) &&
        !AMQP_PUBLISHER_TYPE.test(c.receiverType ?? '')
      )
        break;
      const offset = lower === 'publishwithcontext' ? 1 : 0;
      const exParts = arg(c, offset, 'exchange');
      const keyParts = arg(c, offset + 1, 'routingKey', 'routing_key', 'key');
      if (lower !== 'publish' && exParts && keyParts && later('publish', keyParts, exParts)) break;
      const ex = s(exParts);
      const key = s(keyParts);
      if (ex !== undefined && key !== undefined && (lower !== 'publish' || c.args.length >= 3)) {
        sink.publish('rabbitmq', ex, key, c.loc, undefined, undefined, fieldRefOf(keyParts));
        viaParams('rabbitmq', exParts, keyParts);
      }
      break;
    }
    case 'sendtoqueue': {
      const q = s(arg(c, 0, 'queue'));
      if (q !== undefined) {
        sink.publish('rabbitmq', '', q, c.loc);
        viaParams('rabbitmq', [], arg(c, 0, 'queue'));
      }
      break;
    }
    case 'convertandsend': {
      if (c.args.length >= 3) {
        // Exchange and key named by another class's constants (`RabbitMQConfig.ORDER_EXCHANGE`): resolved later.
        if (later('publish', c.args[1], c.args[0])) break;
        const ex = s(c.args[0]);
        const key = s(c.args[1]);
        if (ex !== undefined && key !== undefined) {
          sink.publish('rabbitmq', ex, key, c.loc);
          viaParams('rabbitmq', c.args[0], c.args[1]);
        }
      } else if (c.args.length === 2) {
        // Spring AMQP `convertAndSend(routingKey, msg)`: the template's own exchange (`setExchange(…)` or
        // `spring.rabbitmq.template.exchange`), else the default exchange, where the key is the queue's name.
        const key = s(c.args[0]);
        if (key !== undefined) {
          sink.publish('rabbitmq', s([{ config: TEMPLATE_EXCHANGE, fallback: '' }])!, key, c.loc);
          viaParams('rabbitmq', [], c.args[0]);
        }
      }
      break;
    }
    // ---- RabbitMQ consumers
    case 'consume':
    case 'basicconsume':
    case 'basicconsumeasync':
    case 'basic_consume': {
      // sarama consumer groups: group.Consume(ctx, []string{"orders"}, handler)
      if (lower === 'consume' && c.args.length === 3 && /group/.test(recv) && c.args[1]) {
        for (const t of splitList(c.args[1])) sink.consume('kafka', t, c.loc);
        break;
      }
      // amqplib consume(queue, onMessage) and amqp091 Consume(queue, consumer, …) take a handler or options after the
      // queue; a one-argument Consume(ct) / consume(timeout) is a Kafka poll (Confluent.Kafka, confluent-kafka), not AMQP.
      if (lower !== 'consume' && later('consume', arg(c, 0, 'queue'))) break;
      const q = s(arg(c, 0, 'queue'));
      if (q !== undefined && (lower !== 'consume' || c.args.length >= 2 || c.named.has('queue')))
        sink.consume('rabbitmq', q, c.loc);
      break;
    }
    // ---- bindings and declarations
    case 'bindqueue':
    case 'queuebind':
    case 'queuebindasync':
    case 'queue_bind': {
      const q = s(arg(c, 0, 'queue', 'name'));
      // amqp091-go: QueueBind(name, key, exchange, ...); the others: (queue, exchange, key).
      const goOrder = n === 'QueueBind' && c.args.length >= 5;
      const ex = s(goOrder ? arg(c, 2, 'exchange') : arg(c, 1, 'exchange'));
      const key = s(goOrder ? arg(c, 1, 'key') : arg(c, 2, 'routingKey', 'routing_key', 'pattern', 'key')) ?? '';
      if (q !== undefined && ex !== undefined) sink.binding(ex, q, key, c.loc);
      break;
    }
    case 'assertexchange':
    case 'exchangedeclare':
    case 'exchangedeclareasync':
    case 'exchange_declare': {
      const name = s(arg(c, 0, 'exchange', 'name'));
      const type = exchangeType(rawName(arg(c, 1, 'type', 'exchange_type', 'kind')));
      if (name !== undefined && type) sink.exchange(name, type, c.loc);
      break;
    }
    case 'assertqueue':
    case 'queuedeclare':
    case 'queuedeclareasync':
    case 'queue_declare': {
      if (later('queue', arg(c, 0, 'queue', 'name'))) break;
      const q = s(arg(c, 0, 'queue', 'name'));
      if (q !== undefined && q !== '') sink.queue(q, c.loc);
      break;
    }
    // ---- Kafka
    case 'send':
    case 'send_and_wait': {
      // aiokafka producer.send_and_wait(topic, value)
      // kafkajs producer.send({ topic, messages }); Spring KafkaTemplate.send(topic, ...); kafka-python producer.send(topic, ...)
      const topic = c.named.get('topic');
      if (topic && c.named.has('messages')) sink.publish('kafka', '', s(topic)!, c.loc);
      else if ((/kafka|producer/.test(recv) || KAFKA_SENDER_TYPE.test(c.receiverType ?? '')) && c.args[0]) {
        // A literal topic, or one from configuration (`@Value("${app.topic}") String topic`, resolved when
        // linking). Anything else is usually a record (`producer.send(record)`, read where the
        // `ProducerRecord` is created) or a batch, not a topic: no fact.
        const t = nameOf(c.args[0]);
        if (t !== undefined && !t.includes(PARAM_TEXT)) sink.publish('kafka', '', t, c.loc);
        // A topic constant of another module (Python `from config import TOPIC`): resolved with the source's.
        else if (importedOnly(c.args[0])) sink.topicRefs.push({ side: 'publish', parts: c.args[0], loc: c.loc });
        // producer.send(topic, value) inside a method whose `topic` is a parameter: its callers name the topic.
        else viaParams('kafka', [], c.args[0]);
      }
      break;
    }
    case 'produce':
    case 'produceasync': {
      const topicParts = arg(c, 0, 'topic');
      const t = s(topicParts);
      if (topicParts && importedOnly(topicParts))
        sink.topicRefs.push({ side: 'publish', parts: topicParts, loc: c.loc });
      else if (t !== undefined) {
        sink.publish('kafka', '', t, c.loc);
        viaParams('kafka', [], arg(c, 0, 'topic'));
      }
      break;
    }
    // sarama: consumer.ConsumePartition("topic", 0, offset)
    case 'consumepartition': {
      const t = s(c.args[0]);
      if (t !== undefined) sink.consume('kafka', t, c.loc);
      break;
    }
    // Spring AMQP: container.setQueueNames("a", "b")
    case 'setqueuenames': {
      for (const a of c.args) {
        const q = s(a);
        if (q !== undefined) for (const one of q.split(LIST_SEP)) if (one) sink.consume('rabbitmq', one, c.loc);
      }
      break;
    }
    case 'subscribe': {
      if (/redis|pubsub|observable|emitter/.test(recv)) break;
      const one = c.named.get('topic');
      if (one) sink.consume('kafka', s(one)!, c.loc);
      const many = c.named.get('topics');
      if (many) for (const t of splitList(many)) sink.consume('kafka', t, c.loc);
      if (!one && !many && c.args[0] && /consumer|kafka/.test(recv))
        for (const t of splitList(c.args[0])) sink.consume('kafka', t, c.loc);
      break;
    }
    // ---- Mongo
    case 'collection':
    case 'getcollection':
    case 'get_collection': {
      const name = literal(arg(c, 0, 'name'));
      if (name) sink.data('collection', name, c.loc);
      break;
    }
    default:
      break;
  }
  if (REDIS_METHODS.has(lower) && REDIS_RECEIVER.test(c.receiver)) {
    for (const a of c.args.slice(0, 2)) {
      const prefix = redisPrefix(a);
      if (prefix) {
        sink.data('redis', prefix, c.loc);
        break;
      }
    }
  }
}

/** The topic of a Spring Cloud Stream binding: its configured destination, else the binding name. */
export const streamDestination = (binding: string): string =>
  `\${spring.cloud.stream.bindings.${binding}.destination:${binding}}`;

/** A list literal evaluated by the language adapter arrives as parts joined by `\u0001`. */
export const LIST_SEP = '\u0001';
export function splitList(parts: Part[]): string[] {
  const t = nameOf(parts);
  return t === undefined ? [] : t.split(LIST_SEP).filter((x) => x.length > 0);
}

/**
 * Pre-order walk with a tree cursor, materialising only nodes whose type is interesting: crossing
 * the wasm boundary for every node (children arrays) dominates the parse stage otherwise.
 */
const queryCache = new WeakMap<ReadonlySet<string>, Map<unknown, Query>>();

/** One query capturing every node of the interesting types (runs inside the wasm parser). */
function queryFor(root: Node, interesting: ReadonlySet<string>): Query {
  const language = root.tree.language;
  let byLanguage = queryCache.get(interesting);
  if (!byLanguage) {
    byLanguage = new Map();
    queryCache.set(interesting, byLanguage);
  }
  let query = byLanguage.get(language);
  if (!query) {
    // Only types this grammar has: a query naming an unknown type does not compile.
    const types = [...interesting].filter((t) => language.idForNodeType(t, true) !== null);
    // One capture name per type: the visitor learns each node's type without asking the tree for it.
    query = new Query(language, `[${types.map((t) => `(${t}) @${t}`).join(' ')}]`);
    byLanguage.set(language, query);
  }
  return query;
}

/**
 * The `return` statements of a function body, in document order, leaving out those inside a nested node
 * `stop` names (functions, classes). tree-sitter finds them in one call; visiting the body node by node
 * from JavaScript crossed into wasm for every child.
 */
export function returnStatements(body: Node, stop: (type: string) => boolean): Node[] {
  return (captured(body, 'return_statement') ?? body.descendantsOfType('return_statement')).filter((r): r is Node => {
    if (!r) return false;
    for (let p = r.parent; p && p.id !== body.id; p = p.parent) if (stop(p.type)) return false;
    return true;
  });
}

/**
 * Visits the nodes of the interesting types in document order. A tree-sitter query finds them inside
 * the wasm parser: walking every node from JavaScript (children arrays, cursors) costs more than the parse.
 */
export function walk(root: Node, interesting: ReadonlySet<string>, visit: (node: Node, type: string) => void): void {
  const last = lastWalk;
  if (last && last.tree === root.tree && last.root === root.id && [...interesting].every((t) => last.types.has(t))) {
    for (const c of last.captures) if (interesting.has(c.name)) visit(c.node, c.name);
    return;
  }
  const captures = queryFor(root, interesting).captures(root);
  lastWalk = { tree: root.tree, root: root.id, types: interesting, captures, byType: new Map() };
  for (const capture of captures) visit(capture.node, capture.name);
}

/**
 * The nodes of `type` inside `outer` (its descendants, in document order) from the last walk's captures, when that
 * walk covered the type over `outer`'s tree (the languages name the types: `captureAlso`); else undefined. Found by
 * offset in the type's captures instead of a `descendantsOfType` descent of each function body.
 */
export function captured(outer: Node, type: string): Node[] | undefined {
  const last = lastWalk;
  if (!last || last.tree !== outer.tree || !last.types.has(type)) return undefined;
  let nodes = last.byType.get(type);
  if (!nodes) {
    nodes = [];
    for (const c of last.captures) if (c.name === type) nodes.push(c.node);
    last.byType.set(type, nodes);
  }
  const start = outer.startIndex;
  const end = outer.endIndex;
  let lo = 0;
  let hi = nodes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (nodes[mid]!.startIndex < start) lo = mid + 1;
    else hi = mid;
  }
  const out: Node[] = [];
  for (let i = lo; i < nodes.length && nodes[i]!.startIndex < end; i++)
    if (nodes[i]!.id !== outer.id && nodes[i]!.endIndex <= end) out.push(nodes[i]!);
  return out;
}

/** Drops the last walk's captures (the file is done): its nodes are not kept alive until the next file's walk. */
export function forgetWalk(): void {
  lastWalk = undefined;
}

/**
 * The last walk: a later walk of the same root for types it covered (the JavaScript module graph after the
 * file's rules, comments for `codeText`) filters its captures, in the same document order, instead of running
 * the query again, and reuses its nodes (whose reads are memoised). One slot, not a WeakMap keyed by tree: an
 * ephemeron holding every capture of each file multiplied the collector's time (3.5 s instead of 0.7 s).
 */
let lastWalk:
  | {
      tree: Node['tree'];
      root: number;
      types: ReadonlySet<string>;
      captures: readonly { node: Node; name: string }[];
      /** The captures of one type, for `captured`. */
      byType: Map<string, Node[]>;
    }
  | undefined;

/**
 * The tables the database sees: a `DbSet<T>` is T's mapped table (EF Core's rule: `ToTable`/`[Table]`, else the
 * DbSet's name); a name in a query that is an entity mapped to another table (JPQL and HQL name entities, not
 * tables) is that table.
 */
export function applyEntityTables(facts: SourceFacts, sink: Sink): void {
  for (const d of sink.dbSets) sink.data('table', sink.entityTables.get(d.entity.toLowerCase()) ?? d.property, d.loc);
  if (sink.entityTables.size === 0) return;
  const seen = new Set<string>();
  const kept: DataTouch[] = [];
  for (const d of facts.data) {
    const name = d.kind === 'table' ? (sink.entityTables.get(d.name) ?? d.name) : d.name;
    const key = `${d.kind}|${name}|${d.loc.file}|${d.loc.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(name === d.name ? d : { ...d, name });
  }
  facts.data.splice(0, facts.data.length, ...kept);
}
