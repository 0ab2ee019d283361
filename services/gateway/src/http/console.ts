import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { controlV1 } from '@a2a-inbound/proto';
import type { Cache } from '@a2a-inbound/ports';
import { closeIfBodyUnread, jsonBody } from './body';
import { isObject, restErrors } from './rest';
import { authenticateUserDigest, setSessionDigest, type UserActor } from './user-auth';

/**
 * The web console (ADR 0024): its static files at /console with a strict Content-Security-Policy, and its
 * session. Signing in exchanges a user token for an opaque session id in an HttpOnly, SameSite=Strict cookie
 * (Secure, with the __Host- prefix, over https). The session stores the token's SHA-256 only; every request
 * re-authenticates that digest with the control plane, so a session is exactly the token's identity and role
 * and ends when the user does. State-changing requests made with the cookie must carry the session's CSRF
 * token in `X-CSRF-Token` (a custom header a cross-site form cannot send; SameSite=Strict is the second wall).
 */

export const SESSION_COOKIE = 'a2a_console';
export const SECURE_SESSION_COOKIE = '__Host-a2a_console';
export const CSRF_HEADER = 'x-csrf-token';
const SESSION_KEY_PREFIX = 'console-session:';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const MAX_COOKIE_CHARS = 200;

interface StoredSession {
  /** SHA-256 (hex) of the user token: the token itself is never stored. */
  tokenHash: string;
  csrf: string;
  expiresAtMs: number;
}

