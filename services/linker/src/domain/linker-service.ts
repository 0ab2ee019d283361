import { AppError, InvalidParamsError, NotFoundError, VersionConflictError } from '@a2a-inbound/errors';
import type { Clock, Collection, DocumentStore, IdGenerator } from '@a2a-inbound/ports';
import { extractSource } from './extract/index.js';
import type { SourceFacts } from './model.js';
import { type LinkReport, buildReport, renderMarkdown } from './report.js';
import type { SourceAccess, SourceLocation } from './sources.js';

/**
 * Bumped when the link stage changes meaning. A version stored without it (or with an older one)
 * completed its ingest before the link stage existed and reports that it was not linked (rule 6).
 */
export const LINK_STAGE_VERSION = 1;
export const BEFORE_LINK_STAGE = 'ingest completed before the link stage';

export type Role = 'admin' | 'developer';
export type StageName = 'fetch' | 'parse' | 'link';
export type StageStatus = 'completed' | 'failed' | 'skipped';

export interface StageDoc {
  readonly name: StageName;
  readonly status: StageStatus;
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly durationMs: number;
  readonly detail?: string;
}

export type StoredLocation =
  { kind: 'dir'; path: string } | { kind: 'git'; url: string; ref?: string } | { kind: 'archive'; filename: string };

export interface SourceDoc {
  id: string;
  name: string;
  location: StoredLocation;
  addedAtMs: number;
  lastVersion?: number;
  revision?: string;
}

export interface ApplicationDoc {
  name: string;
  createdAtMs: number;
  sources: SourceDoc[];
  latestVersion: number;
}

export interface FactsDoc {
  applicationId: string;
  sourceId: string;
  version: number;
  facts: SourceFacts;
}

export interface VersionDoc {
  applicationId: string;
  number: number;
  sourceId: string;
  sourceName: string;
  createdAtMs: number;
  status: 'working' | 'completed' | 'failed';
  stages: StageDoc[];
  revision?: string;
  error?: string;
  /** Absent on versions ingested before the link stage existed. */
  linkStageVersion?: number;
  linked?: boolean;
  notLinkedReason?: string;
  report?: LinkReport;
}

export interface Application {
  readonly id: string;
  readonly doc: ApplicationDoc;
}

export interface VersionView extends VersionDoc {
  readonly linked: boolean;
}

export interface LinkerServiceOptions {
  readonly store: DocumentStore;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly access: SourceAccess;
  /** Largest uploaded archive. */
  readonly maxArchiveBytes?: number;
  /** Directories (and file:// / local git repositories) may only be read below these roots; none = refused. */
  readonly allowedLocalRoots?: readonly string[];
}

const COLLECTIONS = {
  applications: 'linker_applications',
  facts: 'linker_facts',
  versions: 'linker_versions',
} as const;

/** Rule 7: reading and ingesting need role Admin or Developer. */
export function requireRole(role: string): Role {
  const r = role.trim().toLowerCase();
  if (r === 'admin' || r === 'developer') return r;
  throw new AppError('PERMISSION_DENIED', 'role Admin or Developer is required');
}

function validName(name: string, what: string): string {
  const n = name.trim();
  if (!n || n.length > 100 || !/^[\w.\- ]+$/.test(n))
    throw new InvalidParamsError(`${what} must be 1-100 letters, digits, '.', '-', '_' or spaces`);
  return n;
}

const versionId = (appId: string, n: number): string => `${appId}:${String(n).padStart(8, '0')}`;
const factsId = (appId: string, sourceId: string): string => `${appId}:${sourceId}`;

export class LinkerService {
  private constructor(
    private readonly o: LinkerServiceOptions,
    private readonly apps: Collection<ApplicationDoc>,
    private readonly facts: Collection<FactsDoc>,
    private readonly versions: Collection<VersionDoc>,
  ) {}

