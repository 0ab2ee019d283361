import { PROTOCOL_VERSION_V1, PUSH_CONTENT_TYPE_V1, pushAuthorizationV1, pushPayloadV1 } from '@a2a-inbound/a2a-wire';
import { AppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { Clock, Collection, DocumentStore } from '@a2a-inbound/ports';
import { isIP } from 'node:net';
import { dnsResolver, pushEgressPolicy, type EgressPolicy, type Resolver } from '@a2a-inbound/runtime';
import { a2aMeter } from '@a2a-inbound/telemetry';
import { request } from 'undici';
import { DELIVERY_ID_HEADER, SIGNATURE_HEADER, signBody } from './egress/signer';
import { BlockedDestinationError, type WebhookAgent } from './egress/webhook-agent';
import { DELIVERY_LOG_COLLECTION, redactTarget, redactText, type DeliveryLogDoc } from './delivery-log';

export type { DeliveryLogDoc } from './delivery-log';

/** Webhook rule 3 / Limits: up to 3 retries, so at most 4 attempts per delivery. */
export const MAX_RETRIES = 3;
export const TOTAL_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 64 * 1024;
const LOG_RETENTION_MS = 7 * 24 * 3600_000;

export interface PushTarget {
  configId: string;
  url: string;
  /** HMAC key; never logged. */
  token: string;
  authenticationJson: string;
  /** The A2A version the config was created with: "1.0", or empty/absent for 0.3 (see `pushBodies`). */
  protocolVersion?: string;
}

export interface PushDelivery {
  /** The Task as tasks/get returns it; empty when the task is gone. */
  taskJson: string;
  enabled: boolean;
  targets: PushTarget[];
}

/** Where the webhooks service reads a task's delivery data (the tasks service's internal RPC). */
export interface PushSource {
  /** `agentId`: the task's agent from the update, so tasks can answer "push disabled" without reading the task. */
  get(taskId: string, agentId?: string): Promise<PushDelivery>;
}

export interface DeliveryPolicy {
  /** First retry delay; doubles per retry, plus up to the same again of jitter. */
  retryBaseMs: number;
  /** Cap of one retry delay, including an honoured Retry-After. */
  retryMaxDelayMs: number;
  totalTimeoutMs?: number;
  maxResponseBytes?: number;
}

export type AttemptOutcome = 'delivered' | 'retry' | 'permanent';

/**
 * How a delivery ended (`a2a_webhook_deliveries_total{outcome}`): `delivered` (2xx); `rejected` (the endpoint
 * answered 3xx or a 4xx other than 429: not retried); `refused` (the URL or its address is not public, or
 * not https: nothing was sent); `exhausted` (429, 5xx or network errors on all 4 attempts); `interrupted`
 * (shutdown: the claim is released and the bus redelivers the update, so it is counted again when it ends).
 */
export type DeliveryOutcome = 'delivered' | 'rejected' | 'refused' | 'exhausted' | 'interrupted';

/** Why an attempt is retried (`a2a_webhook_retries_total{reason}`). */
export type RetryReason = 'rate_limited' | 'server_error' | 'network';

function retryReason(r: AttemptResult): RetryReason {
  if (r.status === 429) return 'rate_limited';
  return r.status !== undefined ? 'server_error' : 'network';
}

function outcomeOf(r: AttemptResult): DeliveryOutcome {
  if (r.outcome === 'delivered') return 'delivered';
  if (r.outcome === 'retry') return 'exhausted';
  return r.status === undefined ? 'refused' : 'rejected';
}

export interface AttemptResult {
  outcome: AttemptOutcome;
  status?: number;
  error?: string;
  retryAfterMs?: number;
}

/** The task update a delivery pushes, and whose it is (the log is read per agent within a subscription). */
export interface TaskUpdateRef {
  taskId: string;
  seq: number;
  subscriptionId: string;
  agentId: string;
}

export async function openDeliveryLog(store: DocumentStore): Promise<Collection<DeliveryLogDoc>> {
  return store.collection<DeliveryLogDoc>({
    name: DELIVERY_LOG_COLLECTION,
    // The per-agent read: newest first within (subscription, agent).
    indexes: [{ fields: ['taskId'] }, { fields: ['subscriptionId', 'agentId', 'claimedAtMs'] }],
  });
}

function isBlocked(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 5; i++) {
    if (e instanceof BlockedDestinationError || (e as { code?: unknown }).code === 'BLOCKED_DESTINATION') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function describe(err: unknown): string {
  if (isBlocked(err)) return 'destination refused: not a public address';
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/** Retry-After as seconds or an HTTP date; undefined when absent or unparsable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Authorization header from the config's stored `authentication` ({schemes, credentials}). A 0.3 config: Bearer
 * only. A 1.0 config: `{scheme} {credentials}` for any scheme (1.0 spec 4.3.3).
 */
function authorization(target: PushTarget): string | undefined {
  if (!target.authenticationJson) return undefined;
  let a: { schemes?: unknown; credentials?: unknown };
  try {
    a = JSON.parse(target.authenticationJson) as typeof a;
  } catch {
    return undefined;
  }
  if (target.protocolVersion === PROTOCOL_VERSION_V1) return pushAuthorizationV1(a);
  const bearer = Array.isArray(a.schemes) && a.schemes.some((s) => String(s).toLowerCase() === 'bearer');
  return bearer && typeof a.credentials === 'string' && a.credentials ? `Bearer ${a.credentials}` : undefined;
}

/**
 * The body of a push in each version, from the Task as tasks/get returns it (0.3): the 0.3 Task as it is, or
 * the 1.0 StreamResponse. Each is built once per update, whatever the number of configs.
 */
export function pushBodies(taskJson: string): (protocolVersion: string | undefined) => string {
  let v1: string | undefined;
  return (protocolVersion) => {
    if (protocolVersion !== PROTOCOL_VERSION_V1) return taskJson;
    v1 ??= JSON.stringify(pushPayloadV1(JSON.parse(taskJson) as Record<string, unknown>));
    return v1;
  };
}

export class Deliverer {
  readonly #resolve: Resolver;
  readonly #isAllowed: (ip: string, hostname?: string) => boolean;
  readonly #shape: EgressPolicy;
  // Labels are bounded: the outcomes and reasons above, never a URL, host or config id.
  readonly #deliveries = a2aMeter().createCounter('a2a_webhook_deliveries', {
    description: 'Push deliveries (one per task update and push config) by outcome',
  });
  readonly #retries = a2aMeter().createCounter('a2a_webhook_retries', {
    description: 'Push delivery retries made (attempts after the first), by the reason of the failed attempt before',
  });
  readonly #duration = a2aMeter().createHistogram('a2a_webhook_delivery_duration_seconds', {
    description: 'Time from claim to the end of a push delivery (attempts and retry waits), by outcome',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] },
  });

  constructor(
    private readonly deps: {
      agent: WebhookAgent;
      log: Collection<DeliveryLogDoc>;
      logger: Logger;
      clock: Clock;
      policy: DeliveryPolicy;
      isAllowed: (ip: string, hostname?: string) => boolean;
      /** The push allow-list's URL shape rules (PUSH_ALLOW_*); default: public https only. */
      egressPolicy?: EgressPolicy;
      resolve?: Resolver;
      sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
      random?: () => number;
      /** Aborted when the service shuts down: retries stop, the claim is released, deliver() rejects. */
      shutdown?: AbortSignal;
      /**
       * Set when this process owns its data alone (the durable embedded mode): a `pending` claim made before
       * this time was made by a process that is gone, so it is taken over at once, not after `leaseMs()`.
       */
      earlierClaimsBeforeMs?: number;
    },
  ) {
    this.#resolve = deps.resolve ?? dnsResolver;
    this.#isAllowed = deps.isAllowed;
    this.#shape = deps.egressPolicy ?? pushEgressPolicy();
  }

  /** Webhook rule 1: https and a public (or operator-listed) destination, re-checked before every attempt. */
  async checkUrl(raw: string): Promise<string | undefined> {
    const shape = this.#shape.checkUrlShape(raw);
    if (!shape.ok) return shape.reason;
    const host = shape.url.hostname.replace(/^\[|\]$/g, '');
    let addresses: string[];
    try {
      addresses = isIP(host) !== 0 ? [host] : await this.#resolve(host);
    } catch {
      return `url host ${host} does not resolve`;
    }
    if (addresses.length === 0) return `url host ${host} does not resolve`;
    if (addresses.some((a) => !this.#isAllowed(a, host))) return 'url must resolve to a public address';
    return undefined;
  }

  /** One POST. Redirects are not followed (Webhook rule 2): a 3xx is a permanent failure. */
  async attempt(target: PushTarget, body: string, deliveryId?: string): Promise<AttemptResult> {
    const refused = await this.checkUrl(target.url);
    if (refused) return { outcome: 'permanent', error: refused };
    const headers: Record<string, string> = {
      'content-type': target.protocolVersion === PROTOCOL_VERSION_V1 ? PUSH_CONTENT_TYPE_V1 : 'application/json',
      [SIGNATURE_HEADER.toLowerCase()]: signBody(body, target.token),
    };
    if (deliveryId) headers[DELIVERY_ID_HEADER.toLowerCase()] = deliveryId;
    const auth = authorization(target);
    if (auth) headers.authorization = auth;
    const total = this.deps.policy.totalTimeoutMs ?? TOTAL_TIMEOUT_MS;
    try {
      const res = await request(target.url, {
        dispatcher: this.deps.agent,
        method: 'POST',
        headers,
        body,
        signal: this.deps.shutdown
          ? AbortSignal.any([AbortSignal.timeout(total), this.deps.shutdown])
          : AbortSignal.timeout(total),
        headersTimeout: total,
        bodyTimeout: total,
      });
      await drain(res.body, this.deps.policy.maxResponseBytes ?? MAX_RESPONSE_BYTES);
      const status = res.statusCode;
      if (status >= 200 && status < 300) return { outcome: 'delivered', status };
      if (status === 429) {
        const retryAfterMs = parseRetryAfter(res.headers['retry-after'], this.deps.clock.now());
        return { outcome: 'retry', status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
      }
      if (status >= 500) return { outcome: 'retry', status };
      return { outcome: 'permanent', status }; // 3xx (not followed), 4xx other than 429
    } catch (err) {
      return { outcome: isBlocked(err) ? 'permanent' : 'retry', error: describe(err) };
    }
  }

  #delay(retry: number, retryAfterMs: number | undefined): number {
    const { retryBaseMs, retryMaxDelayMs } = this.deps.policy;
    const backoff = retryBaseMs * 2 ** (retry - 1) + Math.floor((this.deps.random ?? Math.random)() * retryBaseMs);
    return Math.min(retryMaxDelayMs, Math.max(backoff, retryAfterMs ?? 0));
  }

  /**
   * Delivers the body to one target once per (task, seq, config) across replicas and redeliveries: the
   * delivery log id is claimed by insert; a claim held by a live delivery or a finished one is skipped.
   */
  async deliver(update: TaskUpdateRef, target: PushTarget, body: string): Promise<DeliveryLogDoc | undefined> {
    const { taskId, seq } = update;
    const id = `${taskId}:${seq}:${target.configId}`;
    const claimed = await this.#claim(id, {
      taskId,
      seq,
      configId: target.configId,
      subscriptionId: update.subscriptionId,
      agentId: update.agentId,
      // Never the URL as given: userinfo and query values may be credentials (the log is shown in the console).
      target: redactTarget(target.url),
    });
    if (!claimed) return undefined;
    let { version } = claimed;
    const doc: DeliveryLogDoc = { ...claimed.doc };
    const sleep = this.deps.sleep ?? abortableSleep;
    const shutdown = this.deps.shutdown ?? new AbortController().signal;
    let retryAfterMs: number | undefined;
    let retryFor: RetryReason | undefined;
    const startedAt = process.hrtime.bigint();
    const count = (outcome: DeliveryOutcome): void => {
      this.#deliveries.add(1, { outcome });
      this.#duration.record(Number(process.hrtime.bigint() - startedAt) / 1e9, { outcome });
    };
    for (let attemptNo = 0; attemptNo <= MAX_RETRIES; attemptNo++) {
      if (attemptNo > 0) await sleep(this.#delay(attemptNo, retryAfterMs), shutdown);
      if (shutdown.aborted) {
        count('interrupted');
        return this.#release(id, version);
      }
      if (retryFor) this.#retries.add(1, { reason: retryFor }); // counted when the retry is made
      const r = await this.attempt(target, body, id);
      if (shutdown.aborted && r.outcome !== 'delivered') {
        count('interrupted');
        return this.#release(id, version);
      }
      doc.attempts = [
        ...doc.attempts,
        {
          atMs: this.deps.clock.now(),
          ...(r.status !== undefined ? { status: r.status } : {}),
          ...(r.error ? { error: redactText(r.error, target.url) } : {}),
        },
      ];
      retryAfterMs = r.retryAfterMs;
      const done = r.outcome !== 'retry' || attemptNo === MAX_RETRIES;
      if (done) {
        doc.state = r.outcome === 'delivered' ? 'delivered' : 'failed';
        const outcome = outcomeOf(r);
        if (outcome !== 'interrupted') doc.outcome = outcome;
        doc.finishedAtMs = this.deps.clock.now();
      }
      version = await this.#save(id, version, doc);
      retryFor = done ? undefined : retryReason(r);
      if (done) {
        count(outcomeOf(r));
        this.deps.logger.info(
          {
            taskId,
            seq,
            configId: target.configId,
            state: doc.state,
            attempts: doc.attempts.length,
            last: r.status ?? (r.error ? redactText(r.error, target.url) : undefined),
          },
          'push delivery',
        );
        return doc;
      }
    }
    return doc;
  }

  /**
   * Shutdown in the middle of a delivery: the claim is deleted so that the redelivered message (the handler
   * rejects, so the bus does not commit it) is delivered by the next consumer at once, not after the lease.
   */
  async #release(id: string, version: number): Promise<never> {
    try {
      await this.deps.log.delete(id, version);
    } catch {
      /* the lease expires anyway */
    }
    throw new DeliveryInterruptedError(id);
  }

  async #claim(
    id: string,
    key: Pick<DeliveryLogDoc, 'taskId' | 'seq' | 'configId' | 'subscriptionId' | 'agentId' | 'target'>,
  ): Promise<{ version: number; doc: DeliveryLogDoc } | undefined> {
    const now = this.deps.clock.now();
    const fresh: DeliveryLogDoc = { ...key, state: 'pending', claimedAtMs: now, attempts: [] };
    try {
      const v = await this.deps.log.insert(id, fresh, { expiresAt: now + LOG_RETENTION_MS });
      return { version: v.version, doc: v.doc };
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'DUPLICATE_KEY')) throw err;
    }
    const existing = await this.deps.log.get(id);
    if (!existing || existing.doc.state !== 'pending') return undefined; // delivered or given up already
    // A pending claim older than the whole retry budget belongs to a replica that died, and one made before
    // this process started when it owns its data alone (its process is gone): take it over.
    const before = this.deps.earlierClaimsBeforeMs;
    const orphaned = before !== undefined && existing.doc.claimedAtMs < before;
    if (!orphaned && now - existing.doc.claimedAtMs < this.leaseMs()) return undefined;
    try {
      const doc = { ...existing.doc, claimedAtMs: now };
      const v = await this.deps.log.replace(id, existing.version, doc, { expiresAt: now + LOG_RETENTION_MS });
      return { version: v.version, doc: v.doc };
    } catch (err) {
      if (err instanceof AppError && (err.code === 'VERSION_CONFLICT' || err.code === 'NOT_FOUND')) return undefined;
      throw err;
    }
  }

  /** Upper bound of one delivery: every attempt's total timeout plus every retry's capped delay, plus margin. */
  leaseMs(): number {
    const total = this.deps.policy.totalTimeoutMs ?? TOTAL_TIMEOUT_MS;
    return (MAX_RETRIES + 1) * total + MAX_RETRIES * this.deps.policy.retryMaxDelayMs + 30_000;
  }

  async #save(id: string, version: number, doc: DeliveryLogDoc): Promise<number> {
    try {
      const v = await this.deps.log.replace(id, version, doc, { expiresAt: this.deps.clock.now() + LOG_RETENTION_MS });
      return v.version;
    } catch (err) {
      // The log is a record, not the delivery itself: a failed write must not resend.
      this.deps.logger.warn({ id, err: describe(err) }, 'push delivery log write failed');
      return version;
    }
  }
}

export class DeliveryInterruptedError extends Error {
  constructor(id: string) {
    super(`push delivery ${id} interrupted by shutdown`);
    this.name = 'DeliveryInterruptedError';
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

async function drain(body: AsyncIterable<Uint8Array> & { destroy?: () => void }, max: number): Promise<void> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (seen > max) {
      body.destroy?.();
      return;
    }
  }
}
