import { parseAllDocuments } from 'yaml';
import type { Broker, Loc, SourceFacts } from '../model';
import { type Sink, nameOf } from './common';
import { activeJobs } from './active-job';
import { golevelupRabbit } from './golevelup';
import { laravelJobs } from './laravel';
import { pythonTasks, rqCommands } from './python-tasks';

/**
 * Message libraries whose broker routes by a name alone (ADR 0039): a producer and a consumer of the same
 * name form a flow, the way a Kafka topic is its own binding. Celery (task names), Bull/BullMQ (queue
 * names), NATS (subjects, wildcards matched at link time), SQS (queue names, from URLs or ARNs), SNS (topic
 * names), Dapr pub/sub (`<pubsub>/<topic>`), Sidekiq (worker classes) and Redis pub/sub (channels; PSUBSCRIBE
 * patterns matched as globs at link time). Read from the text of each file
 * that mentions the library: one linear pass of a few regular expressions, no parse of its own. Names are
 * string literals, environment lookups (`${X}`, resolved when linking with the deployment configuration)
 * or identifiers assigned one of those in the same file; anything else is a run-time name (`{}`).
 */

export const STR = String.raw`(?:'([^'\n]*)'|"([^"\n]*)"|\x60([^\x60\n]*)\x60)`;
/**
 * An argument expression: up to the next `,` or `)` outside quotes (good enough for names). Each alternative
 * starts with a character no other one starts with, so a failing match backtracks linearly, not
 * exponentially in the number of quoted strings on the line (a lone quote or `[` ends the expression).
 */
export const EXPR = String.raw`((?:'[^'\n]*'|"[^"\n]*"|\x60[^\x60\n]*\x60|\([^()\n]*\)|\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]|[^,()\n'"\x60\[])+)`;

