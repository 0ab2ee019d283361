// Public surface of the linker package, for the embedded (single-process) mode and tooling.
export { createLinkerApp, diskSourceAccess, type LinkerApp, type LinkerAppDeps } from './app.js';
export { loadConfig, ConfigError, type LinkerConfig } from './config.js';
export { LinkerService, LINK_STAGE_VERSION, BEFORE_LINK_STAGE, requireRole } from './domain/linker-service.js';
export {
  buildReport,
  renderMarkdown,
  EMPTY_STATE,
  KAFKA_NOTE,
  type LinkReport,
  type Statistics,
} from './domain/report.js';
export { extractSource, type SourceFile } from './domain/extract/index.js';
export { runCli } from './cli-run.js';
export { linkerV1 } from './transport/proto.js';
