import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { a2aV1 } from '@a2a-inbound/proto';

/**
 * What a client that holds an API key does, in front of the gateway, for clients that cannot be given one (the
 * official A2A TCK sends no credentials): every HTTP request and every gRPC call without credentials of its own is
 * forwarded with `Authorization: Bearer <key>` (and each gRPC request with the agent's `tenant`: `withTenant`); a
 * push receiver URL a SendMessage carries goes through `rewritePushUrl` (the push relay). The gateway is configured to name these listeners in its cards
 * (`PUBLIC_BASE_URL`, `A2A_GRPC_PUBLIC_ADDR`), so a client that discovers the card stays behind the proxy.
 */
export interface AuthProxy {
  httpPort: number;
  grpcPort: number;
  /** Where to forward (known only once the gateway listens, after the proxies: the card must name them). */
  target(key: string, tenant: string, http: { host: string; port: number }, grpc: { host: string; port: number }): void;
  close(): Promise<void>;
}

/** A protobuf varint. */
function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}

/**
 * A2A 1.0 section 8.3.2 rule 4: a client sets `tenant` in every request to the value its chosen interface declares.
 * The TCK's gRPC client does not (it dials the card's URL only), so the proxy does it for it: each uncompressed
 * gRPC message of the call gets the `tenant` field appended (a later occurrence of a protobuf field wins).
 */
function withTenant(frames: Buffer, field: number, tenant: string): Buffer {
  const out: Buffer[] = [];
  for (let at = 0; at + 5 <= frames.length;) {
    const compressed = frames[at]!;
    const len = frames.readUInt32BE(at + 1);
    let message = frames.subarray(at + 5, at + 5 + len);
    if (compressed === 0 && tenant) {
      const value = Buffer.from(tenant);
      message = Buffer.concat([message, varint((field << 3) | 2), varint(value.length), value]);
    }
    const head = Buffer.alloc(5);
    head[0] = compressed;
    head.writeUInt32BE(message.length, 1);
    out.push(head, message);
    at += 5 + len;
  }
  return Buffer.concat(out);
}

/** Each uncompressed gRPC message of a call, decoded, changed by `change` and encoded again. */
function eachMessage(frames: Buffer, change: (message: Buffer) => Buffer): Buffer {
  const out: Buffer[] = [];
  for (let at = 0; at + 5 <= frames.length;) {
    const compressed = frames[at]!;
    const len = frames.readUInt32BE(at + 1);
    const message =
      compressed === 0 ? change(frames.subarray(at + 5, at + 5 + len)) : frames.subarray(at + 5, at + 5 + len);
    const head = Buffer.alloc(5);
    head[0] = compressed;
    head.writeUInt32BE(message.length, 1);
    out.push(head, message);
    at += 5 + len;
  }
  return Buffer.concat(out);
}

/** The push receiver URL a JSON SendMessage carries (JSON-RPC `params.configuration…`, REST `configuration…`), rewritten. */
function withPushUrl(body: Buffer, rewrite: (url: string) => string): Buffer {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return body; // not JSON (a TCK error case): as it was sent
  }
  const obj = (v: unknown): Record<string, unknown> | undefined =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const root = obj(json);
  const push = obj(obj(obj(root?.params)?.configuration ?? root?.configuration)?.taskPushNotificationConfig);
  if (!push || typeof push.url !== 'string' || rewrite(push.url) === push.url) return body;
  push.url = rewrite(push.url);
  return Buffer.from(JSON.stringify(json));
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);

/**
 * `rewritePushUrl`: the receiver URLs SendMessage requests carry inline (the TCK's plain-http loopback receiver)
 * are rewritten by it on every binding (`push-relay.ts`).
 */
