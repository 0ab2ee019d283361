import { randomBytes } from 'node:crypto';
import { sseFrames } from '@a2a-inbound/testing';

/**
 * A steady A2A load that behaves as a careful client does while the system is being broken under it: every
 * message keeps its messageId across retries (so a retry can never make a second task or a second charge),
 * a send that fails for a transient reason is sent again through the next gateway, and a stream that breaks
 * is resumed with `tasks/resubscribe` and `Last-Event-ID` through the next gateway until it ends `final: true`.
 *
 * What it records is what the fault suite checks: which messages were accepted (a Task came back), under
 * which task ids, how each stream ended, and every error it saw on the way.
 */

export type OpKind = 'send' | 'blocking' | 'stream';

export interface Outcome {
  kind: OpKind;
  messageId: string;
  text: string;
  workMs: number;
  startedAt: number;
  /** Every task id any answer for this messageId named (more than one is a duplicate). */
  taskIds: Set<string>;
  attempts: number;
  /** Transient errors seen and survived by retrying (status or JSON-RPC code, and the gateway). */
  retried: string[];
  /** A non-transient refusal: the message was never accepted. */
  refused?: string;
  /** Streams: the state of the `final: true` event, once one arrived (across resumes). */
  streamFinal?: string;
  /** Streams: event ids in the order they arrived, across resumes (checks nothing is replayed twice). */
  eventIds: number[];
  resumes: number;
  finishedAt?: number;
}

export interface LoadOptions {
  gateways: () => string[];
  key: string;
  agent: string;
  /** Operations started per second. */
  ratePerSec: number;
  workMs: number;
  /** How long one operation may keep retrying before it gives up (recorded as refused). */
  opDeadlineMs: number;
  mix?: Partial<Record<OpKind, number>>;
}

