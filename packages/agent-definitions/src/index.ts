import { registerDemoRuntimes } from './demo';
import { modelRuntimeDefinition } from './model';
import { registerRuntime } from './registry';

export * from './registry';
export * from './model';
export * from './egress-policy';
export * from './secret-box';

// The runtimes of this system. Another runtime's validator is one line here (or at its module's start).
registerDemoRuntimes();
registerRuntime(modelRuntimeDefinition);
export * from './agent-config';
