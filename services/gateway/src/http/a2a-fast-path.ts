import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, Request, RequestHandler, Response } from 'express';
import { tracingOn } from '@a2a-inbound/runtime';
import type { A2aEndpoint } from './a2a-router';

/**
 * The JSON-RPC endpoints of A2A 0.3/0.2 and 1.0, as Express routes them (case-insensitive, `/:agentId` one segment, the
 * version one of the two the router serves). Only the plain spelling is taken here: a percent-encoded agent id, a
 * query string, a trailing slash or another case go through Express, which answers them as before.
 */
const FAST_PATH = /^\/agents\/([A-Za-z0-9._~-]+)\/a2a(?:\/(v0\.[23]|v1))?$/;
/**
 * The A2A 1.0 HTTP+JSON binding (`/a2a/v1/rest/…`, the 1.0 router's `/rest`): its path under `/rest` in the plain
 * spelling only (unreserved characters and `:`, no empty segment, no percent-encoding, no query string). The
 * handler matches the operation itself, so an unknown path under `/rest` is answered here as Express answers it.
 */
const REST_FAST_PATH = /^\/agents\/([A-Za-z0-9._~-]+)\/a2a\/v1\/rest((?:\/[A-Za-z0-9._~:-]+)+)$/;

export interface A2aFastPathDeps {
  /** The app whose `request`/`response` prototypes give `req` and `res` what Express's handlers use. */
  app: Express;
  /** The app-level middleware every request passes first (the request log, the metrics, CORS), in order. */
  before: readonly RequestHandler[];
  /** `/a2a`, `/a2a/v0.3` and `/a2a/v0.2` (the 0.3/0.2 router's `/` and `/:version`). */
  endpoint: A2aEndpoint;
  /** `/a2a/v1`: the 1.0 JSON-RPC binding (the 1.0 router's `POST /`). */
  v1: A2aEndpoint;
  /** `/a2a/v1/rest/…`: the 1.0 HTTP+JSON binding (the 1.0 router's `/rest`), GET, POST and DELETE. */
  v1Rest: A2aEndpoint;
}

/** Where a request goes: its endpoint, and `baseUrl`, `url` and `params` as the mounted routers would leave them. */
interface Target {
  endpoint: A2aEndpoint;
  baseUrl: string;
  url: string;
  params: Record<string, string>;
}

/**
 * `POST /agents/:agentId/a2a[/v0.3|/v0.2|/v1]` and `GET|POST|DELETE /agents/:agentId/a2a/v1/rest/…` without
 * Express's router (ADR 0067): the same middleware and the same guard, handler and error handler in the same order,
 * on `req`/`res` prepared as `app.handle` prepares them, but no walk over the app's layers and the mounted routers'
 * (path matching, parameter decoding, a `next` closure per layer). Returns false for anything else, which the caller
 * hands to Express. While tracing is on every request goes through Express, whose instrumentation names the route
 * and makes the middleware spans.
 */
export function a2aFastPath(deps: A2aFastPathDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { app, before } = deps;
  /** The endpoint of a URL, as the app's router and the mounted A2A routers route it; undefined: Express's. */
  const targetOf = (method: string | undefined, url: string): Target | undefined => {
    if (method === 'POST') {
      const match = FAST_PATH.exec(url);
      if (match) {
        const agentId = match[1] as string;
        const version = match[2];
        // Mounted at /agents/:agentId/a2a (or /a2a/v1), routed to '/' or '/:version' (router.handle's trim).
        if (version === 'v1')
          return { endpoint: deps.v1, baseUrl: `/agents/${agentId}/a2a/v1`, url: '/', params: { agentId } };
        return {
          endpoint: deps.endpoint,
          baseUrl: `/agents/${agentId}/a2a`,
          url: version === undefined ? '/' : `/${version}`,
          params: version === undefined ? { agentId } : { agentId, version },
        };
      }
    } else if (method !== 'GET' && method !== 'DELETE') return undefined;
    const rest = REST_FAST_PATH.exec(url);
    if (!rest) return undefined;
    const agentId = rest[1] as string;
    // The 1.0 router at /agents/:agentId/a2a/v1 (mergeParams), its `use('/rest')` trimming the URL to what follows.
    return {
      endpoint: deps.v1Rest,
      baseUrl: `/agents/${agentId}/a2a/v1/rest`,
      url: rest[2] as string,
      params: { agentId },
    };
  };
  return (incoming, outgoing) => {
    const url = incoming.url ?? '';
    const target = targetOf(incoming.method, url);
    if (!target || tracingOn()) return false;
    const { guard, handler, onError } = target.endpoint;

    // What `app.handle` does (x-powered-by is off).
    const req = incoming as Request;
    const res = outgoing as Response;
    req.res = res;
    res.req = req;
    // Made by `appMessageClasses` with these prototypes already: a prototype change costs microseconds per object.
    if (Object.getPrototypeOf(req) !== app.request) Object.setPrototypeOf(req, app.request);
    if (Object.getPrototypeOf(res) !== app.response) Object.setPrototypeOf(res, app.response);
    if (!res.locals) res.locals = Object.create(null) as Record<string, unknown>;
    // What the app's router and the mounted A2A router leave on the request for the handlers.
    req.baseUrl = '';
    req.originalUrl = url;
    req.params = {};
    let step = 0;
    // The app's router's fallback (finalhandler) for an error no handler answered: the response has started
    // (every handler here answers otherwise), so the connection is cut, as finalhandler cuts it.
    const last = (err?: unknown): void => {
      if (err !== undefined && err !== 'route' && err !== 'router') outgoing.socket?.destroy();
    };
    const fail = (err: unknown): void => {
      try {
        onError(err, req, res, last);
      } catch (thrown) {
        last(thrown);
      }
    };
    const next = (err?: unknown): void => {
      if (err !== undefined) {
        fail(err);
        return;
      }
      const i = step++;
      // A layer that throws goes to the error handler, as Express's layers do: never out of the server's
      // request listener (an uncaught exception would end the process).
      try {
        if (i < before.length) {
          (before[i] as RequestHandler)(req, res, next);
          return;
        }
        if (i === before.length) {
          req.baseUrl = target.baseUrl;
          req.url = target.url;
          req.params = target.params;
          guard(req, res, next);
          return;
        }
        handler(req, res).catch(fail);
      } catch (err) {
        fail(err);
      }
    };
    next();
    return true;
  };
}

/**
 * The request and response classes for `http.createServer` whose prototypes are the app's `request` and `response`
 * (what `app.handle` gives every request with `Object.setPrototypeOf`): objects made with them need no prototype
 * change, in the fast path or in Express (setting the prototype an object already has is free). Node's own
 * constructors build them, so they are the same objects with the same fields.
 */
export function appMessageClasses(app: Express): {
  IncomingMessage?: typeof IncomingMessage;
  ServerResponse?: typeof ServerResponse;
} {
  // Node's are plain constructor functions; should one become a `class`, it cannot be called this way: keep Node's.
  const isClass = (f: unknown): boolean => /^class\b/.test(Function.prototype.toString.call(f));
  if (isClass(IncomingMessage) || isClass(ServerResponse)) return {};
  function AppRequest(this: IncomingMessage, ...args: unknown[]): void {
    Reflect.apply(IncomingMessage, this, args);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, ...args: unknown[]): void {
    Reflect.apply(ServerResponse, this, args);
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
}