  static async open(options: LinkerServiceOptions): Promise<LinkerService> {
    const apps = await options.store.collection<ApplicationDoc>({ name: COLLECTIONS.applications });
    const facts = await options.store.collection<FactsDoc>({
      name: COLLECTIONS.facts,
      indexes: [{ fields: ['applicationId'] }],
    });
    const versions = await options.store.collection<VersionDoc>({
      name: COLLECTIONS.versions,
      indexes: [{ fields: ['applicationId'] }],
    });
    return new LinkerService(options, apps, facts, versions);
  }

  async createApplication(role: string, name: string): Promise<Application> {
    requireRole(role);
    const doc: ApplicationDoc = {
      name: validName(name, 'application name'),
      createdAtMs: this.o.clock.now(),
      sources: [],
      latestVersion: 0,
    };
    const id = this.o.ids.next();
    await this.apps.insert(id, doc);
    return { id, doc };
  }

  async listApplications(role: string): Promise<Application[]> {
    requireRole(role);
    const all = await this.apps.find({}, { sort: { field: 'createdAtMs', direction: 1 }, limit: 1000 });
    return all.map((a) => ({ id: a.id, doc: a.doc }));
  }

  async getApplication(role: string, id: string): Promise<Application> {
    requireRole(role);
    const app = await this.apps.get(id);
    if (!app) throw new NotFoundError(`application ${id}`);
    return { id, doc: app.doc };
  }

  async addSource(role: string, applicationId: string, name: string, location: StoredLocation): Promise<SourceDoc> {
    requireRole(role);
    const source: SourceDoc = {
      id: this.o.ids.next(),
      name: validName(name, 'source name'),
      location: this.checkLocation(location),
      addedAtMs: this.o.clock.now(),
    };
    await this.update(applicationId, (doc) => {
      if (doc.sources.some((s) => s.name === source.name))
        throw new AppError('CONFLICT', `source ${source.name} already exists`);
      if (doc.sources.length >= 100)
        throw new AppError('FAILED_PRECONDITION', 'an application has at most 100 sources');
      doc.sources.push(source);
    });
    return source;
  }

  /** Parsing is CPU- and memory-bound: at most this many ingests run at once, the others queue. */
  readonly #slots = new Semaphore(2);

  /**
   * Ingests one source: a new application version that goes through fetch, parse and link, each
   * recorded with its status and timing. A failed stage fails the version (returned, not thrown).
   */
  async ingest(
    role: string,
    applicationId: string,
    sourceId: string,
    override: { ref?: string; archive?: { filename: string; bytes: Uint8Array } } = {},
  ): Promise<VersionView> {
    requireRole(role);
    const app = await this.getApplication(role, applicationId);
    const source = app.doc.sources.find((s) => s.id === sourceId || s.name === sourceId);
    if (!source) throw new NotFoundError(`source ${sourceId}`);
    const location = this.runtimeLocation(source.location, override);
    let number = 0;
    await this.update(applicationId, (doc) => {
      doc.latestVersion += 1;
      number = doc.latestVersion;
    });
    const version: VersionDoc = {
      applicationId,
      number,
      sourceId: source.id,
      sourceName: source.name,
      createdAtMs: this.o.clock.now(),
      status: 'working',
      stages: [],
      linkStageVersion: LINK_STAGE_VERSION,
    };
    const id = versionId(applicationId, number);
    await this.versions.insert(id, version);

    const stage = async <T>(name: StageName, fn: () => Promise<T>): Promise<T> => {
      const startedAtMs = this.o.clock.now();
      try {
        const out = await fn();
        const finishedAtMs = this.o.clock.now();
        version.stages.push({
          name,
          status: 'completed',
          startedAtMs,
          finishedAtMs,
          durationMs: finishedAtMs - startedAtMs,
        });
        return out;
      } catch (err) {
        const finishedAtMs = this.o.clock.now();
        const detail = err instanceof Error ? err.message : String(err);
        version.stages.push({
          name,
          status: 'failed',
          startedAtMs,
          finishedAtMs,
          durationMs: finishedAtMs - startedAtMs,
          detail,
        });
        throw err;
      }
    };

    const release = await this.#slots.acquire();
    try {
      const fetched = await stage('fetch', () => this.o.access.fetch(location));
      version.revision = fetched.revision;
      try {
        const facts = await stage('parse', async () =>
          extractSource(source.name, await this.o.access.list(fetched.root, { includeTests: false })),
        );
        const existing = await this.facts.get(factsId(applicationId, source.id));
        const factsDoc: FactsDoc = { applicationId, sourceId: source.id, version: number, facts };
        if (existing) await this.facts.replace(existing.id, existing.version, factsDoc);
        else await this.facts.insert(factsId(applicationId, source.id), factsDoc);
      } finally {
        await fetched.dispose();
      }
      await this.linkStage(app.id, version);
      version.status = 'completed';
      await this.update(applicationId, (doc) => {
        const s = doc.sources.find((x) => x.id === source.id);
        if (s) {
          s.lastVersion = number;
          if (version.revision !== undefined) s.revision = version.revision;
        }
      });
    } catch (err) {
      version.status = 'failed';
      version.error = err instanceof Error ? err.message : String(err);
      version.linked = false;
      version.notLinkedReason = 'the ingest failed';
      delete version.report;
    } finally {
      release();
    }
    const stored = await this.versions.get(id);
    await this.versions.replace(id, stored!.version, version);
    return view(version);
  }

