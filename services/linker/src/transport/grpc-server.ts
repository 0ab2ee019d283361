import { InvalidParamsError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { unary } from '@a2a-inbound/runtime';
import type { Application, LinkerService, SourceDoc, StoredLocation, VersionView } from '../domain/linker-service.js';
import { linkerV1 } from './proto.js';

export function toSourceProto(s: SourceDoc): linkerV1.Source {
  const l = s.location;
  const kind: linkerV1.SourceLocation['kind'] =
    l.kind === 'dir'
      ? { $case: 'dir', dir: l.path }
      : l.kind === 'git'
        ? { $case: 'git', git: { url: l.url, ref: l.ref ?? '' } }
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

export function linkerGrpcService(service: LinkerService, log: Logger): linkerV1.LinkerServiceServer {
  return {
    createApplication: unary(
      async (r: linkerV1.CreateApplicationRequest) =>
        toApplicationProto(await service.createApplication(r.role, r.name)),
      log,
    ),
    listApplications: unary(
      async (r: linkerV1.ListApplicationsRequest) => ({
        applications: (await service.listApplications(r.role)).map(toApplicationProto),
      }),
      log,
    ),
    getApplication: unary(
      async (r: linkerV1.GetApplicationRequest) =>
        toApplicationProto(await service.getApplication(r.role, r.applicationId)),
      log,
    ),
    addSource: unary(
      async (r: linkerV1.AddSourceRequest) =>
        toSourceProto(await service.addSource(r.role, r.applicationId, r.name, location(r.location))),
      log,
    ),
    ingestSource: unary(async (r: linkerV1.IngestSourceRequest) => {
      const override = {
        ...(r.ref ? { ref: r.ref } : {}),
        ...(r.archive.length > 0 ? { archive: { filename: r.archiveFilename, bytes: new Uint8Array(r.archive) } } : {}),
      };
      return toVersionProto(await service.ingest(r.role, r.applicationId, r.sourceId, override));
    }, log),
    getVersion: unary(
      async (r: linkerV1.GetVersionRequest) =>
        toVersionProto(await service.getVersion(r.role, r.applicationId, r.number)),
      log,
    ),
    listVersions: unary(
      async (r: linkerV1.ListVersionsRequest) => ({
        versions: (await service.listVersions(r.role, r.applicationId, r.limit)).map(toVersionProto),
      }),
      log,
    ),
    getReport: unary(async (r: linkerV1.GetReportRequest) => {
      const { version, report, markdown } = await service.getReport(r.role, r.applicationId, r.version);
      return { version: toVersionProto(version), reportJson: JSON.stringify(report), markdown };
    }, log),
  };
}