export async function startAuthProxy(rewritePushUrl: (url: string) => string = (u) => u): Promise<AuthProxy> {
  let key = '';
  let tenant = '';
  let httpTarget: { host: string; port: number } | undefined;
  let grpcTarget: { host: string; port: number } | undefined;

  const web = http.createServer((req, res) => {
    if (!httpTarget) return void res.writeHead(503).end();
    // A request that brings its own credentials keeps them, as the gRPC side does (the metadata is copied over
    // the proxy's key): the TCK's wrong-credentials cases reach the gateway as they were sent.
    const headers = { ...req.headers, authorization: req.headers.authorization ?? `Bearer ${key}` };
    // The 0.3 TCK reads the card at the host's root (0.3 spec 5.3, "https://{server_domain}/.well-known/…"):
    // the proxy fronts one agent, as a domain given to one agent would.
    const path = /^\/\.well-known\/agent(-card)?\.json$/.test(req.url ?? '') ? `/agents/${tenant}${req.url}` : req.url;
    const forward = (body?: Buffer): void => {
      if (body) {
        delete headers['transfer-encoding'];
        headers['content-length'] = String(body.length);
      }
      const up = http.request({ ...httpTarget!, method: req.method, path, headers }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      up.on('error', () => res.destroy());
      res.on('close', () => up.destroy());
      if (body) up.end(body);
      else req.pipe(up);
    };
    if (req.method !== 'POST') return forward();
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => forward(withPushUrl(Buffer.concat(chunks), rewritePushUrl)));
  });

  let session: http2.ClientHttp2Session | undefined;
  const upstream = (): http2.ClientHttp2Session => {
    if (!session || session.closed || session.destroyed) {
      session = http2.connect(`http://${grpcTarget!.host}:${grpcTarget!.port}`);
      session.on('error', () => undefined);
    }
    return session;
  };
  const grpc = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  grpc.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  grpc.on('stream', (stream, headers) => {
    if (!grpcTarget) return stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    const out: http2.OutgoingHttpHeaders = { authorization: `Bearer ${key}` };
    for (const [k, v] of Object.entries(headers)) {
      if (k.startsWith(':') && k !== ':method' && k !== ':path') continue;
      if (!HOP_BY_HOP.has(k)) out[k] = v;
    }
    const up = upstream().request(out, { endStream: false });
    const method =
      String(headers[':path'] ?? '')
        .split('/')
        .pop() ?? '';
    let trailers: http2.IncomingHttpHeaders | undefined;
    up.on('response', (h, flags) => {
      const { [':status']: status, ...rest } = h;
      // A trailers-only answer (an error before any message: grpc-status in the headers) stays one.
      const trailersOnly = (flags & http2.constants.NGHTTP2_FLAG_END_STREAM) !== 0;
      stream.respond(
        { ':status': status ?? 200, ...rest },
        trailersOnly ? { endStream: true } : { waitForTrailers: true },
      );
    });
    up.on('trailers', (t) => (trailers = t));
    stream.on('wantTrailers', () => stream.sendTrailers(trailers ?? {}));
    up.on('error', () => stream.destroy());
    stream.on('close', () => up.destroy());
    up.pipe(stream);
    const body: Buffer[] = [];
    stream.on('data', (d: Buffer) => body.push(d));
    const relayed = (frames: Buffer): Buffer =>
      method === 'SendMessage' || method === 'SendStreamingMessage'
        ? eachMessage(frames, (m) => {
            const request = a2aV1.SendMessageRequest.decode(m);
            const push = request.configuration?.taskPushNotificationConfig;
            if (!push || rewritePushUrl(push.url) === push.url) return m;
            push.url = rewritePushUrl(push.url);
            return Buffer.from(a2aV1.SendMessageRequest.encode(request).finish());
          })
        : frames;
    stream.on('end', () =>
      up.end(withTenant(relayed(Buffer.concat(body)), method === 'ListTaskPushNotificationConfigs' ? 4 : 1, tenant)),
    );
  });

  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => grpc.listen(0, '127.0.0.1', r));
  return {
    httpPort: (web.address() as AddressInfo).port,
    grpcPort: (grpc.address() as AddressInfo).port,
    target(k, t, h, g) {
      key = k;
      tenant = t;
      httpTarget = h;
      grpcTarget = g;
    },
    async close() {
      session?.close();
      web.closeAllConnections();
      for (const s of sessions) s.destroy();
      await Promise.all([new Promise((r) => web.close(r)), new Promise((r) => grpc.close(r))]);
    },
  };
}
