import type { SourceFile } from './extract/index';

/** Where a source's files come from. Archive bytes arrive with each ingest and are never stored. */
export type SourceLocation =
  | { readonly kind: 'dir'; readonly path: string }
  | { readonly kind: 'git'; readonly url: string; readonly ref?: string }
  | { readonly kind: 'archive'; readonly filename: string; readonly bytes: Uint8Array };

/** A fetched source: a directory to read, released with `dispose`. */
export interface FetchedSource {
  readonly root: string;
  /** Commit for git, archive format, or the absolute directory. */
  readonly revision: string;
  dispose(): Promise<void>;
}

/** The fetch stage and the file listing, injected so the domain never touches git, tar or the disk itself. */
export interface SourceAccess {
  fetch(location: SourceLocation): Promise<FetchedSource>;
  list(root: string, options: { includeTests: boolean }): Promise<SourceFile[]>;
}