/** Line numbers by offset, computed once per file (every rule asks for many lines). */
export function lineIndex(text: string): (index: number) => number {
  const starts: number[] = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const ENV_LOOKUPS: RegExp[] = [
  // process.env.X, process.env['X'], process.env.X || 'd', process.env.X ?? 'd'
  /^process\.env(?:\.(\w+)|\[\s*['"](\w+)['"]\s*\])(?:\s*(?:\|\||\?\?)\s*['"]([^'"]*)['"])?$/,
  // os.environ['X'], os.environ.get('X'[, 'd']), os.getenv('X'[, 'd']), getenv('X')
  /^os\.environ\[\s*['"](\w+)['"]\s*\]()()$/,
  /^(?:os\.environ\.get|os\.getenv|getenv)\(\s*['"](\w+)['"]()(?:\s*,\s*['"]([^'"]*)['"])?\s*\)$/,
  // Go os.Getenv("X"), C# Environment.GetEnvironmentVariable("X"), Java System.getenv("X")
  /^(?:os\.Getenv|Environment\.GetEnvironmentVariable|System\.getenv)\(\s*"(\w+)"()()\s*\)$/,
  // Ruby ENV['X'], ENV.fetch('X'[, 'd'])
  /^ENV(?:\[\s*['"](\w+)['"]\s*\]|\.fetch\(\s*['"](\w+)['"](?:\s*,\s*['"]([^'"]*)['"])?\s*\))$/,
];

/** A name as the linker keeps it: literal text, `${ENV[:default]}`, or `{}` for a run-time part. */
export function valueOf(expr: string, text: string, depth = 0): string {
  // TypeScript's non-null and `as` assertions change nothing of the value.
  let e = expr
    .trim()
    .replace(/^aws\.String\((.*)\)$/, '$1')
    .replace(/\s+as\s+[\w<>[\]]+$|!$/, '');
  const lit = new RegExp(`^${STR}$`).exec(e);
  if (lit) {
    const v = lit[1] ?? lit[2] ?? lit[3] ?? '';
    // Template literals: `${process.env.X}` and `${name}` parts.
    return v.replace(/\$\{([^}]*)\}/g, (_, inner: string) => valueOf(inner, text, depth + 1));
  }
  e = e.replace(/^f(['"])(.*)\1$/, (_, q: string, body: string) => `${q}${body.replace(/\{([^}]*)\}/g, '${$1}')}${q}`);
  for (const re of ENV_LOOKUPS) {
    const m = re.exec(e);
    if (m) {
      const key = m[1] ?? m[2];
      const fallback = m[3];
      return fallback === undefined ? `\${${key}}` : `\${${key}:${fallback}}`;
    }
  }
  // An identifier assigned once in the file (`const QUEUE = 'orders'`, `QUEUE_URL = os.getenv(…)`).
  const id = /^(?:this\.|self\.|@)?([A-Za-z_$][\w$]*)$/.exec(e);
  if (id && depth < 3) {
    const name = id[1]!.replace(/\$/g, '\\$');
    const def = new RegExp(
      String.raw`(?:^|[^\w.$])(?:this\.|self\.|@)?${name}\s*(?::\s*[\w<>\[\]]+\s*)?(?::=|=(?!=)|:(?!:))\s*([^\n;]+)`,
      'm',
    ).exec(text);
    if (def) {
      const rhs = def[1]!.trim().replace(/,$/, '');
      if (rhs !== e) return valueOf(rhs, text, depth + 1);
    }
  }
  return '{}';
}

/** SQS queue URLs (`https://sqs.…/123/orders`) and ARNs (`arn:aws:sqs:…:orders`) name their queue last. */
export function channelName(broker: Broker, name: string): string {
  if (broker === 'sqs' || broker === 'sns') {
    const arn = /^arn:aws[\w-]*:(?:sqs|sns):[^:]*:[^:]*:(.+)$/.exec(name);
    if (arn) return arn[1]!;
    const url = /^https?:\/\/[^/]+\/[^/]+\/([^/?#]+)\/?$/.exec(name);
    if (url && /sqs|localhost|localstack|:\d+$/.test(name.split('/')[2]!)) return url[1]!;
  }
  return name;
}

/** NATS subject matching: `*` is one token, `>` one or more trailing tokens. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

/** MQTT topic filters: `+` is one level, a trailing `#` the parent level and every level below it. */
export function mqttMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#' && i === f.length - 1) return t.length >= i;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

/**
 * Redis PSUBSCRIBE patterns: `*` any run, `?` one character, `[…]` a class (`^` negates, `a-z` a range), `\\x` a
 * literal x; an unclosed `[` is a literal. Matched without a regular expression: a pattern of many `*` (read from
 * a repository) would backtrack polynomially in a regex (`*a` 10 times against 40 characters: about a minute),
 * and a class such as `[z-a]` would throw. This walk is O(pattern × channel) at worst.
 */
export function globMatches(pattern: string, channel: string): boolean {
  if (!/[*?[\\]/.test(pattern)) return pattern === channel;
  return wildcardMatches(globTokens(pattern), channel);
}

/** One token of a glob: any run of characters, or one character that passes `test`. */
export type GlobToken = '*' | ((ch: string) => boolean);

function globTokens(pattern: string): GlobToken[] {
  const out: GlobToken[] = [];
  const literal =
    (c: string): GlobToken =>
    (ch) =>
      ch === c;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (out.at(-1) !== '*') out.push('*');
    } else if (ch === '?') out.push(() => true);
    else if (ch === '\\' && i + 1 < pattern.length) out.push(literal(pattern[++i]!));
    else if (ch === '[' && pattern.indexOf(']', i + 1) > i) {
      const end = pattern.indexOf(']', i + 1);
      out.push(charClass(pattern.slice(i + 1, end)));
      i = end;
    } else out.push(literal(ch));
  }
  return out;
}

/** A `[…]` class body: `^` first negates, `x-y` is a range (either order), `\\x` a literal x. */
function charClass(body: string): (ch: string) => boolean {
  const negate = body.startsWith('^');
  const ranges: [string, string][] = [];
  for (let i = negate ? 1 : 0; i < body.length; i++) {
    let lo = body[i]!;
    if (lo === '\\' && i + 1 < body.length) lo = body[++i]!;
    if (body[i + 1] === '-' && i + 2 < body.length) {
      let hi = body[i + 2]!;
      i += 2;
      if (hi === '\\' && i + 1 < body.length) hi = body[++i]!;
      ranges.push(lo <= hi ? [lo, hi] : [hi, lo]);
    } else ranges.push([lo, lo]);
  }
  return (ch) => ranges.some(([lo, hi]) => ch >= lo && ch <= hi) !== negate;
}

/**
 * Whether `text` matches the tokens (each but `*` one character): the two-pointer walk that returns to the last
 * `*` on a mismatch, O(tokens × text) at worst, never exponential.
 */
export function wildcardMatches(tokens: readonly GlobToken[], text: string): boolean {
  let t = 0;
  let s = 0;
  let star = -1;
  let resume = 0;
  while (s < text.length) {
    const tok = tokens[t];
    if (tok !== undefined && tok !== '*' && tok(text[s]!)) {
      t++;
      s++;
    } else if (tok === '*') {
      star = t++;
      resume = s;
    } else if (star >= 0) {
      t = star + 1;
      s = ++resume;
    } else return false;
  }
  while (tokens[t] === '*') t++;
  return t === tokens.length;
}

/** Celery `task_routes` keys: `*` any run, every other character itself. */
export function starGlobMatches(pattern: string, name: string): boolean {
  const tokens: GlobToken[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (tokens.at(-1) !== '*') tokens.push('*');
    } else tokens.push((c) => c === ch);
  }
  return wildcardMatches(tokens, name);
}

/**
 * `implicit`: a publish the runtime makes (no gap when nothing consumes it); a consumer named by its module's path
 * from the source's root (Celery), which a deeper import root shortens.
 */
export type Emit = (
  side: 'publish' | 'consume',
  broker: Broker,
  name: string,
  index: number,
  via?: string,
  implicit?: boolean,
) => void;

export function each(re: RegExp, text: string, f: (m: RegExpExecArray) => void): void {
  for (const m of text.matchAll(re)) f(m);
}

/** Celery: `@app.task(name=…)`/`@shared_task` consume their task name; `send_task(name)` produces it. */
function celery(text: string, path: string, emit: Emit): void {
  if (!/\bcelery\b|shared_task/i.test(text)) return;
  const module = path
    .replace(/\.py$/, '')
    .replace(/\/__init__$/, '')
    .split('/')
    .join('.');
  // Each line between the decorator and `def` is blank or another decorator, one way only, and both runs are
  // bounded: a long stretch of blank lines or decorators fails in linear time (one file must not stall us).
  const decorated =
    /@(?:\w+\.)?(?:task|shared_task)\b(\([^()]{0,2000}\))?[ \t]*\r?\n(?:[ \t]*(?:@[^\r\n]*)?\r?\n){0,20}[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)/g;
  each(decorated, text, (m) => {
    const named = m[1] ? /\bname\s*=\s*([^,)]+)/.exec(m[1]) : null;
    // Without `name=`, Celery names a task after its module and function (the worker's module path).
    const name = named ? valueOf(named[1]!, text) : `${module}.${m[2]!}`;
    emit('consume', 'celery', name, m.index, undefined, !named);
  });
  each(new RegExp(String.raw`\b(?:send_task|signature)\(\s*(?:name\s*=\s*)?${EXPR}([^\n]*)`, 'g'), text, (m) => {
    // `queue='payments'` on the call routes it before any `task_routes`.
    const queue = /\bqueue\s*=\s*['"]([^'"]+)['"]/.exec(m[2]!)?.[1];
    emit('publish', 'celery', valueOf(m[1]!, text), m.index, queue);
  });
}

/** Celery's routing settings (`task_routes`, `CELERY_ROUTES`, `task_default_queue`), as configuration entries. */
export const CELERY_ROUTE = 'celery.task_routes:';
export const CELERY_DEFAULT_QUEUE = 'celery.task_default_queue';

function celeryRouting(text: string, path: string, sink: Sink): void {
  if (!/task_routes|CELERY_(?:TASK_)?ROUTES|task_default_queue|CELERY_(?:TASK_)?DEFAULT_QUEUE/.test(text)) return;
  const line = lineIndex(text);
  for (const m of text.matchAll(/\b(?:task_routes|CELERY_(?:TASK_)?ROUTES)\s*[=:]\s*\{/g)) {
    // The dict's own braces (one level of nesting: `{'pattern': {'queue': 'q'}}`).
    let depth = 0;
    let end = m.index + m[0].length - 1;
    for (; end < text.length && end < m.index + 20_000; end++) {
      if (text[end] === '{') depth++;
      else if (text[end] === '}' && --depth === 0) break;
    }
    const body = text.slice(m.index + m[0].length, end);
    for (const r of body.matchAll(
      /(['"])([^'"\n]+)\1\s*:\s*(?:\{[^{}]*?['"]queue['"]\s*:\s*['"]([^'"]+)['"][^{}]*\}|dict\([^()]*?\bqueue\s*=\s*['"]([^'"]+)['"][^()]*\))/g,
    ))
      sink.facts.config.push({
        key: `${CELERY_ROUTE}${r[2]!}`,
        value: r[3] ?? r[4]!,
        loc: { file: path, line: line(m.index + m[0].length + r.index) },
      });
  }
  for (const m of text.matchAll(/\b(?:task_default_queue|CELERY_(?:TASK_)?DEFAULT_QUEUE)\s*[=:]\s*['"]([^'"]+)['"]/g))
    sink.facts.config.push({ key: CELERY_DEFAULT_QUEUE, value: m[1]!, loc: { file: path, line: line(m.index) } });
}

/** Bull/BullMQ: `new Worker(name)`, `queue.process`, `@Processor(name)` consume; `queue.add`, `@InjectQueue` produce. */
function bull(text: string, emit: Emit): void {
  if (!/['"](?:bull|bullmq|@nestjs\/bull|@nestjs\/bullmq|bee-queue)['"]/.test(text)) return;
  const queues = new Map<string, string>();
  each(
    new RegExp(
      String.raw`(?:(?:const|let|var)\s+|this\.|(?:private|public|readonly)\s+)?([\w$]+)\s*(?::\s*[\w<>]+\s*)?=\s*(?:new\s+)?(?:Queue|Bull|BullQueue|BeeQueue)\s*(?:<[^>]*>)?\(\s*${EXPR}`,
      'g',
    ),
    text,
    (m) => {
      const name = valueOf(m[2]!, text);
      queues.set(m[1]!, name);
      const v = m[1]!.replace(/\$/g, '\\$');
      const used = new RegExp(String.raw`\b${v}\s*\.\s*(?:add|addBulk|process|createJob)\s*\(`).test(text);
      // A producer handle built here and used in other files: the construction is the publish.
      if (!used) emit('publish', 'bullmq', name, m.index);
    },
  );
  each(new RegExp(String.raw`\bnew\s+Worker\s*(?:<[^>]*>)?\(\s*${EXPR}`, 'g'), text, (m) =>
    emit('consume', 'bullmq', valueOf(m[1]!, text), m.index),
  );
  each(/\b(?:this\.)?([\w$]+)\s*\.\s*(add|addBulk|process|createJob)\s*\(/g, text, (m) => {
    const name = queues.get(m[1]!);
    if (name !== undefined) emit(m[2] === 'process' ? 'consume' : 'publish', 'bullmq', name, m.index);
  });
  each(new RegExp(String.raw`@Processor\(\s*${EXPR}`, 'g'), text, (m) => {
    const arg = m[1]!.trim();
    const name = arg.startsWith('{') ? (/name\s*:\s*([^,}]+)/.exec(arg)?.[1] ?? '') : arg;
    if (name) emit('consume', 'bullmq', valueOf(name, text), m.index);
  });
  each(
    new RegExp(String.raw`@InjectQueue\(\s*${EXPR}\)\s*(?:(?:private|public|readonly)\s+)*([\w$]+)`, 'g'),
    text,
    (m) => {
      const v = m[2]!.replace(/\$/g, '\\$');
      if (new RegExp(String.raw`\b${v}\s*\.\s*(?:add|addBulk)\s*\(`).test(text))
        emit('publish', 'bullmq', valueOf(m[1]!, text), m.index);
    },
  );
  // FlowProducer.add({ name, queueName: 'x', children: [{ queueName: 'y' }] })
  if (/FlowProducer/.test(text))
    each(new RegExp(String.raw`\bqueueName\s*:\s*${EXPR}`, 'g'), text, (m) =>
      emit('publish', 'bullmq', valueOf(m[1]!, text), m.index),
    );
}

/** NATS (core and JetStream), any client: publish/request produce a subject, subscribe consumes it. */
function nats(text: string, path: string, emit: Emit): void {
  // Go and Python are read from their parse trees (`nats.ts`): subjects through their evaluators.
  if (/\.(?:go|py)$/.test(path) || !/\bnats\b/i.test(text)) return;
  each(
    new RegExp(
      String.raw`\.\s*(publish|Publish|PublishMsg|PublishAsync|publishAsync|request|Request|RequestWithContext|subscribe|Subscribe|QueueSubscribe|queueSubscribe|ChanSubscribe|ChanQueueSubscribe|QueueSubscribeSync|SubscribeSync|PullSubscribe|pullSubscribe)\s*\(\s*(?:ctx\s*,\s*)?(?:subject\s*=\s*)?${EXPR}`,
      'g',
    ),
    text,
    (m) => {
      const name = valueOf(m[2]!, text);
      if (name === '{}' || /\s/.test(name)) return;
      emit(/ubscribe/.test(m[1]!) ? 'consume' : 'publish', 'nats', name, m.index);
    },
  );
}

/** SQS and SNS through the AWS SDKs (JS v2/v3, boto3, Go, Java), `sqs-consumer`, Spring Cloud AWS. */
function aws(text: string, emit: Emit): void {
  if (!/sqs|sns/i.test(text)) return;
  const KEY = String.raw`\s*(?::|=|\(|,)\s*(?:aws\.String\()?`;
  const near = (from: number, key: RegExp): string | undefined => {
    const m = key.exec(text.slice(from, from + 400));
    return m ? valueOf(m[1]!, text) : undefined;
  };
  const queueUrl = new RegExp(String.raw`\b(?:QueueUrl|queueUrl|queue_url)${KEY}${EXPR}`);
  const topicArn = new RegExp(String.raw`\b(?:TopicArn|topicArn|topic_arn)${KEY}${EXPR}`);
  each(
    /\b(send_?message(?:_?batch)?|SendMessage(?:Batch)?(?:Command|Input|Request)?|receive_?message|ReceiveMessage(?:Command|Input|Request)?|Consumer\.create|new\s+Consumer)\s*\(/gi,
    text,
    (m) => {
      const name = near(m.index, queueUrl);
      if (name === undefined) return;
      emit(/send/i.test(m[1]!) ? 'publish' : 'consume', 'sqs', name, m.index);
    },
  );
  // boto3 resource: sqs.get_queue_by_name(QueueName='x') then .send_message / .receive_messages on it.
  each(
    new RegExp(String.raw`([\w.]+)\s*=\s*[\w.]+\.get_queue_by_name\(\s*QueueName\s*=\s*${EXPR}\)`, 'g'),
    text,
    (m) => {
      const name = valueOf(m[2]!, text);
      const v = m[1]!.replace(/\./g, '\\.');
      each(new RegExp(String.raw`\b${v}\.(send_messages?|receive_messages)\(`, 'g'), text, (u) =>
        emit(u[1]!.startsWith('send') ? 'publish' : 'consume', 'sqs', name, u.index),
      );
    },
  );
  // Spring Cloud AWS: @SqsListener("orders") / @SqsListener(value = …, queueNames = …); sqsTemplate.send("orders", …)
  each(new RegExp(String.raw`@SqsListener\(\s*(?:(?:value|queueNames)\s*=\s*)?\{?\s*${EXPR}`, 'g'), text, (m) =>
    emit('consume', 'sqs', valueOf(m[1]!, text), m.index),
  );
  each(new RegExp(String.raw`\b\w*[sS]qsTemplate\s*\.\s*send\s*\(\s*${EXPR},`, 'g'), text, (m) =>
    emit('publish', 'sqs', valueOf(m[1]!, text), m.index),
  );
  // SNS: publish with a TopicArn; a subscription to a topic consumes it.
  each(
    /\b(publish(?:_batch)?|Publish(?:Batch)?(?:Command|Input|Request)?|subscribe|Subscribe(?:Command|Input|Request)?)\s*\(/g,
    text,
    (m) => {
      const name = near(m.index, topicArn);
      if (name === undefined) return;
      emit(/ublish/.test(m[1]!) ? 'publish' : 'consume', 'sns', name, m.index);
    },
  );
}

/** Dapr pub/sub: every SDK's publish, `[Topic]`/`@Topic`/`subscribe`, the programmatic `/dapr/subscribe` list. */
function dapr(text: string, emit: Emit): void {
  if (!/dapr/i.test(text)) return;
  const pair = (a: string, b: string): string => `${valueOf(a, text)}/${valueOf(b, text)}`;
  // C# PublishEventAsync("pubsub", "topic", …), Go PublishEvent(ctx, "pubsub", "topic", …), Java publishEvent,
  // JS client.pubsub.publish("pubsub", "topic", …), Python publish_event(pubsub_name=…, topic_name=…)
  each(
    new RegExp(
      String.raw`\b(?:PublishEventAsync|PublishEvent|publishEvent|publish_event|pubsub\s*\.\s*publish)\s*(?:<[^>]*>)?\(\s*(?:[\w.]*(?:ctx|Context\(\)|context\.\w+\(\))\s*,\s*)?${EXPR},\s*${EXPR}`,
      'g',
    ),
    text,
    (m) => {
      const named = (k: RegExp, v: string): string => k.exec(v)?.[1] ?? v;
      const a = named(/^\s*pubsub_name\s*=\s*(.+)$/, m[1]!);
      const b = named(/^\s*topic(?:_name)?\s*=\s*(.+)$/, m[2]!);
      emit('publish', 'dapr', pair(a, b), m.index);
    },
  );
  // The sidecar's HTTP API: POST http://localhost:3500/v1.0/publish/<pubsub>/<topic>
  each(/\/v1\.0(?:-alpha1)?\/publish\/([\w.-]+)\/([\w.-]+)/g, text, (m) =>
    emit('publish', 'dapr', `${m[1]!}/${m[2]!}`, m.index),
  );
  // A subscription's dead-letter topic: the Dapr runtime publishes there the messages its handler failed, so the
  // subscription is that topic's publisher (its consumer is fed, no gap).
  const deadLetters = (pubsub: string, topic: string | undefined, index: number): void => {
    if (topic) emit('publish', 'dapr', pair(pubsub, topic), index, undefined, true);
  };
  // C# [Topic("pubsub", "topic")], [Topic("pubsub", "topic", "deadLetterTopic", enableRawPayload)] or
  // `DeadLetterTopic = "…"`; Java @Topic(name = "t", pubsubName = "p", deadLetterTopic = "…")
  each(new RegExp(String.raw`\[Topic\(\s*${EXPR},\s*${EXPR}([^\]\n]*)`, 'g'), text, (m) => {
    emit('consume', 'dapr', pair(m[1]!, m[2]!), m.index);
    const rest = m[3]!;
    const positional = new RegExp(String.raw`^\s*,\s*(${STR})\s*,\s*(?:enableRawPayload\s*:\s*)?(?:true|false)\b`).exec(
      rest,
    );
    const named = new RegExp(String.raw`\bDeadLetterTopic\s*=\s*${EXPR}`).exec(rest);
    deadLetters(m[1]!, positional?.[1] ?? named?.[1], m.index);
  });
  each(/@Topic\(([^)]*)\)/g, text, (m) => {
    const t = new RegExp(String.raw`\bname\s*=\s*${EXPR}`).exec(m[1]!)?.[1];
    const p = new RegExp(String.raw`\bpubsubName\s*=\s*${EXPR}`).exec(m[1]!)?.[1];
    if (t && p) emit('consume', 'dapr', pair(p, t), m.index);
    if (p) deadLetters(p, new RegExp(String.raw`\bdeadLetterTopic\s*=\s*${EXPR}`).exec(m[1]!)?.[1], m.index);
  });
  // JS DaprServer: server.pubsub.subscribe("pubsub", "topic", handler)
  each(new RegExp(String.raw`\bpubsub\s*\.\s*subscribe\w*\(\s*${EXPR},\s*${EXPR}`, 'g'), text, (m) =>
    emit('consume', 'dapr', pair(m[1]!, m[2]!), m.index),
  );
  // Python @app.subscribe(pubsub='p', topic='t') / @dapr_app.subscribe(pubsub_name=…, topic=…)
  each(/@\w+\.subscribe\(([^)]*)\)/g, text, (m) => {
    const p = new RegExp(String.raw`\bpubsub(?:_name)?\s*=\s*${EXPR}`).exec(m[1]!)?.[1];
    const t = new RegExp(String.raw`\btopic\s*=\s*${EXPR}`).exec(m[1]!)?.[1];
    if (p && t) emit('consume', 'dapr', pair(p, t), m.index);
    if (p) deadLetters(p, new RegExp(String.raw`\bdead_letter_topic\s*=\s*${EXPR}`).exec(m[1]!)?.[1], m.index);
  });
  // Go common.Subscription{PubsubName: "p", Topic: "t"}
  each(/Subscription\s*\{([^}]*)\}/g, text, (m) => {
    const p = new RegExp(String.raw`\bPubsubName\s*:\s*${EXPR}`).exec(m[1]!)?.[1];
    const t = new RegExp(String.raw`\bTopic\s*:\s*${EXPR}`).exec(m[1]!)?.[1];
    if (p && t) emit('consume', 'dapr', pair(p, t), m.index);
    if (p) deadLetters(p, new RegExp(String.raw`\bDeadLetterTopic\s*:\s*${EXPR}`).exec(m[1]!)?.[1], m.index);
  });
  // Programmatic subscription: the app answers GET /dapr/subscribe with [{ pubsubname, topic, route }].
  if (text.includes('dapr/subscribe'))
    each(
      new RegExp(
        String.raw`['"]?pubsub_?name['"]?\s*(?:[:=]\s*|\(\s*)${EXPR}\)?\s*,?\s*\.?['"]?topic['"]?\s*(?:[:=]\s*|\(\s*)${EXPR}`,
        'gi',
      ),
      text,
      (m) => emit('consume', 'dapr', pair(m[1]!, m[2]!), m.index),
    );
}

/** Declarative Dapr subscriptions (`kind: Subscription`, `spec.pubsubname`/`spec.topic`) consume their topic. */
function daprYaml(text: string, emit: Emit): void {
  if (!/^kind:\s*Subscription\b/m.test(text) || !/dapr\.io/.test(text)) return;
  for (const doc of text.split(/^---\s*$/m)) {
    const topic = /^\s+topic:\s*['"]?([\w.-]+)/m.exec(doc);
    const pubsub = /^\s+pubsubname:\s*['"]?([\w.-]+)/m.exec(doc);
    if (topic && pubsub) emit('consume', 'dapr', `${pubsub[1]!}/${topic[1]!}`, text.indexOf(doc) + topic.index);
    // `deadLetterTopic`: the runtime publishes the subscription's failed messages there.
    const dead = /^\s+deadLetterTopic:\s*['"]?([\w.-]+)/m.exec(doc);
    if (dead && pubsub)
      emit('publish', 'dapr', `${pubsub[1]!}/${dead[1]!}`, text.indexOf(doc) + dead.index, undefined, true);
  }
}

/** Dapr binding component types of a broker whose names the linker follows, and the metadata naming what they read. */
const DAPR_BINDING: Record<string, { broker: Broker; keys: readonly string[] }> = {
  'bindings.mqtt': { broker: 'mqtt', keys: ['topic'] },
  'bindings.mqtt3': { broker: 'mqtt', keys: ['topic'] },
  'bindings.kafka': { broker: 'kafka', keys: ['topics'] },
};

/**
 * Dapr input binding components (`kind: Component`, `spec.type: bindings.mqtt|mqtt3|kafka`): the topics they
 * read (`spec.metadata` `topic` / comma-separated `topics`), their name (the route `POST /<name>` the sidecar
 * delivers to) and `scopes` (app-ids). Linked to the apps' routes at link time.
 */
function daprComponents(text: string, path: string, sink: Sink, line: (index: number) => number): void {
  if (!/^kind:\s*Component\b/m.test(text) || !/\bbindings\./.test(text)) return;
  let docs;
  try {
    docs = parseAllDocuments(text);
  } catch {
    return;
  }
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const c = doc.toJS() as {
      kind?: unknown;
      metadata?: { name?: unknown };
      spec?: { type?: unknown; metadata?: unknown };
      scopes?: unknown;
    } | null;
    if (!c || c.kind !== 'Component' || typeof c.spec?.type !== 'string') continue;
    const type = DAPR_BINDING[c.spec.type];
    const name = c.metadata?.name;
    if (!type || typeof name !== 'string' || !Array.isArray(c.spec.metadata)) continue;
    const channels: string[] = [];
    for (const m of c.spec.metadata as { name?: unknown; value?: unknown }[])
      if (typeof m?.name === 'string' && type.keys.includes(m.name) && typeof m.value === 'string')
        channels.push(
          ...m.value
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean),
        );
    if (!channels.length) continue;
    const scopes = Array.isArray(c.scopes) ? c.scopes.filter((x): x is string => typeof x === 'string') : [];
    const at = doc.contents?.range?.[0] ?? 0;
    const typeAt = text.indexOf(c.spec.type, at);
    (sink.facts.daprBindings ??= []).push({
      name,
      broker: type.broker,
      channels,
      scopes,
      loc: { file: path, line: line(typeAt >= 0 ? typeAt : at) },
    });
  }
}

/** Sidekiq: a worker class consumes its jobs; `X.perform_async` and `Sidekiq::Client.push('class' => 'X')` produce them. */
function sidekiq(text: string, path: string, emit: Emit): void {
  if (path.endsWith('.rb')) {
    if (!/Sidekiq|perform_(?:async|in|at)/.test(text)) return;
    each(
      /\bclass\s+([\w:]+)[^\n]*\n(?:(?![ \t]*class\b)[^\n]*\n){0,20}?[ \t]*include\s+Sidekiq::(?:Worker|Job)\b/g,
      text,
      (m) => {
        // `sidekiq_options queue: 'critical'` in the class (before the next one): the queue its jobs go to.
        const body = text.slice(m.index + m[0].length, m.index + m[0].length + 2000).split(/\n[ \t]*class\s/)[0]!;
        const q = /\bsidekiq_options\b[^\n]*?\bqueue:\s*(?::(\w+)|['"]([\w.-]+)['"])/.exec(body);
        emit('consume', 'sidekiq', m[1]!.split('::').pop()!, m.index, q ? (q[1] ?? q[2]) : undefined);
      },
    );
    each(/\b([A-Z][\w:]*)\s*(?:\.set\(([^)]*)\))?\s*\.\s*perform_(?:async|in|at|bulk)\b/g, text, (m) => {
      // `.set(queue: :mail)`: this job's queue, over the class's own.
      const q = m[2] ? /\bqueue:\s*(?::(\w+)|['"]([\w.-]+)['"])/.exec(m[2]) : null;
      emit('publish', 'sidekiq', m[1]!.split('::').pop()!, m.index, q ? (q[1] ?? q[2]) : undefined);
    });
  }
  // Sidekiq::Client.push('class' => 'X', …) (or the class itself, `'class' => X`) and clients of other languages
  // pushing `{"class": "X", "queue": …}`; the hash may span lines.
  if (/sidekiq/i.test(text))
    each(/['"]class['"]\s*(?:=>|:)\s*(?:['"]([\w:]+)['"]|([A-Z][\w:]*))([^)}]{0,300})/g, text, (m) => {
      // A bare constant only in Ruby's `Sidekiq::Client.push`.
      if (m[2] && !path.endsWith('.rb')) return;
      // `'queue' => 'billing'` in the same hash: the queue the job is pushed to.
      const q = /['"]queue['"]\s*(?:=>|:)\s*['"]([\w.-]+)['"]/.exec(m[3]!);
      emit('publish', 'sidekiq', (m[1] ?? m[2]!).split('::').pop()!, m.index, q?.[1]);
    });
  // Sidekiq::Client.enqueue(X, …), enqueue_in(interval, X, …), enqueue_to('q', X, …), enqueue_to_in('q', t, X, …).
  if (path.endsWith('.rb') && /Sidekiq::Client\.enqueue/.test(text))
    each(
      /\bSidekiq::Client\.(enqueue|enqueue_in|enqueue_to|enqueue_to_in)\s*\(?\s*((?:[^,()\n]+,\s*){0,2}?)([A-Z][\w:]*)\s*[,)\n]/g,
      text,
      (m) => {
        const before = m[2]!.split(',').filter((x) => x.trim());
        const want = { enqueue: 0, enqueue_in: 1, enqueue_to: 1, enqueue_to_in: 2 }[m[1]!]!;
        if (before.length !== want) return;
        const q = m[1]!.startsWith('enqueue_to') ? /^\s*(?::(\w+)|['"]([\w.-]+)['"])\s*$/.exec(before[0]!) : null;
        emit('publish', 'sidekiq', m[3]!.split('::').pop()!, m.index, q ? (q[1] ?? q[2]) : undefined);
      },
    );
}

/**
 * Redis pub/sub, any client (ioredis/node-redis, redis-py, go-redis, Jedis/Lettuce, StackExchange.Redis,
 * redis-rb): `publish(channel, msg)` produces; `subscribe`/`psubscribe` (every channel argument), Spring Data
 * Redis `ChannelTopic`/`PatternTopic` and `RedisChannel.Literal/Pattern` consume. Only in a file that names
 * Redis and no other pub/sub library of the same verbs (NATS), and never on a Dapr `pubsub` client.
 */
function redisPubSub(text: string, path: string, emit: Emit): void {
  if (!/redis/i.test(text) || /\bnats\b/i.test(text)) return;
  // A `pubsub` receiver is a Dapr client's, unless it names Redis or is a variable assigned a redis-py
  // `client.pubsub()` (a PubSub object: `p = r.pubsub(); p.subscribe('ch')`).
  const pubSubObjects = new Set(
    [
      ...text.matchAll(
        /(?<![\w$.])(?:self\.)?([A-Za-z_]\w*)\s*=\s*(?:await\s+)?[\w.]+(?:\([^()\n]*\)[\w.]*)?\.pubsub\s*\(/g,
      ),
    ].map((m) => m[1]!),
  );
  const pubSubObject = (recv: string): boolean => pubSubObjects.has(recv.replace(/^self\./, ''));
  const skip = (recv: string): boolean => /(?:^|\.)pubsub$/i.test(recv) && !/redis/i.test(recv) && !pubSubObject(recv);
  // A TypeScript receiver declared with a type that is no Redis client (`private readonly amqp: AmqpConnection`,
  // golevelup's `publish(exchange, routingKey, message)`): not a Redis publish.
  let memberTypes: Map<string, string> | undefined;
  const otherClient = (recv: string): boolean => {
    const id = /([A-Za-z_$][\w$]*)$/.exec(recv)?.[1];
    if (!id || !/\.[cm]?[jt]sx?$/.test(path)) return false;
    // Every `name: Type` of the file, read once (the first declaration of a name wins).
    if (!memberTypes) {
      memberTypes = new Map();
      for (const t of text.matchAll(/(?<![\w$])([A-Za-z_$][\w$]*)\s*[?!]?\s*:\s*([A-Z][\w$]*)/g))
        if (!memberTypes.has(t[1]!)) memberTypes.set(t[1]!, t[2]!);
    }
    const type = memberTypes.get(id);
    return type !== undefined && !/redis|cluster/i.test(type);
  };
  // The channel of a C# `RedisChannel.Literal("x")` / `new RedisChannel("x", …)` argument, else the argument.
  const channelOf = (arg: string): string => {
    const m = new RegExp(String.raw`^\s*(?:new\s+)?RedisChannel(?:\.(?:Literal|Pattern))?\(\s*${EXPR}`).exec(arg);
    return valueOf(m ? m[1]! : arg, text);
  };
  each(
    new RegExp(
      String.raw`(?<![\w$.])([\w$.]*)\.\s*(publish|Publish|PublishAsync|publishAsync|convertAndSend)\s*\(\s*(?:ctx\s*,\s*|context\.\w+\(\)\s*,\s*)?${EXPR},`,
      'g',
    ),
    text,
    (m) => {
      if (skip(m[1]!) || (m[2] === 'convertAndSend' && !/redis/i.test(m[1]!)) || otherClient(m[1]!)) return;
      const name = channelOf(m[3]!);
      if (name !== '{}' && !/\s/.test(name)) emit('publish', 'redis', name, m.index);
    },
  );
  each(
    new RegExp(
      String.raw`(?<![\w$.])([\w$.]*)\.\s*(subscribe|Subscribe|SubscribeAsync|subscribeAsync|psubscribe|pSubscribe|PSubscribe|PSubscribeAsync)\s*\(([^\n]*)`,
      'g',
    ),
    text,
    (m) => {
      if (skip(m[1]!)) return;
      // redis-py's channels as keywords, each with its handler: `p.subscribe(**{'ch': handler})`, `p.subscribe(ch=handler)`.
      if (pubSubObject(m[1]!)) {
        const dict = /^\s*\*\*\s*\{([^}]*)\}/.exec(m[3]!);
        const keys = dict
          ? [...dict[1]!.matchAll(new RegExp(String.raw`${STR}\s*:`, 'g'))].map((k) => k[1] ?? k[2] ?? '')
          : [...m[3]!.matchAll(/(?:^|,)\s*([A-Za-z_][\w]*)\s*=(?!=)/g)].map((k) => k[1]!);
        for (const k of keys) if (k && !/\s/.test(k)) emit('consume', 'redis', k, m.index);
        if (dict) return;
      }
      for (const a of (m[3] ?? '').matchAll(new RegExp(EXPR, 'g'))) {
        const arg = a[1]!.trim();
        // A listener object, a callback, a context: not channels.
        if (!/^['"\x60]|^RedisChannel|^new\s+RedisChannel|^[A-Z_][A-Z0-9_]*$|^[\w.]*(?:channel|topic)\w*$/i.test(arg))
          continue;
        const name = channelOf(arg);
        if (name !== '{}' && !/\s/.test(name)) emit('consume', 'redis', name, m.index);
      }
    },
  );
  // Spring Data Redis: container.addMessageListener(listener, new ChannelTopic("x") | new PatternTopic("x.*"))
  each(new RegExp(String.raw`\bnew\s+(?:ChannelTopic|PatternTopic)\(\s*${EXPR}\)`, 'g'), text, (m) => {
    const name = valueOf(m[1]!, text);
    if (name !== '{}') emit('consume', 'redis', name, m.index);
  });
}

/**
 * MQTT topics, any client, in files that name MQTT: MQTTnet (`new MqttApplicationMessageBuilder().WithTopic(t)…`
 * published where `PublishAsync(message)` sends it, `PublishStringAsync(t, …)`; `WithTopicFilter(t)`,
 * `MqttTopicFilterBuilder().WithTopic(t)` and `SubscribeAsync(t)` subscribe), Eclipse Paho JS
 * (`message.destinationName = t` published where `client.send(message)` sends it, `client.send(t, payload)`),
 * mqtt.js and Python paho (`client.publish(t, …)`, `publish.single(t, …)`; `subscribe(t | [t, …] | [(t, qos)])`).
 * Subscriptions keep MQTT's `+` and `#` filters (matched at link time).
 */
function mqtt(text: string, path: string, emit: Emit): void {
  if (!/mqtt/i.test(text)) return;
  const name = (expr: string): string => valueOf(expr.replace(/;\s*$/, ''), text);
  const dotnet = path.endsWith('.cs');
  // The first `.<call>(<variable>)` after `from` and before `until` (the next message built): where it is sent.
  const sentAt = (call: string, variable: string, from: number, until: number): number => {
    const m = new RegExp(String.raw`\.\s*${call}\s*\(\s*${variable}\s*[,)]`).exec(text.slice(from, until));
    return m ? from + m.index : -1;
  };
  if (dotnet) {
    const builders = [...text.matchAll(/\bnew\s+MqttApplicationMessageBuilder\s*\(\s*\)([^;]*)/g)];
    builders.forEach((m, i) => {
      const topic = new RegExp(String.raw`\.\s*WithTopic\(\s*${EXPR}\)`).exec(m[1]!);
      if (!topic) return;
      const before = text.slice(Math.max(0, m.index - 200), m.index);
      const variable = /(?:^|[^\w.])(\w+)\s*=\s*$/.exec(before)?.[1];
      const end = m.index + m[0].length;
      const inline = /\.\s*PublishAsync\s*\(\s*$/.exec(before);
      const at = variable
        ? sentAt('PublishAsync', variable, end, builders[i + 1]?.index ?? text.length)
        : inline
          ? m.index - before.length + inline.index
          : -1;
      emit('publish', 'mqtt', name(topic[1]!), at >= 0 ? at : m.index + m[0].indexOf(topic[0]));
    });
    each(new RegExp(String.raw`\.\s*Publish(?:String|Binary)Async\s*\(\s*${EXPR},`, 'g'), text, (m) =>
      emit('publish', 'mqtt', name(m[1]!), m.index),
    );
    each(
      new RegExp(
        String.raw`\.\s*WithTopicFilter\s*\(\s*${EXPR}|\bnew\s+MqttTopicFilterBuilder\s*\(\s*\)\s*\.\s*WithTopic\s*\(\s*${EXPR}|\.\s*SubscribeAsync\s*\(\s*${EXPR}`,
        'g',
      ),
      text,
      (m) => {
        const t = name(m[1] ?? m[2] ?? m[3]!);
        if (t !== '{}') emit('consume', 'mqtt', t, m.index);
      },
    );
    return;
  }
  // Eclipse Paho JS: a Paho.MQTT.Message's destinationName, sent by `client.send(message)`.
  if (/\bPaho\b/.test(text)) {
    const dests = [...text.matchAll(new RegExp(String.raw`\b([\w$]+)\.destinationName\s*=\s*${EXPR}`, 'g'))];
    dests.forEach((m, i) => {
      const end = m.index + m[0].length;
      const at = sentAt('send', m[1]!.replace(/\$/g, '\\$'), end, dests[i + 1]?.index ?? text.length);
      emit('publish', 'mqtt', name(m[2]!), at >= 0 ? at : m.index);
    });
    each(new RegExp(String.raw`\.\s*send\s*\(\s*(${STR})\s*,`, 'g'), text, (m) =>
      emit('publish', 'mqtt', name(m[1]!), m.index),
    );
  }
  // mqtt.js (`require('mqtt')`, `from 'mqtt'`), Python paho (`import paho.mqtt.client`): publish and subscribe.
  if (!/(?:require\(\s*|from\s+)['"](?:mqtt|async-mqtt|precompiled-mqtt)['"]|\bpaho\.mqtt\b|\bPaho\b/.test(text))
    return;
  each(
    new RegExp(String.raw`(?<![\w$.])([\w$.]*)\.\s*(publish|single)\s*\(\s*(?:topic\s*=\s*)?${EXPR}[,)]`, 'g'),
    text,
    (m) => {
      if (/(?:^|\.)pubsub$/i.test(m[1]!) || (m[2] === 'single' && !/(?:^|\.)publish$/.test(m[1]!))) return;
      emit('publish', 'mqtt', name(m[3]!), m.index);
    },
  );
  each(/(?<![\w$.])[\w$.]*\.\s*subscribe\s*\(\s*(?:topic\s*=\s*)?([^\n]*)/g, text, (m) => {
    const arg = m[1]!.trim();
    // A list of topics (`['a', 'b']`, `[('a', 0), ('b', 1)]`): each string literal; else the first argument.
    const list = arg.startsWith('[') ? arg.slice(0, arg.indexOf(']') + 1) : undefined;
    const names = list
      ? [...list.matchAll(new RegExp(STR, 'g'))].map((x) => name(x[0]))
      : [name(new RegExp(`^${EXPR}`).exec(arg)?.[1] ?? '')];
    for (const t of names) if (t !== '{}' && t !== '') emit('consume', 'mqtt', t, m.index);
  });
}

/** The named-channel facts of one file (code or YAML). */
export function extractChannels(text: string, path: string, sink: Sink): void {
  const line = lineIndex(text);
  const emit: Emit = (side, broker, name, index, via, implicit) => {
    if (!name) return;
    const loc: Loc = { file: path, line: line(index) };
    if (side === 'publish') sink.publish(broker, via ?? '', name, loc, undefined, undefined, undefined, implicit);
    else
      sink.consume(broker, name, loc, undefined, undefined, {
        ...(via ? { taskQueue: via } : {}),
        ...(implicit ? { moduleNamed: true } : {}),
      });
  };
  // A Dockerfile's or compose file's `rq worker …` command.
  if (/(^|\/)dockerfile([._-][^/]*)?$|\.dockerfile$/i.test(path)) return rqCommands(text, emit);
  if (/\.ya?ml$/.test(path)) {
    rqCommands(text, emit);
    daprComponents(text, path, sink, line);
    return daprYaml(text, emit);
  }
  if (path.endsWith('.py')) {
    celery(text, path, emit);
    celeryRouting(text, path, sink);
    pythonTasks(text, path, emit);
  }
  if (/\.[cm]?[jt]sx?$/.test(path)) {
    bull(text, emit);
    golevelupRabbit(text, path, sink, line);
  }
  if (path.endsWith('.php')) laravelJobs(text, path, sink, line);
  if (path.endsWith('.rb')) activeJobs(text, path, sink, line);
  nats(text, path, emit);
  aws(text, emit);
  dapr(text, emit);
  sidekiq(text, path, emit);
  redisPubSub(text, path, emit);
  mqtt(text, path, emit);
}

const SIDECAR_PUBLISH = /\/v1\.0(?:-alpha1)?\/publish\/([^/?#]+)\/([^/?#]+)/;

/**
 * HTTP calls of the Dapr sidecar's publish API (`${daprHost}/v1.0/publish/${PUBSUB}/${TOPIC}`, the names
 * resolved with the source's constants) are publishes of that topic, not calls of a service.
 */
export function sidecarPublishes(facts: SourceFacts, sink: Sink): void {
  const kept = facts.calls.filter((c) => {
    const m = SIDECAR_PUBLISH.exec(nameOf(c.url) ?? '');
    if (!m) return true;
    sink.publish('dapr', '', `${m[1]!}/${m[2]!}`, c.loc);
    return false;
  });
  facts.calls.splice(0, facts.calls.length, ...kept);
}
