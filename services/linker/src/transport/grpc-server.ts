import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { type grpc, unary } from '@a2a-inbound/runtime';
import { redactUrl } from '../domain/git-url';
import type {
  Application,
  Caller,
  LinkerService,
  SourceDoc,
  StoredLocation,
  VersionView,
} from '../domain/linker-service';
import { linkerV1 } from './proto';

/** Metadata key of the internal service credential: `authorization: Bearer <LINKER_SERVICE_TOKEN>`. */
export const SERVICE_TOKEN_METADATA = 'authorization';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Checks the internal service credential of a call, in constant time (both sides hashed first, so
 * neither the length nor the content leaks through timing). Any failure is UNAUTHENTICATED.
 */
export function serviceCredentialCheck(serviceToken: string): (metadata: grpc.Metadata) => void {
  if (serviceToken.length < 32) throw new Error('the linker service token must have at least 32 characters');
  const expected = digest(serviceToken);
  return (metadata) => {
    const values = metadata.get(SERVICE_TOKEN_METADATA);
    const raw = values.length === 1 && typeof values[0] === 'string' ? values[0] : '';
    const m = /^Bearer (.{1,512})$/.exec(raw);
    if (!m || !timingSafeEqual(digest(m[1]!), expected))
      throw new AppError('UNAUTHENTICATED', 'the linker needs the internal service credential');
  };
}

function callerOf(c: linkerV1.Caller | undefined): Caller {
  return c
    ? { subscriptionId: c.subscriptionId, role: c.role, ...(c.userId ? { userId: c.userId } : {}) }
    : { subscriptionId: '', role: '' };
}

export function toSourceProto(s: SourceDoc): linkerV1.Source {
  const l = s.location;
  const kind: linkerV1.SourceLocation['kind'] =
    l.kind === 'dir'
      ? { $case: 'dir', dir: l.path }
      : l.kind === 'git'
        ? { $case: 'git', git: { url: redactUrl(l.url), ref: l.ref ?? '' } }
        : { $case: 'archive', archive: { filename: l.filename } };
  return {
    id: s.id,
    name: s.name,
    location: { kind },
    addedAtMs: s.addedAtMs,
    lastVersion: s.lastVersion ?? 0,
    revision: s.revision ?? '',
  };
}

export function toApplicationProto(a: Application): linkerV1.Application {
  return {
    id: a.id,
    name: a.doc.name,
    sources: a.doc.sources.map(toSourceProto),
    latestVersion: a.doc.latestVersion,
    createdAtMs: a.doc.createdAtMs,
  };
}

export function toVersionProto(v: VersionView): linkerV1.Version {
  return {
    applicationId: v.applicationId,
    number: v.number,
    sourceId: v.sourceId,
    sourceName: v.sourceName,
    createdAtMs: v.createdAtMs,
    status: v.status,
    stages: v.stages.map((s) => ({
      name: s.name,
      status: s.status,
      startedAtMs: s.startedAtMs,
      finishedAtMs: s.finishedAtMs,
      durationMs: s.durationMs,
      detail: s.detail ?? '',
    })),
    revision: v.revision ?? '',
    error: v.error ?? '',
    linked: v.linked,
    notLinkedReason: v.notLinkedReason ?? '',
  };
}

function location(l: linkerV1.SourceLocation | undefined): StoredLocation {
  const k = l?.kind;
  if (!k) throw new InvalidParamsError('location is required (dir, git or archive)');
  switch (k.$case) {
    case 'dir':
      return { kind: 'dir', path: k.dir };
    case 'git':
      return k.git.ref ? { kind: 'git', url: k.git.url, ref: k.git.ref } : { kind: 'git', url: k.git.url };
    case 'archive':
      return { kind: 'archive', filename: k.archive.filename };
    default:
      throw new InvalidParamsError('location is required (dir, git or archive)');
  }
}

/**
 * The gRPC handlers. Every call first proves it comes from the gateway (`checkCredential`); only then is
 * its `caller` (the user the gateway authenticated) trusted to scope the call to a subscription.
 */
export function linkerGrpcService(
  service: LinkerService,
  log: Logger,
  checkCredential: (metadata: grpc.Metadata) => void,
): linkerV1.LinkerServiceServer {
  const authed =
    <Req, Res>(fn: (request: Req) => Promise<Res>) =>
    (request: Req, call: { metadata: grpc.Metadata; getPeer(): string }): Promise<Res> => {
      try {
        checkCredential(call.metadata);
      } catch (err) {
        // Who knocked, never what they sent (the metadata may hold a near-miss of the credential).
        log.warn({ peer: call.getPeer() }, 'linker call refused: no valid service credential');
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
      return fn(request);
    };
  const caller = (r: { caller?: linkerV1.Caller | undefined }): Caller => callerOf(r.caller);
  return {
    createApplication: unary(
      authed(async (r: linkerV1.CreateApplicationRequest) =>
        toApplicationProto(await service.createApplication(caller(r), r.name)),
      ),
      log,
    ),
    listApplications: unary(
      authed(async (r: linkerV1.ListApplicationsRequest) => ({
        applications: (await service.listApplications(caller(r))).map(toApplicationProto),
      })),
      log,
    ),
    getApplication: unary(
      authed(async (r: linkerV1.GetApplicationRequest) =>
        toApplicationProto(await service.getApplication(caller(r), r.applicationId)),
      ),
      log,
    ),
    deleteApplication: unary(
      authed(async (r: linkerV1.DeleteApplicationRequest) => {
        await service.deleteApplication(caller(r), r.applicationId);
        return { deleted: true };
      }),
      log,
    ),
    addSource: unary(
      authed(async (r: linkerV1.AddSourceRequest) =>
        toSourceProto(await service.addSource(caller(r), r.applicationId, r.name, location(r.location))),
      ),
      log,
    ),
    ingestSource: unary(
      authed(async (r: linkerV1.IngestSourceRequest) => {
        const override = {
          ...(r.ref ? { ref: r.ref } : {}),
          ...(r.archive.length > 0
            ? { archive: { filename: r.archiveFilename, bytes: new Uint8Array(r.archive) } }
            : {}),
        };
        return toVersionProto(await service.ingest(caller(r), r.applicationId, r.sourceId, override));
      }),
      log,
    ),
    getVersion: unary(
      authed(async (r: linkerV1.GetVersionRequest) =>
        toVersionProto(await service.getVersion(caller(r), r.applicationId, r.number)),
      ),
      log,
    ),
    listVersions: unary(
      authed(async (r: linkerV1.ListVersionsRequest) => ({
        versions: (await service.listVersions(caller(r), r.applicationId, r.limit)).map(toVersionProto),
      })),
      log,
    ),
    getReport: unary(
      authed(async (r: linkerV1.GetReportRequest) => {
        const { version, report, markdown } = await service.getReport(caller(r), r.applicationId, r.version);
        return { version: toVersionProto(version), reportJson: JSON.stringify(report), markdown };
      }),
      log,
    ),
  };
}
