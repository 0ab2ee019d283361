import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { AppError, InvalidParamsError, httpStatusOf, toAppError, toJsonRpcError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { call as grpcCall, grpc } from '@a2a-inbound/runtime';
import type { linkerV1 } from '@a2a-inbound/proto';

export interface LinkerRouterDeps {
  /** The generated grpc-js client of the linker service. */
  readonly linker: linkerV1.LinkerServiceClient;
  /** The signed-in console user (subscription, role, id) as the tasks service authenticated it; undefined when not signed in. */
  callerOf(req: Request): linkerV1.Caller | undefined;
  /**
   * The internal service credential the linker requires on every call (LINKER_SERVICE_TOKEN). Empty:
   * the linker is not configured on this gateway and its routes answer 503.
   */
  readonly serviceToken: string;
  readonly log?: Logger;
  /** Largest archive upload (default 50 MB). */
  readonly maxArchiveBytes?: number;
  /** Deadline of each linker call (ingest clones and parses: default 10 minutes). */
  readonly deadlineMs?: number;
}

const JSON_LIMIT = '64kb';
const ARCHIVE_TYPES = [
  'application/gzip',
  'application/x-gzip',
  'application/zip',
  'application/x-tar',
  'application/octet-stream',
];

type Handler = (req: Request, res: Response) => Promise<void>;

/**
 * REST endpoints of the linker for the console. Every answer is JSON (or Markdown for
 * `?format=markdown`), errors included: `{ error: { code, message } }`.
 *
 *   GET  /api/applications
 *   POST /api/applications                       { name }
 *   GET  /api/applications/:id
 *   DELETE /api/applications/:id
 *   POST /api/applications/:id/sources           { name, dir } | { name, git: { url, ref? } } | { name, archive: { filename } }
 *   POST /api/applications/:id/ingest            { source, ref? }   or the archive bytes with ?source=&filename=
 *   GET  /api/applications/:id/report?format=json|markdown[&version=N]
 *   GET  /api/applications/:id/versions          (newest first)
 *   GET  /api/applications/:id/versions/:v       (:v = number or "latest")
 */
export function createLinkerRouter(deps: LinkerRouterDeps): Router {
  const router = Router();
  const json = express.json({ limit: JSON_LIMIT, strict: true });
  const raw = express.raw({ type: ARCHIVE_TYPES, limit: deps.maxArchiveBytes ?? 50 * 1024 * 1024 });
  // Each call proves to the linker that it comes from the gateway (a fresh Metadata: grpc-js may add to it).
  const opts = (): { deadlineMs: number; metadata: grpc.Metadata } => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${deps.serviceToken}`);
    return { deadlineMs: deps.deadlineMs ?? 600_000, metadata };
  };
  /**
   * One linker call. The user was authenticated before it: UNAUTHENTICATED from the linker means it refused
   * this gateway's service credential (LINKER_SERVICE_TOKEN differs), a server fault, not the user's.
   */
  const call: typeof grpcCall = (method, request, options) =>
    grpcCall(method, request, options).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'UNAUTHENTICATED') {
        deps.log?.error('the linker refused the gateway service credential: check LINKER_SERVICE_TOKEN');
        throw new AppError('UNAVAILABLE', 'the linker is not available');
      }
      throw err;
    });
  const c = deps.linker;

  // Everything the linker does is scoped to this caller's subscription (ADR 0012).
  const caller = (req: Request): linkerV1.Caller => {
    const who = deps.callerOf(req);
    if (!who?.role || !who.subscriptionId) throw new AppError('UNAUTHENTICATED', 'sign in to use the linker');
    if (!deps.serviceToken) throw new AppError('UNAVAILABLE', 'the linker is not configured on this gateway');
    return who;
  };
  const wrap =
    (fn: Handler) =>
    (req: Request, res: Response, next: NextFunction): void => {
      fn(req, res).catch(next);
    };
  const param = (req: Request, name: string): string => {
    const v = req.params[name];
    if (typeof v !== 'string' || v.length === 0 || v.length > 200) throw new InvalidParamsError(`${name} is invalid`);
    return v;
  };
  const body = (req: Request): Record<string, unknown> => {
    const b: unknown = req.body;
    if (typeof b !== 'object' || b === null || Array.isArray(b))
      throw new InvalidParamsError('a JSON object body is required');
    return b as Record<string, unknown>;
  };
  const str = (v: unknown, name: string, required = true): string => {
    if (v === undefined && !required) return '';
    if (typeof v !== 'string' || (required && v.length === 0)) throw new InvalidParamsError(`${name} must be a string`);
    return v;
  };

  router.get(
    '/api/applications',
    wrap(async (req, res) => {
      res.json(await call(c.listApplications.bind(c), { caller: caller(req) }, opts()));
    }),
  );

  router.post(
    '/api/applications',
    json,
    wrap(async (req, res) => {
      const r = caller(req);
      const app = await call(c.createApplication.bind(c), { caller: r, name: str(body(req).name, 'name') }, opts());
      res.status(201).json(app);
    }),
  );

  router.get(
    '/api/applications/:id',
    wrap(async (req, res) => {
      res.json(await call(c.getApplication.bind(c), { caller: caller(req), applicationId: param(req, 'id') }, opts()));
    }),
  );

  router.delete(
    '/api/applications/:id',
    wrap(async (req, res) => {
      await call(c.deleteApplication.bind(c), { caller: caller(req), applicationId: param(req, 'id') }, opts());
      res.status(204).end();
    }),
  );

  router.post(
    '/api/applications/:id/sources',
    json,
    wrap(async (req, res) => {
      const r = caller(req);
      const b = body(req);
      let location: linkerV1.SourceLocation;
      if (b.dir !== undefined) location = { kind: { $case: 'dir', dir: str(b.dir, 'dir') } };
      else if (typeof b.git === 'object' && b.git !== null) {
        const g = b.git as Record<string, unknown>;
        location = { kind: { $case: 'git', git: { url: str(g.url, 'git.url'), ref: str(g.ref, 'git.ref', false) } } };
      } else if (typeof b.archive === 'object' && b.archive !== null) {
        location = {
          kind: {
            $case: 'archive',
            archive: { filename: str((b.archive as Record<string, unknown>).filename, 'archive.filename') },
          },
        };
      } else throw new InvalidParamsError('one of dir, git or archive is required');
      const source = await call(
        c.addSource.bind(c),
        { caller: r, applicationId: param(req, 'id'), name: str(b.name, 'name'), location },
        opts(),
      );
      res.status(201).json(source);
    }),
  );

  router.post(
    '/api/applications/:id/ingest',
    json,
    raw,
    wrap(async (req, res) => {
      const r = caller(req);
      const request: linkerV1.IngestSourceRequest = {
        caller: r,
        applicationId: param(req, 'id'),
        sourceId: '',
        ref: '',
        archive: Buffer.alloc(0),
        archiveFilename: '',
      };
      if (Buffer.isBuffer(req.body)) {
        request.sourceId = str(req.query.source, 'source');
        request.archiveFilename = str(req.query.filename, 'filename', false);
        request.archive = req.body;
        if (request.archive.length === 0) throw new InvalidParamsError('the archive is empty');
      } else {
        const b = body(req);
        request.sourceId = str(b.source, 'source');
        request.ref = str(b.ref, 'ref', false);
      }
      res.json(await call(c.ingestSource.bind(c), request, opts()));
    }),
  );

  router.get(
    '/api/applications/:id/report',
    wrap(async (req, res) => {
      const r = caller(req);
      const format = req.query.format ?? 'json';
      if (format !== 'json' && format !== 'markdown') throw new InvalidParamsError('format must be json or markdown');
      const version = req.query.version === undefined ? 0 : Number(req.query.version);
      if (!Number.isInteger(version) || version < 0) throw new InvalidParamsError('version must be a positive integer');
      const report = await call(c.getReport.bind(c), { caller: r, applicationId: param(req, 'id'), version }, opts());
      if (format === 'markdown') {
        res.type('text/markdown; charset=utf-8').send(report.markdown);
        return;
      }
      res.json({ version: report.version, report: JSON.parse(report.reportJson) as unknown });
    }),
  );

  router.get(
    '/api/applications/:id/versions',
    wrap(async (req, res) => {
      const r = caller(req);
      res.json(await call(c.listVersions.bind(c), { caller: r, applicationId: param(req, 'id'), limit: 100 }, opts()));
    }),
  );

  router.get(
    '/api/applications/:id/versions/:v',
    wrap(async (req, res) => {
      const r = caller(req);
      const v = param(req, 'v');
      const number = v === 'latest' ? 0 : Number(v);
      if (!Number.isInteger(number) || number < 1) {
        if (v !== 'latest') throw new InvalidParamsError('version must be a positive integer or "latest"');
      }
      res.json(await call(c.getVersion.bind(c), { caller: r, applicationId: param(req, 'id'), number }, opts()));
    }),
  );

  // JSON errors only, never Express's HTML page.
  router.use('/api/applications', (err: unknown, _req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) return next(err);
    const e = err as { type?: string; status?: number };
    let app = toAppError(err);
    if (e.type === 'entity.too.large' || e.status === 413)
      app = new AppError('PAYLOAD_TOO_LARGE', 'Request body too large');
    else if (e.type === 'entity.parse.failed') app = new AppError('PARSE_ERROR', 'The body is not valid JSON');
    if (app.code === 'INTERNAL' || app.code === 'UNAVAILABLE') deps.log?.error({ err }, 'linker request failed');
    const wire = toJsonRpcError(app);
    res.status(httpStatusOf(app)).json({ error: { code: app.code, message: wire.message } });
  });
  return router;
}
