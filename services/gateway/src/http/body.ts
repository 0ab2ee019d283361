import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '@a2a-inbound/errors';
import type { Clock, RateLimiter } from '@a2a-inbound/ports';
import type { InFlightLimit } from '@a2a-inbound/runtime';
import type { Lookups } from '../clients';
import { jsonDepthExceeds, LIMITS } from '../protocol/validate';
import { agentForCaller, enforceRateLimit, type AgentCallContext } from './agent-access';
import { authenticateKey } from './auth';
import { lingerAfterAnswer } from './linger';

/**
 * The one way the gateway reads a JSON body (JSON-RPC, legacy REST, invoke, management, linker): bytes first
 * (size-limited, decompressed by body-parser), then strict UTF-8, JSON.parse, and the nesting limit, checked
 * iteratively, so no later step (validation, snake_case mapping, JSON.stringify) recurses over hostile depth.
 */

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Raw body bytes → JSON. Empty, invalid UTF-8 or malformed JSON is PARSE_ERROR (-32700 / HTTP 400). */
export function parseJsonBytes(body: unknown): unknown {
  if (!Buffer.isBuffer(body) || body.length === 0) throw new AppError('PARSE_ERROR', 'Parse error: the body is empty');
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new AppError('PARSE_ERROR', 'Parse error: the body is not valid UTF-8');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('PARSE_ERROR', 'Parse error: the body is not valid JSON');
  }
}

/** INVALID_REQUEST (-32600 / HTTP 400) when a parsed body nests deeper than LIMITS.maxDepth. */
export function assertJsonDepth(value: unknown): void {
  if (jsonDepthExceeds(value, LIMITS.maxDepth))
    throw new AppError('INVALID_REQUEST', `The request is nested deeper than ${LIMITS.maxDepth} levels`);
}

/** A request whose body was announced (a length or chunked) and not read (yet). */
export function bodyUnread(req: Request): boolean {
  if (req.readableEnded) return false;
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Refused before its body was read: the connection closes after the answer, so an unauthenticated upload
 * (or a slow dribble of one) is never drained or waited for. The close lingers (linger.ts): the rest of the
 * upload is discarded for a bounded time, so that a client still sending reads the answer instead of a reset.
 */
export function closeIfBodyUnread(req: Request, res: Response): void {
  if (!bodyUnread(req) || res.headersSent) return;
  res.setHeader('Connection', 'close');
  lingerAfterAnswer(req, req.socket);
}

/**
 * REST body parser: `req.body` is the parsed JSON (undefined without a body). Errors go to the router's
 * error handler as AppErrors (PARSE_ERROR, INVALID_REQUEST for depth, PAYLOAD_TOO_LARGE from body-parser).
 */
export function jsonBody(limitBytes: number): RequestHandler[] {
  const raw = express.raw({ limit: limitBytes, type: () => true });
  return [
    (req: Request, res: Response, next: NextFunction): void => {
      // An announced length over the limit is refused unread: body-parser would read the whole upload first.
      if (Number(req.headers['content-length']) > limitBytes) {
        closeIfBodyUnread(req, res);
        next(new AppError('PAYLOAD_TOO_LARGE', 'Request body too large'));
        return;
      }
      if (req.headers['content-length'] !== undefined) {
        raw(req, res, next);
        return;
      }
      // Chunked: body-parser would read the whole upload (however long) before its 413. Counted alongside it and
      // refused at the limit, unread; its own verdict, once the lingering close ends the request, is dropped.
      let seen = 0;
      let refused = false;
      const count = (chunk: Buffer): void => {
        seen += chunk.length;
        if (seen <= limitBytes || refused) return;
        refused = true;
        req.off('data', count);
        closeIfBodyUnread(req, res);
        next(new AppError('PAYLOAD_TOO_LARGE', 'Request body too large'));
      };
      req.on('data', count);
      raw(req, res, (err?: unknown) => {
        req.off('data', count);
        if (!refused) next(err);
      });
    },
    (req: Request, _res: Response, next: NextFunction): void => {
      try {
        if (Buffer.isBuffer(req.body) && req.body.length > 0) {
          const value = parseJsonBytes(req.body);
          assertJsonDepth(value);
          req.body = value;
        } else req.body = undefined;
        next();
      } catch (err) {
        next(err);
      }
    },
  ];
}

export interface AgentGuardDeps {
  lookups: Lookups;
  limiter: RateLimiter;
  clock: Clock;
  /** Requests admitted and not yet accepted by the tasks service (GatewayAdmission). */
  pending: InFlightLimit;
}

/**
 * The guard of every agent endpoint (JSON-RPC, legacy REST, invoke), before any body is read: the bearer key
 * and its scope (401/403), the agent of the key's subscription (404, A2A enabled when required), the
 * per-agent rate limit (429), the gateway's admission bound (OVERLOADED: a slot held until tasks accepted the
 * request or the response closed). On success `res.locals.ctx` is the AgentCallContext; errors go to `next`.
 */
export function agentGuard(deps: AgentGuardDeps, scope: 'a2a' | 'invoke', requireA2a: boolean): RequestHandler {
  return (req, res, next) => {
    void (async () => {
      const auth = await authenticateKey(req, scope, deps.lookups, deps.clock);
      const agent = await agentForCaller(deps.lookups, String(req.params.agentId), auth, requireA2a);
      await enforceRateLimit(res, deps.limiter, agent, deps.clock);
      const accepted = deps.pending.admit();
      res.once('close', accepted);
      res.locals.ctx = { auth, agent, accepted } satisfies AgentCallContext;
    })().then(
      () => next(),
      (err: unknown) => {
        closeIfBodyUnread(req, res);
        next(err);
      },
    );
  };
}

export const callContextOf = (res: Response): AgentCallContext => res.locals.ctx as AgentCallContext;