/** JSON-RPC -32056 `OVERLOADED`: refused before anything was charged; the client retries after Retry-After. */
const OVERLOADED = -32056;
const TRANSIENT_HTTP = new Set([408, 425, 429, 500, 502, 503, 504]);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class Load {
  readonly outcomes: Outcome[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private seq = 0;
  private readonly runId = randomBytes(3).toString('hex');

  constructor(private readonly o: LoadOptions) {}

  start(): void {
    const every = 1000 / this.o.ratePerSec;
    this.timer = setInterval(() => this.launch(), every);
  }

  /**
   * Stops starting operations; resolves when every started one has finished (accepted, refused or final), or
   * after `maxWaitMs`: an operation still running then is recorded as refused (it never got its answer).
   */
  async stop(maxWaitMs = 240_000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const until = Date.now() + maxWaitMs;
    while (this.inFlight.size > 0 && Date.now() < until)
      await Promise.race([Promise.allSettled([...this.inFlight]), sleep(1000)]);
    for (const o of this.outcomes)
      if (o.finishedAt === undefined && !o.refused && !o.streamFinal && o.taskIds.size === 0)
        o.refused = `still without an answer ${maxWaitMs / 1000} s after the load stopped`;
  }

  private pickKind(): OpKind {
    const mix = { send: 5, blocking: 2, stream: 3, ...this.o.mix };
    const total = mix.send + mix.blocking + mix.stream;
    let r = (this.seq * 7919) % total; // deterministic spread
    for (const k of ['send', 'blocking', 'stream'] as const) {
      if (r < mix[k]) return k;
      r -= mix[k];
    }
    return 'send';
  }

  private launch(): void {
    this.seq += 1;
    const n = this.seq;
    const outcome: Outcome = {
      kind: this.pickKind(),
      messageId: `fault-${this.runId}-${n}`,
      text: `load ${n}`,
      workMs: this.o.workMs,
      startedAt: Date.now(),
      taskIds: new Set(),
      attempts: 0,
      retried: [],
      eventIds: [],
      resumes: 0,
    };
    this.outcomes.push(outcome);
    const p = (outcome.kind === 'stream' ? this.runStream(outcome, n) : this.runSend(outcome, n))
      .catch((err: unknown) => {
        outcome.refused = `load client error: ${String(err)}`;
      })
      .finally(() => {
        outcome.finishedAt = Date.now();
        this.inFlight.delete(p);
      });
    this.inFlight.add(p);
  }

  private message(o: Outcome): Record<string, unknown> {
    return {
      kind: 'message',
      role: 'user',
      messageId: o.messageId,
      parts: [
        { kind: 'text', text: o.text },
        { kind: 'data', data: { workMs: o.workMs } },
      ],
    };
  }

  private url(base: string): string {
    return `${base}/agents/${this.o.agent}/a2a`;
  }

  private gateway(attempt: number, n: number): string {
    const gs = this.o.gateways();
    return gs[(n + attempt) % gs.length]!;
  }

  private async backoff(o: Outcome, retryAfterS?: number): Promise<boolean> {
    if (Date.now() - o.startedAt > this.o.opDeadlineMs) return false;
    const base = retryAfterS ? retryAfterS * 1000 : Math.min(2000, 100 * 2 ** Math.min(o.attempts, 5));
    await sleep(base + Math.floor(Math.random() * 100));
    return true;
  }

  private async runSend(o: Outcome, n: number): Promise<void> {
    const body = {
      jsonrpc: '2.0',
      id: n,
      method: 'message/send',
      params: { message: this.message(o), configuration: { blocking: o.kind === 'blocking' } },
    };
    for (;;) {
      const g = this.gateway(o.attempts, n);
      o.attempts += 1;
      let status = 0;
      let parsed: any;
      let retryAfter: number | undefined;
      try {
        const res = await fetch(this.url(g), {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.o.key}` },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(90_000),
        });
        status = res.status;
        retryAfter = Number(res.headers.get('retry-after')) || undefined;
        const text = await res.text();
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = { unparsable: text.slice(0, 200) };
        }
      } catch (err) {
        o.retried.push(
          `+${Date.now() - o.startedAt} ms ${g}: ${(err as Error).cause ? String((err as Error).cause) : String(err)}`,
        );
        if (await this.backoff(o)) continue;
        o.refused = `gave up after ${o.attempts} attempts`;
        return;
      }
      if (parsed?.result?.kind === 'task') {
        o.taskIds.add(parsed.result.id as string);
        return;
      }
      const code = parsed?.error?.code as number | undefined;
      const dataCode = parsed?.error?.data?.code as string | undefined;
      // -32056: a full process shed the send before charging it; come back after Retry-After.
      const transient = TRANSIENT_HTTP.has(status) || code === -32603 || code === OVERLOADED;
      if (transient) {
        o.retried.push(`+${Date.now() - o.startedAt} ms ${g}: HTTP ${status} ${code ?? ''} ${dataCode ?? ''}`.trim());
        if (await this.backoff(o, status === 429 || code === OVERLOADED ? retryAfter : undefined)) continue;
        o.refused = `gave up after ${o.attempts} attempts (last HTTP ${status} ${code ?? ''} ${dataCode ?? ''})`;
        return;
      }
      o.refused = `HTTP ${status}: ${JSON.stringify(parsed).slice(0, 300)}`;
      return;
    }
  }

  private async runStream(o: Outcome, n: number): Promise<void> {
    let taskId: string | undefined;
    let lastEventId: number | undefined;
    for (;;) {
      const g = this.gateway(o.attempts, n);
      o.attempts += 1;
      const body =
        taskId === undefined
          ? { jsonrpc: '2.0', id: n, method: 'message/stream', params: { message: this.message(o) } }
          : { jsonrpc: '2.0', id: n, method: 'tasks/resubscribe', params: { id: taskId } };
      if (taskId !== undefined) o.resumes += 1;
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
        Authorization: `Bearer ${this.o.key}`,
      };
      if (lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
      let problem: string | undefined;
      let retryAfter: number | undefined;
      try {
        const res = await fetch(this.url(g), {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(120_000),
        });
        retryAfter = Number(res.headers.get('retry-after')) || undefined;
        const contentType = res.headers.get('content-type') ?? '';
        if (!contentType.includes('text/event-stream')) {
          const text = await res.text();
          let parsed: any;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          const code = parsed?.error?.code as number | undefined;
          if (TRANSIENT_HTTP.has(res.status) || code === -32603 || code === OVERLOADED) {
            problem = `HTTP ${res.status} ${code ?? ''} ${parsed?.error?.data?.code ?? ''}`.trim();
          } else {
            o.refused = `HTTP ${res.status}: ${text.slice(0, 300)}`;
            return;
          }
        } else {
          for await (const frame of sseFrames(res)) {
            const data = frame.data;
            if (data?.error) {
              const code = data.error.code as number;
              if (code === -32603 || code === OVERLOADED) {
                problem = `stream error ${code} ${data.error.data?.code ?? ''}`.trim();
                break;
              }
              o.refused = `stream error frame: ${JSON.stringify(data.error).slice(0, 300)}`;
              return;
            }
            const r = data?.result;
            const id = r?.kind === 'task' ? (r.id as string) : (r?.taskId as string | undefined);
            if (id) {
              o.taskIds.add(id);
              taskId = id;
            }
            if (frame.id !== undefined) {
              o.eventIds.push(frame.id);
              lastEventId = frame.id;
            }
            if (r?.final === true) {
              o.streamFinal = r.status?.state as string;
              return;
            }
            if (r?.kind === 'task' && ['completed', 'failed', 'canceled', 'rejected'].includes(r.status?.state)) {
              o.streamFinal = r.status.state as string;
              return;
            }
          }
          problem ??= 'stream ended without a final event';
        }
      } catch (err) {
        problem = `${(err as Error).cause ? String((err as Error).cause) : String(err)}`;
      }
      o.retried.push(`+${Date.now() - o.startedAt} ms ${g}: ${problem}`);
      if (!(await this.backoff(o, retryAfter))) {
        o.refused = `stream gave up after ${o.attempts} attempts (last: ${problem})`;
        return;
      }
    }
  }
}
