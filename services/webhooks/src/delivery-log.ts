import { InvalidParamsError } from '@a2a-inbound/errors';
import type { Collection, Versioned } from '@a2a-inbound/ports';

/** What the log shows of a push URL: never its userinfo, query values or fragment. */
export interface RedactedTarget {
  /** Scheme, host, port and path; each query value replaced by `REDACTED`. */
  url: string;
  /** Host, with the port when not the default. */
  host: string;
}

export const REDACTED = 'REDACTED';

/**
 * A push URL as the delivery log may keep it. Userinfo (`user:password@`), query values (`?token=…`) and the
 * fragment are secrets as often as not, and the log is shown to every user of the subscription; the query's
 * names stay so that targets remain distinguishable. An unparsable URL is kept as nothing but a marker.
 */
export function redactTarget(raw: string): RedactedTarget {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { url: '(not a valid URL)', host: '' };
  }
  const query = [...u.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=${REDACTED}`).join('&');
  return { url: `${u.protocol}//${u.host}${u.pathname}${query ? `?${query}` : ''}`, host: u.host };
}

/**
 * An error text with the URL's secrets removed: the whole raw URL, its userinfo (raw and decoded) and every
 * query value are replaced, should a network error quote them.
 */
export function redactText(text: string, rawUrl: string): string {
  const secrets = new Set<string>();
  try {
    const u = new URL(rawUrl);
    secrets.add(rawUrl);
    for (const part of [u.username, u.password]) {
      if (part) {
        secrets.add(part);
        secrets.add(decodeURIComponent(part));
      }
    }
    if (u.search.length > 1) secrets.add(u.search.slice(1));
    for (const v of u.searchParams.values()) if (v) secrets.add(v);
    if (u.hash.length > 1) secrets.add(u.hash.slice(1));
  } catch {
    if (rawUrl) secrets.add(rawUrl);
  }
  let out = text;
  // Longest first, so that a secret containing another is replaced whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) {
    if (s.length >= 3) out = out.split(s).join(REDACTED);
  }
  return out;
}

/**
 * How a delivery ended, as the log shows it: `pending` while attempts go on; `delivered` (2xx); `rejected`
 * (3xx, or a 4xx other than 429); `refused` (not an https URL of a public address: nothing was sent);
 * `exhausted` (429, 5xx or network errors on every attempt).
 */
export type LoggedOutcome = 'pending' | 'delivered' | 'rejected' | 'refused' | 'exhausted';

/** One record of collection `push_deliveries`: the claim that makes a delivery happen once, and its log. */
export interface DeliveryLogDoc {
  taskId: string;
  seq: number;
  configId: string;
  /** Owner: the task's subscription and agent (the log is read per agent, within a subscription). */
  subscriptionId: string;
  agentId: string;
  /** The push URL without secrets (redactTarget). */
  target: RedactedTarget;
  state: 'pending' | 'delivered' | 'failed';
  /** Set when the delivery ends (state `delivered` or `failed`). */
  outcome?: Exclude<LoggedOutcome, 'pending'>;
  claimedAtMs: number;
  /** Each attempt: when, the HTTP status, or the error (redacted) when no answer came. */
  attempts: { atMs: number; status?: number; error?: string }[];
  finishedAtMs?: number;
}

export const DELIVERY_LOG_COLLECTION = 'push_deliveries';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** Pages are offsets into the newest-first order; deeper than this is refused (the log is for recent history). */
export const MAX_OFFSET = 10_000;

/** A delivery as the read API returns it (the shape of webhooks.v1 PushDeliveryRecord). */
export interface DeliveryView {
  taskId: string;
  seq: number;
  configId: string;
  outcome: LoggedOutcome;
  httpStatus?: number;
  attempts: number;
  error: string;
  targetUrl: string;
  targetHost: string;
  startedAtMs: number;
  lastAttemptAtMs?: number;
  finishedAtMs?: number;
}

export function viewOf(doc: DeliveryLogDoc): DeliveryView {
  const last = doc.attempts.at(-1);
  return {
    taskId: doc.taskId,
    seq: doc.seq,
    configId: doc.configId,
    outcome:
      doc.state === 'pending' ? 'pending' : (doc.outcome ?? (doc.state === 'delivered' ? 'delivered' : 'exhausted')),
    ...(last?.status !== undefined ? { httpStatus: last.status } : {}),
    attempts: doc.attempts.length,
    error: last?.status === undefined ? (last?.error ?? '') : '',
    targetUrl: doc.target.url,
    targetHost: doc.target.host,
    startedAtMs: doc.claimedAtMs,
    ...(last ? { lastAttemptAtMs: last.atMs } : {}),
    ...(doc.finishedAtMs !== undefined ? { finishedAtMs: doc.finishedAtMs } : {}),
  };
}

function pageTokenOf(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

function offsetOf(token: string): number {
  if (!token) return 0;
  const m = /^o:(\d{1,6})$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  const n = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_OFFSET) throw new InvalidParamsError('pageToken is invalid');
  return n;
}

/**
 * One page of an agent's deliveries within a subscription, newest first. The filter is the owner pair, so a
 * record of another subscription is never read, whatever agent id is asked for.
 */
export async function listDeliveries(
  log: Collection<DeliveryLogDoc>,
  q: { subscriptionId: string; agentId: string; limit?: number; pageToken?: string },
): Promise<{ deliveries: DeliveryView[]; nextPageToken: string }> {
  if (!q.subscriptionId) throw new InvalidParamsError('subscriptionId is required');
  if (!q.agentId) throw new InvalidParamsError('agentId is required');
  const limit = q.limit === undefined || q.limit === 0 ? DEFAULT_PAGE_SIZE : q.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw new InvalidParamsError(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  const offset = offsetOf(q.pageToken ?? '');
  // One more than asked: whether another page follows.
  const found: Versioned<DeliveryLogDoc>[] = await log.find(
    { subscriptionId: q.subscriptionId, agentId: q.agentId },
    { sort: { field: 'claimedAtMs', direction: -1 }, skip: offset, limit: limit + 1 },
  );
  const more = found.length > limit && offset + limit <= MAX_OFFSET;
  return {
    deliveries: found.slice(0, limit).map((v) => viewOf(v.doc)),
    nextPageToken: more ? pageTokenOf(offset + limit) : '',
  };
}
