import type { SourceFile } from './extract/index';

/** Where a source's files come from. Archive bytes arrive with each ingest and are never stored. */
export type SourceLocation =
  | { readonly kind: 'dir'; readonly path: string }
  | { readonly kind: 'git'; readonly url: string; readonly ref?: string }
  | { readonly kind: 'archive'; readonly filename: string; readonly bytes: Uint8Array };

/** How much one source may bring: checked while it is unpacked or checked out, not after. */
export interface IngestLimits {
  /** Bytes an archive may unpack to (a git checkout may hold) in all; more refuses the fetch. */
  readonly maxUnpackedBytes: number;
  /** Files an archive or a checkout may hold; more refuses the fetch. */
  readonly maxFiles: number;
  /** A larger file is skipped (listed with the stage), the others are read. */
  readonly maxFileBytes: number;
}

export const DEFAULT_INGEST_LIMITS: IngestLimits = {
  maxUnpackedBytes: 1024 * 1024 * 1024,
  maxFiles: 50_000,
  maxFileBytes: 1024 * 1024,
};

/** A file left out of an ingest, and why. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

/** A fetched source: a directory to read, released with `dispose`. */
export interface FetchedSource {
  readonly root: string;
  /** Commit for git, archive format, or the absolute directory. */
  readonly revision: string;
  /** Files the fetch left out (an archive's oversized files, links, unsafe paths). */
  readonly skipped?: readonly SkippedFile[];
  dispose(): Promise<void>;
}

/** The fetch stage and the file listing, injected so the domain never touches git, tar or the disk itself. */
export interface SourceAccess {
  fetch(location: SourceLocation): Promise<FetchedSource>;
  /** The files to parse; a file larger than the limit is not listed but reported through `onSkip`. */
  list(root: string, options: { includeTests: boolean; onSkip?: (file: SkippedFile) => void }): Promise<SourceFile[]>;
}
