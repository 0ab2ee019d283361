import type { Server } from 'node:http';
import { Socket } from 'node:net';

/**
 * Lingering close (ADR 0073) for a connection answered before its request body was read (closeIfBodyUnread).
 *
 * Node's HTTP server has none: when a `Connection: close` answer has been written, `resOnFinish` calls
 * `socket.destroySoon()` (end, then destroy once the FIN is out; the same on Node 20, 22 and 24). Closing a
 * socket whose receive buffer still holds upload bytes, or that receives more, makes the kernel send a RST,
 * and a client still uploading gets ECONNRESET/EPIPE, often before it read the 4xx answer. Instead: the answer
 * is written, the sending side is half-closed (FIN), and the rest of the upload is read and discarded (counted,
 * never buffered) until the client closes, `maxBytes` have been discarded or `timeoutMs` has passed; then the
 * socket is destroyed, so nobody holds the connection longer than that.
 */
export interface LingerPolicy {
  /** How long after the answer the upload is still read; 0 = no lingering (closed as soon as it is written). */
  timeoutMs: number;
  /** Discarded bytes past which the connection is cut (the client is uploading more than it needs to). */
  maxBytes: number;
}

const policies = new WeakMap<Socket, LingerPolicy>();

/** Every connection of `server` lingers by `policy` when it is closed with its request body unread. */
export function lingerOnEarlyClose(server: Server, policy: LingerPolicy): void {
  if (policy.timeoutMs <= 0) return;
  server.on('connection', (socket: Socket) => policies.set(socket, policy));
}

/**
 * Called when an answer is marked `Connection: close` with its body unread: the close that follows the answer
 * lingers. Without a policy for this connection (or not a TCP socket), Node's immediate close stays.
 */
export function lingerAfterAnswer(req: { complete: boolean }, socket: Socket | null | undefined): void {
  const policy = socket ? policies.get(socket) : undefined;
  if (!socket || !policy) return;
  // Per socket, so only this connection's close changes: Node calls it from resOnFinish (`res._last`).
  socket.destroySoon = (): void => {
    // The body arrived whole after all (read into the request, discarded there): nothing is left unread.
    if (req.complete || socket.destroyed) Socket.prototype.destroySoon.call(socket);
    // The client has closed its side already: nothing more will come.
    else if (socket.readableEnded) socket.destroy();
    else linger(socket, policy);
  };
}

function linger(socket: Socket, policy: LingerPolicy): void {
  const cut = (): void => {
    socket.destroy();
  };
  const timer = setTimeout(cut, policy.timeoutMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // The answer is out: FIN after it. (Node's server sockets allow half-open, so reading goes on.)
  socket.end();
  // Take the bytes from the HTTP parser, which would otherwise hand the rest of the upload to the request and
  // then parse whatever follows as a new (pipelined) request on a connection that was declared closed. A
  // 'data' listener makes Node's server stop feeding its parser from the handle; removing the server's own
  // listener first leaves this one the only reader.
  socket.removeAllListeners('data');
  let discarded = 0;
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > policy.maxBytes) cut();
  });
  // The client has sent everything it meant to and read the answer (it closes on `Connection: close`).
  socket.once('end', cut);
  // Reading may be stopped (the request's back-pressure paused the socket while the parser fed it), and the
  // stream still counts the read the parser took over as pending. An empty push ends that read (the documented
  // side effect of `push('')`), so that resuming starts reading again.
  socket.push(Buffer.alloc(0));
  socket.resume();
}