  private async linkStage(applicationId: string, version: VersionDoc): Promise<void> {
    const startedAtMs = this.o.clock.now();
    const app = await this.apps.get(applicationId);
    const all = await this.facts.find({ applicationId }, { limit: 1000 });
    const current = all.filter((f) => app?.doc.sources.some((s) => s.id === f.doc.sourceId)).map((f) => f.doc.facts);
    const report = buildReport(current, { application: app?.doc.name ?? applicationId });
    const finishedAtMs = this.o.clock.now();
    version.report = report;
    version.linked = report.linked;
    if (report.notLinkedReason !== undefined) version.notLinkedReason = report.notLinkedReason;
    version.stages.push({
      name: 'link',
      status: report.linked ? 'completed' : 'skipped',
      startedAtMs,
      finishedAtMs,
      durationMs: finishedAtMs - startedAtMs,
      ...(report.linked ? {} : { detail: report.notLinkedReason ?? '' }),
    });
  }

  async getVersion(role: string, applicationId: string, number?: number): Promise<VersionView> {
    requireRole(role);
    const app = await this.getApplication(role, applicationId);
    const n = number && number > 0 ? number : app.doc.latestVersion;
    if (n === 0) throw new AppError('FAILED_PRECONDITION', 'the application has no ingested source yet');
    const v = await this.versions.get(versionId(applicationId, n));
    if (!v) throw new NotFoundError(`version ${n}`);
    return view(v.doc);
  }

  /** Versions of an application, newest first, without their reports. */
  async listVersions(role: string, applicationId: string, limit = 100): Promise<VersionView[]> {
    requireRole(role);
    await this.getApplication(role, applicationId);
    const n = Math.min(Math.max(1, limit || 100), 100);
    const found = await this.versions.find({ applicationId }, { sort: { field: 'number', direction: -1 }, limit: n });
    return found.map((v) => {
      const { report: _report, ...rest } = view(v.doc);
      return rest;
    });
  }

  /** The report of a version (latest by default), as JSON and Markdown. */
  async getReport(
    role: string,
    applicationId: string,
    number?: number,
  ): Promise<{ version: VersionView; report: LinkReport; markdown: string }> {
    const version = await this.getVersion(role, applicationId, number);
    let report = version.report;
    if (!version.linked || !report) {
      const all = await this.facts.find({ applicationId }, { limit: 1000 });
      const app = await this.getApplication(role, applicationId);
      report = buildReport(
        all.map((f) => f.doc.facts),
        { application: app.doc.name, ...(version.notLinkedReason ? { notLinkedReason: version.notLinkedReason } : {}) },
      );
    }
    return { version, report, markdown: renderMarkdown(report) };
  }

