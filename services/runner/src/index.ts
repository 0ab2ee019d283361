// Front door of the runner package: what the embedded mode, the system tests and tooling may import.
export { startRunnerApp, type RunnerApp } from './app';
export { loadRunnerConfig, type RunnerAppConfig } from './config';
export { validateA2aUpstreamConfig, validateHttpAgentConfig, type ConfigProblem } from './runtimes';
export type { LocalRunEvents } from './domain/runner';
