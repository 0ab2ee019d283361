import type { Response } from 'express';

/** Writes Server-Sent Events: `id:` = the event's sequence number, `: ping` heartbeats, JSON-RPC envelopes. */
export class SseWriter {
  #heartbeat: NodeJS.Timeout | undefined;
  #ended = false;

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
    this.#heartbeat = setInterval(() => {
      if (!this.#ended) res.write(': ping\n\n');
    }, heartbeatMs);
    this.#heartbeat.unref();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Writes one frame; resolves when the socket accepted it (back-pressure). */
  async send(data: unknown, id?: number): Promise<void> {
    if (this.#ended) return;
    const frame = `${id !== undefined && id > 0 ? `id: ${id}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
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
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.res.end();
  }
}
