// Front door of the linker package: what the embedded mode, the system tests and tooling may import.
export { diskSourceAccess, startLinkerApp, type LinkerApp, type LinkerAppConfig, type LinkerDeps } from './app';
export { ConfigError, loadLinkerConfig, type LinkerConfig } from './config';
export { LinkerService, LINK_STAGE_VERSION, BEFORE_LINK_STAGE, requireRole } from './domain/linker-service';
export {
  buildReport,
  renderMarkdown,
  EMPTY_STATE,
  KAFKA_NOTE,
  type LinkReport,
  type Statistics,
} from './domain/report';
export { extractSource, type SourceFile } from './domain/extract/index';
export { languageOf, parse } from './domain/parsers';
export { fetchSource, listSourceFiles } from './ingest/index';
export { runCli } from './cli-run';
export { ParsePool, defaultParseWorkers } from './parse-pool';
export { linkerV1 } from './transport/proto';
