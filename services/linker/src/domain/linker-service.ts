import { AppError, InvalidParamsError, NotFoundError } from '@a2a-inbound/errors';
import type { Clock, Collection, DocumentStore, IdGenerator } from '@a2a-inbound/ports';
import { updateWithRetry } from '@a2a-inbound/ports';
import { Semaphore } from '@a2a-inbound/runtime';
import { type ExtractOptions, extractSource } from './extract/index';
import { type EgressPolicy, checkRemoteGitUrl, isLocalGitUrl, publicEgress, redactSecrets } from './git-url';
import type { SourceFacts } from './model';
import { type LinkReport, buildReport, renderMarkdown } from './report';
import type { SkippedFile, SourceAccess, SourceLocation } from './sources';

/** A stage's note of the files it left out: how many, and the first of them with the reason. */
export function skippedDetail(skipped: readonly SkippedFile[]): string | undefined {
  if (skipped.length === 0) return undefined;
  const shown = skipped.slice(0, 20).map((f) => `${f.path} (${f.reason})`);
  const more = skipped.length > shown.length ? `, and ${skipped.length - shown.length} more` : '';
  return `skipped ${skipped.length} file${skipped.length === 1 ? '' : 's'}: ${shown.join(', ')}${more}`;
}

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
  /** The owning subscription (tenant). Absent on documents stored before ownership existed: nobody sees those. */
  subscriptionId?: string;
  name: string;
  createdAtMs: number;
  sources: SourceDoc[];
  latestVersion: number;
}

export interface FactsDoc {
  subscriptionId?: string;
  applicationId: string;
  sourceId: string;
  version: number;
  facts: SourceFacts;
}

export interface VersionDoc {
  subscriptionId?: string;
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
  /** Larger files are not parsed (LINKER_MAX_FILE_BYTES; the access's listing skips them by size first). */
  readonly maxFileBytes?: number;
  /** A file whose parse takes longer is skipped and listed in the parse stage and the report (LINKER_PARSE_BUDGET_MS). */
  readonly parseBudgetMs?: number;
  /** Extracts code files elsewhere (the parse workers), `window` of them ahead of the merge; default in process. */
  readonly parser?: { readonly run: NonNullable<ExtractOptions['runCode']>; readonly window: number };
  /** Directories (and file:// / local git repositories) may only be read below these roots; none = refused. */
  readonly allowedLocalRoots?: readonly string[];
  /** Which addresses remote git URLs may reach (checked when a source is added; default: public only). */
  readonly egress?: EgressPolicy;
}

/**
 * Who calls: the user the gateway authenticated (its subscription and role). Trusted only because the
 * transport authenticated the gateway itself (the internal service credential, ADR 0012).
 */
export interface Caller {
  readonly subscriptionId: string;
  readonly role: string;
  readonly userId?: string;
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

/** The caller's subscription, once its role passed rule 7. Without a subscription there is no caller. */
export function authorize(caller: Caller | undefined): string {
  const subscriptionId = caller?.subscriptionId.trim() ?? '';
  if (!caller || !subscriptionId)
    throw new AppError('UNAUTHENTICATED', 'the caller (user and subscription) is required');
  requireRole(caller.role);
  return subscriptionId;
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
    const apps = await options.store.collection<ApplicationDoc>({
      name: COLLECTIONS.applications,
      indexes: [{ fields: ['subscriptionId'] }],
    });
    const facts = await options.store.collection<FactsDoc>({
      name: COLLECTIONS.facts,
      indexes: [{ fields: ['applicationId'] }, { fields: ['subscriptionId'] }],
    });
    const versions = await options.store.collection<VersionDoc>({
      name: COLLECTIONS.versions,
      indexes: [{ fields: ['applicationId'] }, { fields: ['subscriptionId'] }],
    });
    return new LinkerService(options, apps, facts, versions);
  }

  async createApplication(caller: Caller, name: string): Promise<Application> {
    const subscriptionId = authorize(caller);
    const doc: ApplicationDoc = {
      subscriptionId,
      name: validName(name, 'application name'),
      createdAtMs: this.o.clock.now(),
      sources: [],
      latestVersion: 0,
    };
    const id = this.o.ids.next();
    await this.apps.insert(id, doc);
    return { id, doc };
  }

