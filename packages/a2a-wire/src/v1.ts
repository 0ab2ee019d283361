import { InvalidParamsError } from '@a2a-inbound/errors';

/**
 * A2A 1.0's wire shapes (ProtoJSON of `lf.a2a.v1`) ↔ the model the operations and `tasks` speak (the 0.3
 * shapes, stored as they are). Only this file knows both; the gateway's 1.0 bindings (JSON-RPC, HTTP+JSON,
 * gRPC) and the webhooks service's 1.0 pushes call it and never branch on a version themselves. 1.0 dropped `kind` (members name the variant), spells enums in
 * SCREAMING_SNAKE, has no `final` on status updates and names the push config's fields differently.
 */

type Json = Record<string, unknown>;

/** The version a 1.0 push config records (tasks' `protocol_version`; empty means 0.3). */
export const PROTOCOL_VERSION_V1 = '1.0';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const STATES: Readonly<Record<string, string>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  rejected: 'TASK_STATE_REJECTED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
};
const STATES_IN: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(STATES).map(([k, v]) => [v, k]));

/** A stored state → its 1.0 enum name (`unknown` and anything new → TASK_STATE_UNSPECIFIED). */
export const stateToV1 = (state: unknown): string =>
  (typeof state === 'string' ? STATES[state] : undefined) ?? 'TASK_STATE_UNSPECIFIED';

/** A 1.0 TaskState filter → the stored state; undefined for UNSPECIFIED or absent; -32602 for anything else. */
export function stateFromV1(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null || v === '' || v === 'TASK_STATE_UNSPECIFIED' || v === 0) return undefined;
  const byName = typeof v === 'string' ? STATES_IN[v] : undefined;
  const byNumber = typeof v === 'number' ? STATES_IN[Object.values(STATES)[v - 1] ?? ''] : undefined;
  const s = byName ?? byNumber;
  if (!s) throw new InvalidParamsError(`${field} must be a TaskState such as TASK_STATE_WORKING`);
  return s;
}

/**
 * What `Date#toISOString` writes, the form every stored timestamp already has: passed through as it is. Days 29–31
 * take the slow path, where `Date` rolls an impossible date over (`02-30` → `03-02`) as it always has.
 */
const ISO_MILLIS = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** ISO 8601 in UTC with milliseconds (spec 5.6.1), whatever precision was stored. */
function timestamp(v: unknown): string | undefined {
  // Parsing and re-printing a Date was the 1.0 GetTask's largest cost beyond the 0.3 one (docs/performance.md).
  if (typeof v === 'string' && ISO_MILLIS.test(v)) return v;
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

const copy = (from: Json, to: Json, keys: readonly string[]): void => {
  for (const k of keys) if (from[k] !== undefined && from[k] !== null) to[k] = from[k];
};

export function partToV1(p: Json): Json {
  const out: Json = {};
  if (p.kind === 'text') out.text = p.text;
  else if (p.kind === 'data') out.data = p.data;
  else if (p.kind === 'file' && isObject(p.file)) {
    const f = p.file;
    if (typeof f.uri === 'string') out.url = f.uri;
    else out.raw = typeof f.bytes === 'string' ? f.bytes : '';
    if (typeof f.name === 'string' && f.name) out.filename = f.name;
    if (typeof f.mimeType === 'string' && f.mimeType) out.mediaType = f.mimeType;
  }
  copy(p, out, ['metadata']);
  return out;
}

const parts = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject).map(partToV1) : []);

export function messageToV1(m: Json): Json {
  const out: Json = {
    messageId: m.messageId,
    role: m.role === 'agent' ? 'ROLE_AGENT' : m.role === 'user' ? 'ROLE_USER' : 'ROLE_UNSPECIFIED',
    parts: parts(m.parts),
  };
  copy(m, out, ['contextId', 'taskId', 'metadata', 'extensions', 'referenceTaskIds']);
  return out;
}

export function artifactToV1(a: Json): Json {
  const out: Json = { artifactId: a.artifactId, parts: parts(a.parts) };
  copy(a, out, ['name', 'description', 'metadata', 'extensions']);
  return out;
}

function statusToV1(s: unknown): Json {
  const st = isObject(s) ? s : {};
  const out: Json = { state: stateToV1(st.state) };
  if (isObject(st.message)) out.message = messageToV1(st.message);
  const ts = timestamp(st.timestamp);
  if (ts) out.timestamp = ts;
  return out;
}

