import type { NextFunction, Request, Response } from 'express';
import { AppError, jsonRpcHttpStatus, toAppError, toJsonRpcError, httpStatusOf } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';

/** A fault of ours (not of the request) goes to the log with its cause; the client sees only the code. */
export function logServerFault(app: AppError, err: unknown, log: Logger): void {
  if (app.code === 'INTERNAL' || app.code === 'UNAVAILABLE' || app.code === 'DEADLINE_EXCEEDED')
    log.error({ err }, 'request failed');
}

/** `Retry-After` of a refusal that says when to come back (OVERLOADED, RATE_LIMITED). */
export function retryAfter(res: Response, app: AppError): void {
  const seconds = app.details?.retryAfterSeconds;
  if (typeof seconds === 'number' && !res.headersSent) res.setHeader('Retry-After', String(seconds));
}

/**
 * `WWW-Authenticate` for a 401 (the reason as `error_description`) and, when a scope is named, for a 403
 * (`insufficient_scope`).
 */
export function authChallenge(res: Response, status: number, app: AppError, scope: string | undefined): void {
  if (status === 401)
    res.setHeader(
      'WWW-Authenticate',
      `Bearer realm="a2a-inbound", error="invalid_token", error_description="${app.message.replace(/"/g, "'")}"`,
    );
  if (status === 403 && scope !== undefined)
    res.setHeader('WWW-Authenticate', `Bearer realm="a2a-inbound", error="insufficient_scope", scope="${scope}"`);
}

/** A JSON-RPC error answer with the HTTP status of the table (200 unless an HTTP-level refusal). */
export function sendJsonRpcError(res: Response, id: string | number | null, err: unknown, log: Logger): void {
  const app = toAppError(err);
  res.locals.a2aErrorCode = app.code; // request metrics (metrics.ts)
  logServerFault(app, err, log);
  const status = jsonRpcHttpStatus(app);
  authChallenge(res, status, app, 'a2a');
  retryAfter(res, app);
  res.status(status).json({ jsonrpc: '2.0', id, error: toJsonRpcError(app) });
}

/**
 * A refused streaming request (`message/stream`, `tasks/resubscribe`): HTTP 200, `text/event-stream`, one
 * `data:` frame with the JSON-RPC error, then the end of the stream. HTTP-level refusals (the spec's 401, 403,
 * 404, 429, and 413) keep their status and a JSON body.
 */
export function sendJsonRpcErrorAsStream(res: Response, id: string | number | null, err: unknown, log: Logger): void {
  const app = toAppError(err);
  if (jsonRpcHttpStatus(app) !== 200) {
    sendJsonRpcError(res, id, app, log);
    return;
  }
  res.locals.a2aErrorCode = app.code; // request metrics (metrics.ts)
  logServerFault(app, err, log);
  retryAfter(res, app);
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, error: toJsonRpcError(app) })}\n\n`);
}

/** Errors of body parsing (express.json) → JSON-RPC -32700 / 413, never an HTML page. */
export function jsonRpcBodyErrorHandler(log: Logger) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.too.large' || e.status === 413) {
      sendJsonRpcError(res, null, new AppError('PAYLOAD_TOO_LARGE', 'Request body too large'), log);
      return;
    }
    if (e.type === 'entity.parse.failed' || err instanceof SyntaxError) {
      sendJsonRpcError(res, null, new AppError('PARSE_ERROR', 'Parse error: the body is not valid JSON'), log);
      return;
    }
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      sendJsonRpcError(res, null, new AppError('PARSE_ERROR', 'Unsupported body encoding'), log);
      return;
    }
    if (e.type === 'request.aborted') return;
    // Any other refusal of the body reader (a corrupt gzip stream, an unknown Content-Encoding) is the
    // client's: the body could not be read as JSON, so -32700, never an internal error.
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      sendJsonRpcError(res, null, new AppError('PARSE_ERROR', 'Parse error: the body could not be decoded'), log);
      return;
    }
    sendJsonRpcError(res, null, err, log);
  };
}

/** Last-resort handler for REST routes: JSON `{ error: { code, message } }`. */
export function restErrorHandler(log: Logger) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    const e = err as { type?: string; status?: number };
    let app = toAppError(err);
    if (e.type === 'entity.too.large') app = new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
    else if (e.type === 'entity.parse.failed') app = new AppError('PARSE_ERROR', 'The body is not valid JSON');
    if (app.code === 'INTERNAL') log.error({ err }, 'request failed');
    const wire = toJsonRpcError(app);
    res
      .status(httpStatusOf(app))
      .json({ error: { code: app.code, message: wire.message, ...(wire.data ? { details: wire.data } : {}) } });
  };
}