  /** The caller's applications only. */
  async listApplications(caller: Caller): Promise<Application[]> {
    const subscriptionId = authorize(caller);
    const all = await this.apps.find({ subscriptionId }, { sort: { field: 'createdAtMs', direction: 1 }, limit: 1000 });
    return all.map((a) => ({ id: a.id, doc: a.doc }));
  }

  /** Another subscription's application (or one stored without an owner) is NOT_FOUND, like a missing one. */
  async getApplication(caller: Caller, id: string): Promise<Application> {
    const subscriptionId = authorize(caller);
    const app = await this.apps.get(id);
    if (!app || app.doc.subscriptionId !== subscriptionId) throw new NotFoundError(`application ${id}`);
    return { id, doc: app.doc };
  }

  /** Deletes the caller's application, then its versions and facts. */
  async deleteApplication(caller: Caller, id: string): Promise<void> {
    const subscriptionId = authorize(caller);
    const app = await this.apps.get(id);
    if (!app || app.doc.subscriptionId !== subscriptionId) throw new NotFoundError(`application ${id}`);
    await this.apps.delete(id);
    // The application is gone first: what follows is unreachable even if it is interrupted.
    for (const coll of [this.versions, this.facts] as Collection<{ applicationId: string }>[]) {
      for (;;) {
        const batch = await coll.find({ applicationId: id, subscriptionId }, { limit: 500 });
        if (batch.length === 0) break;
        for (const d of batch) await coll.delete(d.id);
      }
    }
  }