export function taskToV1(t: Json, opts: { includeArtifacts?: boolean } = {}): Json {
  const out: Json = { id: t.id, contextId: t.contextId, status: statusToV1(t.status) };
  if (opts.includeArtifacts !== false && Array.isArray(t.artifacts) && t.artifacts.length > 0)
    out.artifacts = t.artifacts.filter(isObject).map(artifactToV1);
  if (Array.isArray(t.history) && t.history.length > 0) out.history = t.history.filter(isObject).map(messageToV1);
  copy(t, out, ['metadata']);
  return out;
}

/** One event of a stream → a StreamResponse (exactly one member set). */
export function streamResponseOf(e: Json): Json {
  switch (e.kind) {
    case 'task':
      return { task: taskToV1(e) };
    case 'message':
      return { message: messageToV1(e) };
    case 'status-update': {
      const out: Json = { taskId: e.taskId, contextId: e.contextId, status: statusToV1(e.status) };
      copy(e, out, ['metadata']);
      return { statusUpdate: out };
    }
    case 'artifact-update': {
      const out: Json = { taskId: e.taskId, contextId: e.contextId };
      out.artifact = isObject(e.artifact) ? artifactToV1(e.artifact) : { artifactId: '', parts: [] };
      copy(e, out, ['append', 'lastChunk', 'metadata']);
      return { artifactUpdate: out };
    }
    default:
      // The operations only stream the three kinds above; an unknown one is a snapshot of the task.
      return { task: taskToV1(e) };
  }
}

/** A stored push config (token never included) → TaskPushNotificationConfig. */
export function pushConfigToV1(c: { taskId: string; pushNotificationConfig: Json }): Json {
  const cfg = c.pushNotificationConfig;
  const out: Json = { id: cfg.id, taskId: c.taskId, url: cfg.url };
  const auth = cfg.authentication;
  if (isObject(auth)) {
    const schemes = Array.isArray(auth.schemes) ? auth.schemes : [];
    out.authentication = { scheme: typeof schemes[0] === 'string' ? schemes[0] : '' };
  }
  return out;
}

/** RFC 9110 `token`: what an auth scheme may be. */
const AUTH_SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/;
const MAX_CREDENTIALS_CHARS = 4096;
const headerSafe = (v: string): boolean =>
  v.length <= MAX_CREDENTIALS_CHARS && /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v);

/**
 * The body of a push to a 1.0 config (spec 4.3.3): a StreamResponse. Deliveries are made on status updates and
 * carry the task as it is then (artifacts included), as the 0.3 push carries the 0.3 Task.
 */
export function pushPayloadV1(task: Json): Json {
  return { task: taskToV1(task) };
}

/** Content-Type of a 1.0 push (spec 4.3.3). */
export const PUSH_CONTENT_TYPE_V1 = 'application/a2a+json';

/**
 * The Authorization header of a push to a 1.0 config (spec 4.3.3: `{scheme} {credentials}`, any IANA scheme)
 * from the stored authentication ({schemes: [scheme], credentials}); undefined without credentials or when
 * either part would not be a valid header value.
 */
export function pushAuthorizationV1(auth: unknown): string | undefined {
  if (!isObject(auth) || !Array.isArray(auth.schemes)) return undefined;
  const scheme: unknown = (auth.schemes as unknown[])[0];
  const cred = auth.credentials;
  if (typeof scheme !== 'string' || !AUTH_SCHEME.test(scheme)) return undefined;
  if (typeof cred !== 'string' || !headerSafe(cred)) return undefined;
  return `${scheme} ${cred}`;
}

/** TaskPushNotificationConfig from a 1.0 request → the PushNotificationConfig the operation checks. */
export function pushConfigFromV1(c: Json): Json {
  const out: Json = {};
  copy(c, out, ['url', 'token']);
  if (typeof c.id === 'string' && c.id) out.id = c.id;
  if (c.authentication !== undefined) {
    if (!isObject(c.authentication) || typeof c.authentication.scheme !== 'string')
      throw new InvalidParamsError('authentication.scheme is required');
    // Both go into the delivery's Authorization header as they are (spec 4.3.3): refused here, not at delivery.
    if (!AUTH_SCHEME.test(c.authentication.scheme))
      throw new InvalidParamsError('authentication.scheme must be an HTTP authentication scheme such as Bearer');
    const cred = c.authentication.credentials;
    if (cred !== undefined && cred !== null && cred !== '' && (typeof cred !== 'string' || !headerSafe(cred)))
      throw new InvalidParamsError(
        `authentication.credentials must be printable ASCII of at most ${MAX_CREDENTIALS_CHARS} characters`,
      );
    out.authentication = {
      schemes: [c.authentication.scheme],
      ...(typeof c.authentication.credentials === 'string' ? { credentials: c.authentication.credentials } : {}),
    };
  }
  return out;
}