/** Content-Security-Policy of every /console answer: only our own files, no inline script or style. */
export function consoleCsp(publicBaseUrl: string): string {
  // Test Discovery fetches the public catalog from the browser: its origin may be the public base URL.
  let connect = "'self'";
  if (publicBaseUrl) {
    try {
      connect += ` ${new URL(publicBaseUrl).origin}`;
    } catch {
      // config validated it already
    }
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

export interface ConsoleSessions {
  /** Resolves the session cookie (if any) and checks CSRF on state-changing calls; for /api/v1 and /api/applications. */
  readonly middleware: (req: Request, res: Response, next: NextFunction) => void;
}

export interface ConsoleDeps {
  /** Folder of the built console (index.html, assets/); a missing folder makes /console a JSON 503. */
  dir: string;
  cache: Cache;
  control: controlV1.ControlPlaneServiceClient;
  log: Logger;
  sessionTtlMs: number;
  publicBaseUrl: string;
  now(): number;
}

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
const sessionKey = (id: string): string => `${SESSION_KEY_PREFIX}${sha256(id).toString('hex')}`;

function cookieOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (name !== SESSION_COOKIE && name !== SECURE_SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (value.length > 0 && value.length <= MAX_COOKIE_CHARS && /^[A-Za-z0-9_-]+$/.test(value)) return value;
  }
  return undefined;
}

const sameText = (a: string, b: string): boolean => {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
};

export function createConsole(deps: ConsoleDeps): { router: Router; sessions: ConsoleSessions } {
  const { cache, control, log } = deps;
  const csp = consoleCsp(deps.publicBaseUrl);

  const load = async (id: string): Promise<StoredSession | undefined> => {
    const raw = await cache.get(sessionKey(id));
    if (!raw) return undefined;
    try {
      const s = JSON.parse(raw) as StoredSession;
      return s.expiresAtMs > deps.now() ? s : undefined;
    } catch {
      return undefined;
    }
  };
  // Secure when this request came over https (TRUST_PROXY honours a TLS-terminating proxy's X-Forwarded-Proto)
  // or when the public base URL is https (users reach us over https even if this hop is plain http).
  const publicHttps = deps.publicBaseUrl.startsWith('https:');
  const cookieFlags = (req: Request): { name: string; attrs: string } => {
    const secure = req.secure || publicHttps;
    return {
      name: secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE,
      attrs: `Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`,
    };
  };
  const meOut = (u: UserActor) => ({
    userId: u.userId,
    email: u.email,
    role: u.role,
    subscriptionId: u.subscriptionId,
  });

  const sessions: ConsoleSessions = {
    middleware: (req, res, next) => {
      // A bearer token wins: API clients never depend on a cookie.
      if (req.headers.authorization !== undefined) {
        next();
        return;
      }
      const id = cookieOf(req);
      if (!id) {
        next();
        return;
      }
      load(id).then(
        (s) => {
          if (!s) {
            closeIfBodyUnread(req, res);
            next(new AppError('UNAUTHENTICATED', 'The console session has ended: sign in again'));
            return;
          }
          if (!SAFE_METHODS.has(req.method)) {
            const sent = req.headers[CSRF_HEADER];
            if (typeof sent !== 'string' || !sameText(sent, s.csrf)) {
              closeIfBodyUnread(req, res);
              next(new AppError('PERMISSION_DENIED', `Missing or wrong X-CSRF-Token header (CSRF protection)`));
              return;
            }
          }
          setSessionDigest(req, Buffer.from(s.tokenHash, 'hex'));
          next();
        },
        (err: unknown) => next(err),
      );
    },
  };

  const router = Router();
  router.use('/console', (_req, res, next) => {
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    next();
  });

  // ---- the session ----------------------------------------------------------------------------------
  router.use('/console/session', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.post('/console/session', (req, res, next) => {
    // JSON only: a cross-site form cannot send it without a CORS preflight, which we never answer.
    if (!req.is('application/json')) {
      closeIfBodyUnread(req, res);
      next(new AppError('CONTENT_TYPE_NOT_SUPPORTED', 'Send JSON: Content-Type: application/json'));
      return;
    }
    next();
  });
  router.post('/console/session', ...jsonBody(16 * 1024));
  router.post('/console/session', async (req, res) => {
    const body: unknown = req.body;
    const token = isObject(body) ? body.token : undefined;
    if (typeof token !== 'string' || token.length === 0 || token.length > 512)
      throw new InvalidParamsError('token must be your user token');
    const digest = sha256(token.trim());
    const user = await authenticateUserDigest(digest, control);
    const id = randomBytes(32).toString('base64url');
    const csrf = randomBytes(32).toString('base64url');
    const stored: StoredSession = {
      tokenHash: digest.toString('hex'),
      csrf,
      expiresAtMs: deps.now() + deps.sessionTtlMs,
    };
    await cache.set(sessionKey(id), JSON.stringify(stored), deps.sessionTtlMs);
    const { name, attrs } = cookieFlags(req);
    res.setHeader('Set-Cookie', `${name}=${id}; ${attrs}; Max-Age=${Math.floor(deps.sessionTtlMs / 1000)}`);
    log.info({ userId: user.userId, role: user.role }, 'console sign-in');
    res.status(201).json({ user: meOut(user), csrfToken: csrf, expiresAt: new Date(stored.expiresAtMs).toISOString() });
  });
  router.get('/console/session', async (req, res) => {
    const id = cookieOf(req);
    const s = id ? await load(id) : undefined;
    if (!s) throw new AppError('UNAUTHENTICATED', 'Not signed in');
    const user = await authenticateUserDigest(Buffer.from(s.tokenHash, 'hex'), control);
    res.json({ user: meOut(user), csrfToken: s.csrf, expiresAt: new Date(s.expiresAtMs).toISOString() });
  });
  router.delete('/console/session', async (req, res) => {
    const id = cookieOf(req);
    const s = id ? await load(id) : undefined;
    if (id && s) {
      const sent = req.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !sameText(sent, s.csrf))
        throw new AppError('PERMISSION_DENIED', `Missing or wrong X-CSRF-Token header (CSRF protection)`);
      await cache.delete(sessionKey(id));
    }
    const { name, attrs } = cookieFlags(req);
    res.setHeader('Set-Cookie', `${name}=; ${attrs}; Max-Age=0`);
    res.status(204).end();
  });
  router.use('/console/session', restErrors(log, 'console'));

  // ---- the static files --------------------------------------------------------------------------------
  const built = (): boolean => existsSync(join(deps.dir, 'index.html'));
  router.get('/console', (req, res, next) => {
    // The app's relative asset paths need the trailing slash.
    if (req.originalUrl === '/console') {
      res.redirect(308, '/console/');
      return;
    }
    next();
  });
  router.use('/console', (req, res, next) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && !built()) {
      res.status(503).json({ error: { code: 'UNAVAILABLE', message: 'The console is not built: run npm run build' } });
      return;
    }
    next();
  });
  router.use(
    '/console',
    express.static(deps.dir, {
      index: 'index.html',
      redirect: false,
      dotfiles: 'ignore',
      fallthrough: true,
      setHeaders(res, path) {
        // Vite names assets by content hash: cache them for good; index.html is always revalidated.
        if (/[/\\]assets[/\\]/.test(path)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
        else res.setHeader('Cache-Control', 'no-cache');
      },
    }),
  );
  return { router, sessions };
}