  async addSource(caller: Caller, applicationId: string, name: string, location: StoredLocation): Promise<SourceDoc> {
    const subscriptionId = authorize(caller);
    await this.getApplication(caller, applicationId);
    const source: SourceDoc = {
      id: this.o.ids.next(),
      name: validName(name, 'source name'),
      location: await this.checkLocation(location),
      addedAtMs: this.o.clock.now(),
    };
    await this.update(applicationId, subscriptionId, (doc) => {
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
    caller: Caller,
    applicationId: string,
    sourceId: string,
    override: { ref?: string; archive?: { filename: string; bytes: Uint8Array } } = {},
  ): Promise<VersionView> {
    const subscriptionId = authorize(caller);
    const app = await this.getApplication(caller, applicationId);
    const source = app.doc.sources.find((s) => s.id === sourceId || s.name === sourceId);
    if (!source) throw new NotFoundError(`source ${sourceId}`);
    const location = this.runtimeLocation(source.location, override);
    let number = 0;
    await this.update(applicationId, subscriptionId, (doc) => {
      doc.latestVersion += 1;
      number = doc.latestVersion;
    });
    const version: VersionDoc = {
      subscriptionId,
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

    const stage = async <T>(
      name: StageName,
      fn: () => Promise<T>,
      detailOf: (out: T) => string | undefined = () => undefined,
    ): Promise<T> => {
      const startedAtMs = this.o.clock.now();
      try {
        const out = await fn();
        const finishedAtMs = this.o.clock.now();
        const detail = detailOf(out);
        version.stages.push({
          name,
          status: 'completed',
          startedAtMs,
          finishedAtMs,
          durationMs: finishedAtMs - startedAtMs,
          ...(detail ? { detail } : {}),
        });
        return out;
      } catch (err) {
        const finishedAtMs = this.o.clock.now();
        // Git quotes the URL in its errors: a URL's credentials never reach the stored version.
        const detail = redactSecrets(err instanceof Error ? err.message : String(err));
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
      const fetched = await stage(
        'fetch',
        () => this.o.access.fetch(location),
        (f) => skippedDetail(f.skipped ?? []),
      );
      version.revision = fetched.revision;
      try {
        const skipped: SkippedFile[] = [];
        const facts = await stage(
          'parse',
          async () =>
            extractSource(
              source.name,
              await this.o.access.list(fetched.root, { includeTests: false, onSkip: (f) => skipped.push(f) }),
              {
                ...(this.o.maxFileBytes !== undefined ? { maxFileBytes: this.o.maxFileBytes } : {}),
                ...(this.o.parseBudgetMs !== undefined ? { parseBudgetMs: this.o.parseBudgetMs } : {}),
                ...(this.o.parser ? { runCode: this.o.parser.run, window: this.o.parser.window } : {}),
              },
            ),
          (f) => skippedDetail([...skipped, ...(f.skippedFiles ?? [])]),
        );
        const existing = await this.facts.get(factsId(applicationId, source.id));
        const factsDoc: FactsDoc = { subscriptionId, applicationId, sourceId: source.id, version: number, facts };
        if (existing) await this.facts.replace(existing.id, existing.version, factsDoc);
        else await this.facts.insert(factsId(applicationId, source.id), factsDoc);
      } finally {
        await fetched.dispose();
      }
      await this.linkStage(app.id, subscriptionId, version);
      version.status = 'completed';
      await this.update(applicationId, subscriptionId, (doc) => {
        const s = doc.sources.find((x) => x.id === source.id);
        if (s) {
          s.lastVersion = number;
          if (version.revision !== undefined) s.revision = version.revision;
        }
      });
    } catch (err) {
      version.status = 'failed';
      version.error = redactSecrets(err instanceof Error ? err.message : String(err));
      version.linked = false;
      version.notLinkedReason = 'the ingest failed';
      delete version.report;
    } finally {
      release();
    }
    const stored = await this.versions.get(id);
    // Deleted while it ran: the application and its versions are gone, and so is this answer.
    if (!stored) throw new NotFoundError(`application ${applicationId}`);
    await this.versions.replace(id, stored.version, version);
    return view(version);
  }

  private async linkStage(applicationId: string, subscriptionId: string, version: VersionDoc): Promise<void> {
    const startedAtMs = this.o.clock.now();
    const app = await this.apps.get(applicationId);
    const all = await this.facts.find({ applicationId, subscriptionId }, { limit: 1000 });
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

  async getVersion(caller: Caller, applicationId: string, number?: number): Promise<VersionView> {
    const subscriptionId = authorize(caller);
    const app = await this.getApplication(caller, applicationId);
    const n = number && number > 0 ? number : app.doc.latestVersion;
    if (n === 0) throw new AppError('FAILED_PRECONDITION', 'the application has no ingested source yet');
    const v = await this.versions.get(versionId(applicationId, n));
    if (!v || v.doc.subscriptionId !== subscriptionId) throw new NotFoundError(`version ${n}`);
    return view(v.doc);
  }

  /** Versions of an application, newest first, without their reports. */
  async listVersions(caller: Caller, applicationId: string, limit = 100): Promise<VersionView[]> {
    const subscriptionId = authorize(caller);
    await this.getApplication(caller, applicationId);
    const n = Math.min(Math.max(1, limit || 100), 100);
    const found = await this.versions.find(
      { applicationId, subscriptionId },
      { sort: { field: 'number', direction: -1 }, limit: n },
    );
    return found.map((v) => {
      const { report: _report, ...rest } = view(v.doc);
      return rest;
    });
  }

  /** The report of a version (latest by default), as JSON and Markdown. */
  async getReport(
    caller: Caller,
    applicationId: string,
    number?: number,
  ): Promise<{ version: VersionView; report: LinkReport; markdown: string }> {
    const version = await this.getVersion(caller, applicationId, number);
    let report = version.report;
    if (!version.linked || !report) {
      const all = await this.facts.find({ applicationId, subscriptionId: authorize(caller) }, { limit: 1000 });
      const app = await this.getApplication(caller, applicationId);
      report = buildReport(
        all.map((f) => f.doc.facts),
        { application: app.doc.name, ...(version.notLinkedReason ? { notLinkedReason: version.notLinkedReason } : {}) },
      );
    }
    return { version, report, markdown: renderMarkdown(report) };
  }

  private async checkLocation(location: StoredLocation): Promise<StoredLocation> {
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
        // Local repositories only below the allowed roots (none in production); anything else is a
        // remote http(s) URL that must reach a public address (the SSRF guard; again before each fetch).
        if (isLocalGitUrl(url)) this.checkLocal(url.replace(/^file:\/\//, ''));
        else await checkRemoteGitUrl(url, this.o.egress ?? publicEgress);
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

  private async update(
    id: string,
    subscriptionId: string,
    mutate: (doc: ApplicationDoc) => void,
  ): Promise<ApplicationDoc> {
    const missing = (): Error => new NotFoundError(`application ${id}`);
    const saved = await updateWithRetry(
      this.apps,
      id,
      (current) => {
        // Another tenant's application is indistinguishable from a missing one.
        if (current.doc.subscriptionId !== subscriptionId) throw missing();
        const doc = structuredClone(current.doc);
        mutate(doc);
        return doc;
      },
      { attempts: 10, exhausted: () => new AppError('CONFLICT', 'application is being changed concurrently') },
    );
    if (!saved) throw missing();
    return saved.doc;
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
