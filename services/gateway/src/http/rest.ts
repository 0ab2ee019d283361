import type { NextFunction, Request, Response } from 'express';
import { AppError, httpStatusOf, toAppError, toJsonRpcError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { authChallenge, logServerFault, retryAfter } from './errors';

/**
 * REST error answer, the one shape of the management, legacy and invoke endpoints:
 * `{ "error": { "code": "NOT_FOUND", "message": "…", "details": { … } } }` with the table's HTTP status,
 * `WWW-Authenticate` on 401/403. Internal causes go to the log only.
 */
export function sendRestError(res: Response, err: unknown, log: Logger, scope: string): void {
  const e = err as { type?: string; status?: number };
  let app = toAppError(err);
  if (e.type === 'entity.too.large' || e.status === 413)
    app = new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
  else if (e.type === 'entity.parse.failed') app = new AppError('PARSE_ERROR', 'The body is not valid JSON');
  else if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
    app = new AppError('PARSE_ERROR', 'Unsupported body encoding');
  // Express's own client errors (e.g. a path parameter that is not valid percent-encoding).
  else if (!(err instanceof AppError) && typeof e.status === 'number' && e.status >= 400 && e.status < 500)
    app = new AppError('INVALID_REQUEST', 'Malformed request');
  logServerFault(app, err, log);
  const status = httpStatusOf(app);
  authChallenge(res, status, app, app.message.includes('scope') ? scope : undefined);
  retryAfter(res, app);
  const wire = toJsonRpcError(app);
  // `details` carries the error's structured details; the code is already `error.code`.
  const { code: _code, ...details } = wire.data ?? {};
  res.status(status).json({
    error: { code: app.code, message: wire.message, ...(Object.keys(details).length > 0 ? { details } : {}) },
  });
}

/** Error middleware for a REST router (body-parser errors included): always JSON. */
export function restErrors(log: Logger, scope: string) {
  return (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    sendRestError(res, err, log, scope);
  };
}

const OPAQUE_KEYS = new Set(['metadata', 'data', 'runtimeConfig', 'runtime_config']);

/** camelCase keys → snake_case, recursively; user-owned objects (metadata, data parts) keep their keys. */
export function toSnake(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnake);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    out[key] = OPAQUE_KEYS.has(k) ? v : toSnake(v);
  }
  return out;
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A positive integer query parameter, or the fallback; anything else is INVALID_PARAMS. */
export function intQuery(req: Request, name: string, fallback: number | undefined, max: number): number | undefined {
  const raw = req.query[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw))
    throw new AppError('INVALID_PARAMS', `${name} must be a non-negative integer`);
  return Math.min(Number(raw), max);
}
