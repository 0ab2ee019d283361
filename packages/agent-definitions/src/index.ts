import { registerDemoRuntimes } from './demo';
import { registerGraphRuntime } from './graph';
import { modelRuntimeDefinition } from './model';
import { registerRuntime } from './registry';
import { registerUpstreamRuntimes } from './upstream';
export {
  agentCardUrl,
  credentialOrigins,
  MAX_ALLOWED_ORIGINS,
  originListProblem,
  untrustedCardEndpoints,
  untrustedEndpointReason,
} from './upstream';

export * from './registry';
export * from './model';
export * from './graph';
export * from './egress-policy';
export * from './url-template';
export * from './media-types';
export * from './secret-box';

// The runtimes of this system. Another runtime's validator is one line here (or at its module's start).
registerDemoRuntimes();
registerRuntime(modelRuntimeDefinition);
registerUpstreamRuntimes();
registerGraphRuntime();
export * from './agent-config';