/**
 * The push config a 1.0 SendMessageRequest carries (`configuration.taskPushNotificationConfig`), as
 * `pushConfigFromV1` reads a created one; undefined when there is none. a2a.proto: "Task id should be empty
 * when sending this configuration in a `SendMessage` request": one naming another task than the message's is
 * refused.
 */
export function inlinePushConfigFromV1(params: Json): Json | undefined {
  const cfg = params.configuration;
  if (!isObject(cfg)) return undefined;
  const push = cfg.taskPushNotificationConfig;
  if (push === undefined || push === null) return undefined;
  if (!isObject(push)) throw new InvalidParamsError('configuration.taskPushNotificationConfig must be an object');
  const taskId = push.taskId ?? '';
  const messageTaskId = isObject(params.message) ? (params.message.taskId ?? '') : '';
  if (taskId !== '' && taskId !== messageTaskId)
    throw new InvalidParamsError(
      "configuration.taskPushNotificationConfig.taskId must be empty (or the message's taskId): the config is for the task this message makes",
    );
  return pushConfigFromV1(push);
}

/** A shallow copy of `m`'s own keys, in order; a parsed `__proto__` key stays a key, as a spread keeps it. */
function ownCopy(m: Json): Json {
  const out: Json = {};
  for (const key of Object.keys(m)) {
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: m[key], enumerable: true, writable: true, configurable: true });
    else out[key] = m[key];
  }
  return out;
}

/**
 * A 1.0 Part → the stored part shape (the validator then applies every rule and limit of a send). Written for
 * the send path (issue 21): no closure, spread or field path per part unless the part is refused.
 */
function partFromV1(p: unknown, index: number): Json {
  if (!isObject(p)) throw new InvalidParamsError(`message.parts[${index}] must be an object`);
  const { text, raw, url, data } = p;
  const has = (v: unknown): boolean => v !== undefined && v !== null;
  const count = (has(text) ? 1 : 0) + (has(raw) ? 1 : 0) + (has(url) ? 1 : 0) + (has(data) ? 1 : 0);
  if (count !== 1)
    throw new InvalidParamsError(`message.parts[${index}] must have exactly one of text, raw, url or data`);
  let out: Json;
  if (has(text)) out = { kind: 'text', text };
  else if (has(raw) || has(url)) {
    const file: Json = has(raw) ? { bytes: raw } : { uri: url };
    if (p.mediaType !== undefined) file.mimeType = p.mediaType;
    if (p.filename !== undefined) file.name = p.filename;
    out = { kind: 'file', file };
  } else out = { kind: 'data', data };
  if (p.metadata !== undefined) out.metadata = p.metadata;
  return out;
}

/**
 * SendMessageRequest (1.0) → the params the send validator takes. `returnImmediately` is the inverse of 0.3's
 * `blocking`; an inline `taskPushNotificationConfig` is read apart, by `inlinePushConfigFromV1`.
 */
export function sendParamsFromV1(params: Json, limits: { maxParts: number }): Json {
  const m = params.message;
  if (m === undefined || m === null) throw new InvalidParamsError('message is required');
  if (!isObject(m)) throw new InvalidParamsError('message must be an object');
  if (m.role !== 'ROLE_USER') throw new InvalidParamsError('message.role must be "ROLE_USER"');
  if (!Array.isArray(m.parts)) throw new InvalidParamsError('message.parts is required');
  if (m.parts.length > limits.maxParts)
    throw new InvalidParamsError(`message.parts has more than ${limits.maxParts} parts`);
  // What `{ ...m, kind, role, parts }` makes, at a tenth of its cost here (1.1–1.4 µs a send on the VM).
  const message = ownCopy(m);
  message.kind = 'message';
  message.role = 'user';
  message.parts = m.parts.map(partFromV1);
  const out: Json = { message };
  const cfg = params.configuration;
  if (cfg !== undefined && cfg !== null) {
    if (!isObject(cfg)) throw new InvalidParamsError('configuration must be an object');
    const c: Json = {};
    copy(cfg, c, ['historyLength', 'acceptedOutputModes']);
    if (cfg.returnImmediately !== undefined && cfg.returnImmediately !== null) {
      if (typeof cfg.returnImmediately !== 'boolean')
        throw new InvalidParamsError('configuration.returnImmediately must be a boolean');
      c.blocking = !cfg.returnImmediately;
    }
    out.configuration = c;
  }
  return out;
}
