import type { Message, Part } from '@a2a-js/sdk';
import { originListProblem } from '@a2a-inbound/agent-definitions';
import { EgressPolicy, egressBlockedCause } from '@a2a-inbound/runtime';
import type { RunContext } from '../domain/agent-runtime';
import { agentText } from '../domain/agent-runtime';

/** One problem of a version's runtime configuration: where (`runtimeConfig.url`) and why. */
export interface ConfigProblem {
  path: string;
  reason: string;
}

export const FILE_URN_PREFIX = 'urn:a2a-inbound:file:';
const INTERNAL_METADATA_PREFIX = 'a2a-inbound/';
/** Characters of an HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers a configuration may not set: they belong to the HTTP exchange itself. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'accept',
  'accept-encoding',
]);

/** Field checks shared by the runtimes' validators; each adds problems under `runtimeConfig.<field>`. */
export class ConfigChecker {
  readonly problems: ConfigProblem[] = [];
  /** False when the configuration is not an object (then that is its only problem). */
  readonly isObject: boolean;
  readonly #c: Record<string, unknown>;

  constructor(
    config: unknown,
    readonly known: readonly string[],
  ) {
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      this.problems.push({ path: 'runtimeConfig', reason: 'must be a JSON object' });
      this.#c = {};
      this.isObject = false;
      return;
    }
    this.isObject = true;
    this.#c = config as Record<string, unknown>;
    for (const k of Object.keys(this.#c)) {
      if (!known.includes(k)) this.problems.push({ path: `runtimeConfig.${k}`, reason: 'is not a known field' });
    }
  }

  get(field: string): unknown {
    return this.#c[field];
  }

  problem(field: string, reason: string): void {
    this.problems.push({ path: `runtimeConfig.${field}`, reason });
  }

  /** A destination URL the egress policy accepts (syntax only: DNS is checked again before each call). */
  url(field: string, policy: EgressPolicy): void {
    const v = this.#c[field];
    if (typeof v !== 'string' || v.length === 0) return this.problem(field, 'is required (a URL)');
    const check = policy.checkUrlShape(v);
    if (!check.ok) this.problem(field, check.reason);
  }

  /** An optional list of origins (`https://host[:port]`), each one the egress policy accepts. */
  optionalOrigins(field: string, policy: EgressPolicy): void {
    const v = this.#c[field];
    if (v === undefined) return;
    const reason = originListProblem(v);
    if (reason) return this.problem(field, reason);
    for (const [i, o] of (v as string[]).entries()) {
      const check = policy.checkUrlShape(o);
      if (!check.ok) this.problem(`${field}[${i}]`, check.reason);
    }
  }

  optionalString(field: string, max: number, pattern?: { re: RegExp; reason: string }): void {
    const v = this.#c[field];
    if (v === undefined) return;
    if (typeof v !== 'string' || v.length === 0) return this.problem(field, 'must be a non-empty string');
    if (v.length > max) return this.problem(field, `must be at most ${max} characters`);
    if (pattern && !pattern.re.test(v)) this.problem(field, pattern.reason);
  }

  /** A secret value (resolved from its reference): one line, never echoed in the reason. */
  optionalSecret(field: string): void {
    const v = this.#c[field];
    if (v === undefined) return;
    if (typeof v !== 'string' || v.length === 0) return this.problem(field, 'must be a non-empty string');
    if (v.length > 8192) return this.problem(field, 'must be at most 8192 characters');
    if (/[\r\n\0]/.test(v)) this.problem(field, 'must not contain line breaks');
  }

  headerName(field: string): void {
    this.optionalString(field, 128, { re: HEADER_NAME, reason: 'must be an HTTP header name' });
    const v = this.#c[field];
    if (typeof v === 'string' && RESERVED_HEADERS.has(v.toLowerCase()))
      this.problem(field, `must not be ${v}: it belongs to the HTTP exchange`);
  }

  optionalBoolean(field: string): void {
    const v = this.#c[field];
    if (v !== undefined && typeof v !== 'boolean') this.problem(field, 'must be true or false');
  }

  optionalInt(field: string, min: number, max: number): void {
    const v = this.#c[field];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
      this.problem(field, `must be an integer from ${min} to ${max}`);
  }
}

export const intOr = (v: unknown, fallback: number): number => (typeof v === 'number' ? v : fallback);
export const stringOr = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);

/** The auth header of a configuration: `Authorization: Bearer <token>` unless another header is named. */
export function authHeaders(config: Readonly<Record<string, unknown>>): Record<string, string> {
  const token = config.tokenSecret;
  if (typeof token !== 'string' || token === '') return {};
  const header = stringOr(config.authHeader, 'Authorization');
  return { [header]: header.toLowerCase() === 'authorization' ? `Bearer ${token}` : token };
}

