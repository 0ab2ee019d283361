import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request one of the trap's two servers answered (not the redirects themselves). */
export interface TrappedRequest {
  origin: 'first' | 'other';
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

/**
 * Two HTTP servers on loopback, two origins (two ports): `${first}/cross/<rest>` answers 307 to
 * `${other}/<rest>`, `${first}/same/<rest>` 307 to `${first}/<rest>`; every other request, on either server,
 * is recorded in `seen` and answered 200 `{"text": "answered by the <first|other> origin"}` (a JSON answer of
 * the `http` runtime's contract). For tests that a credential never follows a redirect to
 * another origin while a same-origin redirect keeps it.
 */
export interface RedirectTrap {
  first: string;
  other: string;
  seen: TrappedRequest[];
  /** The requests `origin` received; `secrets` found in any of their header values. */
  leaked(origin: 'first' | 'other', secrets: readonly string[]): string[];
  close(): Promise<void>;
}

/** An answer of the trap's own choosing for a recorded request (default: the JSON `text` answer above). */
export type TrapAnswer = (req: TrappedRequest) => { status?: number; body: unknown } | undefined;

export async function startRedirectTrap(answer?: TrapAnswer): Promise<RedirectTrap> {
  const seen: TrappedRequest[] = [];
  let first = '';
  let other = '';
  const record = (origin: TrappedRequest['origin'], server: Server): void => {
    server.on('request', (req, res) => {
      req.resume();
      const path = req.url ?? '/';
      if (origin === 'first' && path.startsWith('/cross/')) {
        res.writeHead(307, { location: `${other}${path.slice('/cross'.length)}` }).end();
        return;
      }
      if (origin === 'first' && path.startsWith('/same/')) {
        res.writeHead(307, { location: path.slice('/same'.length) }).end();
        return;
      }
      req.on('end', () => {
        const trapped: TrappedRequest = { origin, method: req.method ?? '', path, headers: req.headers };
        seen.push(trapped);
        const chosen = answer?.(trapped);
        res
          .writeHead(chosen?.status ?? 200, { 'content-type': 'application/json' })
          .end(JSON.stringify(chosen ? chosen.body : { text: `answered by the ${origin} origin` }));
      });
    });
  };
  const a = createServer();
  const b = createServer();
  record('first', a);
  record('other', b);
  const listen = async (s: Server): Promise<string> => {
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  };
  first = await listen(a);
  other = await listen(b);
  return {
    first,
    other,
    seen,
    leaked: (origin, secrets) =>
      seen
        .filter((s) => s.origin === origin)
        .flatMap((s) => Object.values(s.headers).flat())
        .filter((v): v is string => typeof v === 'string' && secrets.some((secret) => v.includes(secret))),
    close: async () => {
      for (const s of [a, b]) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
    },
  };
}
