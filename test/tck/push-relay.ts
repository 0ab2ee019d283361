import http from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCert } from '../../services/webhooks/test/support/receiver';

/**
 * The TCK's push receiver is plain `http://localhost:{port}/webhook` (its `WebhookReceiver`), which Webhook rule 1
 * refuses ("Only `https`; the host must resolve to a public address"), as A2A 1.0 section 13.2 asks ("Reject
 * localhost"). What an operator would put in front of such a receiver: an HTTPS endpoint under a public name that
 * forwards to it. The auth proxy rewrites each receiver URL a SendMessage carries (`relayUrl`) to this relay,
 * `https://hook.public.example:{relay}/tck/{port}/webhook`, which the harness's resolvers send to loopback; the
 * relay forwards every delivery unchanged (method, headers, body) to `http://127.0.0.1:{port}/webhook`.
 */
export interface PushRelay {
  port: number;
  /** A receiver URL on loopback over http → its relayed https URL; any other URL unchanged. */
  relayUrl(url: string): string;
  close(): Promise<void>;
}

/** The public name of the relay (the test certificate's, resolved to loopback at delivery). */
export const RELAY_HOST = 'hook.public.example';

const LOOPBACK_HTTP = /^http:\/\/(?:localhost|127\.0\.0\.1|\[::1\]):(\d{1,5})(\/.*)?$/;

export async function startPushRelay(tls: TestCert): Promise<PushRelay> {
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const m = /^\/tck\/(\d{1,5})(\/.*)$/.exec(req.url ?? '');
    if (!m) return void res.writeHead(404).end();
    const up = http.request(
      { host: '127.0.0.1', port: Number(m[1]), method: req.method, path: m[2], headers: req.headers },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    relayUrl(url) {
      const m = LOOPBACK_HTTP.exec(url);
      return m ? `https://${RELAY_HOST}:${port}/tck/${m[1]}${m[2] ?? '/'}` : url;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
