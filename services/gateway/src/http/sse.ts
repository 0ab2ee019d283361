import type { Response } from 'express';
import { toAppError, type AppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { TaskEventStream, TaskStreamEvent } from '../protocol/operations';

/**
 * The keep-alive comments of every open stream with the same interval, from one timer (not an interval per
 * stream: an idle stream held its own timer and closure). The timer ticks every quarter interval and pings the
 * streams that wrote nothing for the rest of one: no stream stays silent longer than the interval, and one that
 * just sent a frame needs no comment. It runs only while a stream is open.
 */
class Heartbeats {
  static readonly #byInterval = new Map<number, Heartbeats>();
  readonly #writers = new Set<SseWriter>();
  readonly #tickMs: number;
  #timer: NodeJS.Timeout | undefined;

  private constructor(readonly intervalMs: number) {
    this.#tickMs = Math.max(1, Math.floor(intervalMs / 4));
  }

  static of(intervalMs: number): Heartbeats {
    let h = Heartbeats.#byInterval.get(intervalMs);
    if (!h) Heartbeats.#byInterval.set(intervalMs, (h = new Heartbeats(intervalMs)));
    return h;
  }

  add(w: SseWriter): void {
    this.#writers.add(w);
    if (!this.#timer) {
      this.#timer = setInterval(() => this.#tick(), this.#tickMs);
      this.#timer.unref();
    }
  }

  delete(w: SseWriter): void {
    this.#writers.delete(w);
    if (this.#writers.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #tick(): void {
    const due = Date.now() - (this.intervalMs - this.#tickMs);
    for (const w of this.#writers) if (w.lastWriteAt <= due) w.ping();
  }
}

/** Writes Server-Sent Events: `id:` = the event's sequence number, `: ping` heartbeats, JSON frames. */
export class SseWriter {
  readonly #heartbeats: Heartbeats;
  #ended = false;
  /** When this stream last wrote (`Date.now()`): the shared heartbeat pings it after an interval of silence. */
  lastWriteAt = Date.now();

  constructor(
    private readonly res: Response,
    heartbeatMs: number,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
    res.setHeader('Connection', 'keep-alive');
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    this.#heartbeats = Heartbeats.of(heartbeatMs);
    this.#heartbeats.add(this);
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** A keep-alive comment. */
  ping(): void {
    if (this.#ended) return;
    this.lastWriteAt = Date.now();
    this.res.write(': ping\n\n');
  }

  /** Writes one frame (of the SSE `event` type when given); resolves when the socket accepted it (back-pressure). */
  async send(data: unknown, id?: number, event?: string): Promise<void> {
    if (this.#ended) return;
    const frame = `${event ? `event: ${event}\n` : ''}${id !== undefined && id > 0 ? `id: ${id}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
    this.lastWriteAt = Date.now();
    if (!this.res.write(frame)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.res.off('drain', done);
          this.res.off('close', done);
          resolve();
        };
        this.res.once('drain', done);
        this.res.once('close', done);
      });
    }
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#heartbeats.delete(this);
    this.res.end();
  }
}

/** How long a stream waits for its first event before it opens anyway (refusals come well before). */
export const STREAM_OPEN_WAIT_MS = 1_000;

export interface SseStreamOptions {
  heartbeatMs: number;
  /** Open streams, ended on shutdown. */
  streams: Set<SseWriter>;
  log: Logger;
  /** The wire frame of an event; undefined skips the event (its sequence number is not sent either). */
  frame(e: TaskStreamEvent): unknown;
  /** The last frame when the stream breaks after it opened (the caller has not gone). */
  errorFrame(err: AppError): unknown;
  /** The SSE event type of that frame (A2A 1.0's HTTP+JSON binding sends `error`); none by default. */
  errorEvent?: string;
}

/**
 * The one SSE writer of the agent endpoints (A2A, legacy, invoke). `open` starts the stream; a refusal (bad
 * params, unknown task, credits) thrown by it or arriving as the first event's error within
 * STREAM_OPEN_WAIT_MS is thrown to the caller, which answers it in its own shape. Otherwise the stream opens:
 * at the first event, or after that short wait with nothing to send yet (a quiet task), so that clients and
 * proxies get their headers at once and the heartbeats keep the connection. It ends after the final event,
 * when the client goes, or on shutdown.
 */
export async function writeEventStream(
  res: Response,
  open: (signal: AbortSignal) => Promise<TaskEventStream> | TaskEventStream,
  o: SseStreamOptions,
): Promise<void> {
  const ac = new AbortController();
  res.on('close', () => ac.abort());
  let it: AsyncIterator<TaskStreamEvent>;
  let firstEvent: Promise<IteratorResult<TaskStreamEvent>> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let first: IteratorResult<TaskStreamEvent> | undefined;
  try {
    it = (await open(ac.signal))[Symbol.asyncIterator]();
    firstEvent = it.next();
    const raced = await Promise.race([
      firstEvent,
      new Promise<'quiet'>((resolve) => {
        timer = setTimeout(() => resolve('quiet'), Math.min(o.heartbeatMs, STREAM_OPEN_WAIT_MS));
      }),
    ]);
    if (raced !== 'quiet') first = raced;
  } catch (err) {
    ac.abort();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  const sse = new SseWriter(res, o.heartbeatMs);
  o.streams.add(sse);
  let sawFinal = false;
  try {
    let cur = first ?? (await firstEvent);
    // Not kept for the stream's life (an idle stream would hold its first event three times over).
    first = undefined;
    firstEvent = undefined;
    while (!cur.done) {
      const e = cur.value;
      const data = o.frame(e);
      if (data !== undefined) await sse.send(data, e.seq);
      if (e.final) {
        sawFinal = true;
        break;
      }
      if (ac.signal.aborted) break;
      cur = await it.next();
    }
  } catch (err) {
    if (!ac.signal.aborted) {
      const app = toAppError(err);
      o.log.warn({ err: app }, 'stream ended with an error');
      await sse.send(o.errorFrame(app), undefined, o.errorEvent);
    }
  } finally {
    ac.abort();
    void it.return?.(undefined);
    if (!sawFinal) o.log.debug({ path: res.req.path }, 'stream closed before final');
    sse.end();
    o.streams.delete(sse);
  }
}

/** Errors after which a stream can be resumed (the caller reconnects), as opposed to refusals. */
export function isTransient(err: AppError): boolean {
  return err.code === 'INTERNAL' || err.code === 'UNAVAILABLE' || err.code === 'DEADLINE_EXCEEDED';
}