/** Our internal metadata (stored-file ids, checkpoints) stays inside: upstreams get the caller's own. */
function externalMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!metadata) return undefined;
  const out = Object.fromEntries(Object.entries(metadata).filter(([k]) => !k.startsWith(INTERNAL_METADATA_PREFIX)));
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The caller's parts as an upstream receives them: text and data as they came, files stored by the tasks
 * service inline again (base64 `bytes`), files given by URI as that URI.
 */
export async function outboundParts(ctx: RunContext, parts: readonly Part[]): Promise<Part[]> {
  const out: Part[] = [];
  for (const p of parts) {
    const metadata = externalMetadata(p.metadata);
    const meta = metadata ? { metadata } : {};
    if (p.kind === 'text') out.push({ kind: 'text', text: p.text, ...meta });
    else if (p.kind === 'data') out.push({ kind: 'data', data: p.data, ...meta });
    else if ('uri' in p.file && p.file.uri.startsWith(FILE_URN_PREFIX)) {
      const blobId = p.file.uri.slice(FILE_URN_PREFIX.length);
      const stored = await ctx.readFile(blobId);
      if (!stored) throw new UpstreamFailure(`An attached file (${p.file.name ?? blobId}) is no longer stored.`);
      const name = p.file.name ?? stored.name;
      out.push({
        kind: 'file',
        file: {
          bytes: Buffer.from(stored.data).toString('base64'),
          mimeType: p.file.mimeType ?? stored.mimeType,
          ...(name ? { name } : {}),
        },
        ...meta,
      });
    } else out.push({ kind: 'file', file: { ...p.file }, ...meta });
  }
  return out;
}

/**
 * The message id an upstream sees for this turn: ours (a UUID per task) with the caller's. Deterministic, so
 * a re-run after a runner restart is the same message to an upstream that deduplicates; never the caller's
 * id alone, which another caller (another tenant) may use too, and an upstream deduplicating on it would
 * answer one caller with another's task.
 */
export function turnMessageId(ctx: Pick<RunContext, 'taskId' | 'message'>): string {
  return `${ctx.taskId}:${ctx.message.messageId}`;
}

/** A failure the run reports to the caller as the reason of its `failed` state (the text is user-facing). */
export class UpstreamFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UpstreamFailure';
  }
}

/** A user-facing reason for an error of a call to the upstream at `url` (never the token; bounded). */
export function failureReason(err: unknown, what: string, url: string, timedOut: string | undefined): string {
  const host = URL.canParse(url) ? new URL(url).host : 'the configured address';
  if (timedOut) return `${what} at ${host} did not answer in time (${timedOut}).`;
  if (err instanceof UpstreamFailure) return err.message;
  const blocked = egressBlockedCause(err);
  if (blocked)
    return (
      `${what} at ${host} was not called: ${blocked.host} (${blocked.address}) is a private address; ` +
      'private destinations need the operator allow-list (EGRESS_ALLOW_HOSTS / EGRESS_ALLOW_CIDRS).'
    );
  const detail = describe(err).slice(0, 300);
  return `${what} at ${host} failed: ${detail}`;
}

function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const causeText = cause instanceof Error ? ` (${(cause as { code?: string }).code ?? cause.message})` : '';
  return `${err.message}${causeText}`;
}

export async function fail(ctx: RunContext, reason: string, metadata?: Record<string, unknown>): Promise<void> {
  await ctx.status('failed', agentText(ctx, reason, 'upstream-failure', metadata));
}

/**
 * One AbortSignal for a run's upstream calls: the run's own (cancel, drain), the whole-run budget and the
 * idle budget (reset on every event received). `timedOut()` says which budget ended it, if one did.
 */
export class CallBudget {
  readonly #ac = new AbortController();
  readonly #total: NodeJS.Timeout;
  #idle: NodeJS.Timeout | undefined;
  #timedOut: string | undefined;
  readonly signal: AbortSignal;

  constructor(
    runSignal: AbortSignal,
    totalMs: number,
    readonly idleMs: number,
  ) {
    this.signal = AbortSignal.any([runSignal, this.#ac.signal]);
    this.#total = setTimeout(() => this.#expire(`no final answer within ${totalMs} ms`), totalMs);
    this.#total.unref();
    this.touch();
  }

  #expire(why: string): void {
    this.#timedOut ??= why;
    this.#ac.abort(new UpstreamFailure(why));
  }

  /** Something arrived: the idle budget starts again. */
  touch(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = setTimeout(() => this.#expire(`nothing received for ${this.idleMs} ms`), this.idleMs);
    this.#idle.unref();
  }

  timedOut(): string | undefined {
    return this.#timedOut;
  }

  close(): void {
    clearTimeout(this.#total);
    if (this.#idle) clearTimeout(this.#idle);
  }
}

export function withMetadata(m: Message, metadata: Record<string, unknown>): Message {
  return { ...m, metadata: { ...(m.metadata ?? {}), ...metadata } };
}
