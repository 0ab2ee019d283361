import { connect, type Socket } from 'node:net';

export interface Upload {
  /** Everything the server sent (latin1). */
  text: string;
  /** Errors on the client's socket (ECONNRESET, EPIPE). */
  errors: string[];
  /** Body bytes the client wrote before it stopped (all of them, or the socket went). */
  sent: number;
  /** From the connection to the socket's close. */
  closedAfterMs: number;
}

/**
 * A client that uploads `total` body bytes after `head`, in `chunk`-byte writes `pauseMs` apart, whatever the
 * server answers meanwhile (as curl or Python's http.client do): a half-open TCP socket, so a FIN from the
 * server does not stop its writes, only a reset does. Ends its side when the body is sent, then waits for the
 * server to close (or `giveUpMs`).
 */
export function halfOpenUpload(
  port: number,
  head: string,
  o: { total: number; chunk: number; pauseMs: number; giveUpMs?: number },
): Promise<Upload> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const out: Upload = { text: '', errors: [], sent: 0, closedAfterMs: 0 };
    const giveUp = setTimeout(() => socket.destroy(), o.giveUpMs ?? 20_000);
    socket.on('data', (d: Buffer) => (out.text += d.toString('latin1')));
    socket.on('error', (err: NodeJS.ErrnoException) => out.errors.push(err.code ?? err.message));
    socket.on('close', () => {
      clearTimeout(giveUp);
      out.closedAfterMs = Date.now() - started;
      resolve(out);
    });
    const block = Buffer.alloc(o.chunk, 0x61);
    const pump = async (): Promise<void> => {
      socket.write(head);
      while (out.sent < o.total && !socket.destroyed) {
        const n = Math.min(o.chunk, o.total - out.sent);
        out.sent += n;
        if (!socket.write(n === o.chunk ? block : block.subarray(0, n)) && !socket.destroyed)
          await new Promise((r) => socket.once('drain', r).once('close', r));
        if (o.pauseMs > 0) await new Promise((r) => setTimeout(r, o.pauseMs));
      }
      if (!socket.destroyed) socket.end();
    };
    socket.once('connect', () => void pump());
  });
}

/** The status of a raw HTTP/1.1 answer (0 when there is none). */
export const rawStatus = (raw: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
/** Its header block. */
export const rawHeaders = (raw: string): string => raw.slice(0, raw.indexOf('\r\n\r\n'));
/** Its body parsed as JSON (throws when it is not). */
export const rawJson = (raw: string): any => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