  private checkLocation(location: StoredLocation): StoredLocation {
    switch (location.kind) {
      case 'dir':
        if (!location.path) throw new InvalidParamsError('dir is required');
        this.checkLocal(location.path);
        return { kind: 'dir', path: location.path };
      case 'git': {
        const url = location.url.trim();
        if (!url || url.startsWith('-') || url.length > 2048) throw new InvalidParamsError('git url is invalid');
        if (location.ref !== undefined && (location.ref.startsWith('-') || location.ref.length > 255))
          throw new InvalidParamsError('git ref is invalid');
        if (url.startsWith('file://') || !/^[a-z]+:\/\/|^[\w.-]+@[\w.-]+:/.test(url))
          this.checkLocal(url.replace(/^file:\/\//, ''));
        return location.ref ? { kind: 'git', url, ref: location.ref } : { kind: 'git', url };
      }
      case 'archive':
        return { kind: 'archive', filename: location.filename || 'upload' };
    }
  }

  private checkLocal(path: string): void {
    const roots = this.o.allowedLocalRoots ?? [];
    const norm = (p: string): string => p.replace(/\/+$/, '');
    const ok =
      !path.split('/').includes('..') && roots.some((r) => norm(path) === norm(r) || path.startsWith(norm(r) + '/'));
    if (!ok) throw new AppError('PERMISSION_DENIED', 'local paths outside the allowed roots cannot be ingested');
  }

  private runtimeLocation(
    stored: StoredLocation,
    override: { ref?: string; archive?: { filename: string; bytes: Uint8Array } },
  ): SourceLocation {
    if (stored.kind === 'archive') {
      if (!override.archive || override.archive.bytes.length === 0)
        throw new InvalidParamsError('an archive source needs the archive bytes on each ingest');
      if (override.archive.bytes.length > (this.o.maxArchiveBytes ?? 50 * 1024 * 1024))
        throw new AppError('PAYLOAD_TOO_LARGE', 'archive is too large');
      return { kind: 'archive', filename: override.archive.filename || stored.filename, bytes: override.archive.bytes };
    }
    if (override.archive) throw new InvalidParamsError('archive bytes are only accepted by archive sources');
    if (stored.kind === 'git') {
      const ref = override.ref || stored.ref;
      if (ref?.startsWith('-')) throw new InvalidParamsError('git ref is invalid');
      return ref ? { kind: 'git', url: stored.url, ref } : { kind: 'git', url: stored.url };
    }
    return stored;
  }

  private async update(id: string, mutate: (doc: ApplicationDoc) => void): Promise<ApplicationDoc> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await this.apps.get(id);
      if (!current) throw new NotFoundError(`application ${id}`);
      const doc = structuredClone(current.doc);
      mutate(doc);
      try {
        await this.apps.replace(id, current.version, doc);
        return doc;
      } catch (err) {
        if (err instanceof VersionConflictError || (err instanceof AppError && err.code === 'VERSION_CONFLICT'))
          continue;
        throw err;
      }
    }
    throw new AppError('CONFLICT', 'application is being changed concurrently');
  }
}

/** Rule 6 on read: versions without the link stage say they were not linked. */
function view(v: VersionDoc): VersionView {
  if (v.linkStageVersion === undefined || v.linkStageVersion < LINK_STAGE_VERSION) {
    const { report: _report, ...rest } = v;
    return { ...rest, linked: false, notLinkedReason: BEFORE_LINK_STAGE };
  }
  return { ...v, linked: v.linked ?? false };
}

/** A counting semaphore: `acquire` resolves a release function once a slot is free (FIFO). */
export class Semaphore {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(slots: number) {
    this.#free = slots;
  }
  async acquire(): Promise<() => void> {
    if (this.#free > 0) this.#free -= 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free += 1;
    };
  }
}
