import { registerRuntimeValidator, type DefinitionIssue } from './registry';

const noConfig = (config: Readonly<Record<string, unknown>>): DefinitionIssue[] =>
  Object.keys(config).map((k) => ({ path: k, reason: 'unknown field (this runtime takes no configuration)' }));

/** The built-in demo runtimes (runner's demo-agents.ts): deterministic, streaming, any input. */
export function registerDemoRuntimes(): void {
  registerRuntimeValidator('demo:echo', noConfig);
  registerRuntimeValidator('demo:approval', noConfig);
  registerRuntimeValidator('demo:failing', noConfig);
  registerRuntimeValidator('demo:task-graph', noConfig);
  registerRuntimeValidator('demo:tck', (config) =>
    Object.entries(config).flatMap(([k, v]): DefinitionIssue[] => {
      if (k !== 'longRunMs') return [{ path: k, reason: 'unknown field (known: longRunMs)' }];
      return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 600_000
        ? []
        : [{ path: k, reason: 'must be an integer from 0 to 600000' }];
    }),
  );
  registerRuntimeValidator('demo:slow', (config) => {
    const issues: DefinitionIssue[] = [];
    for (const [k, v] of Object.entries(config)) {
      if (k === 'workMs') {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 600_000)
          issues.push({ path: k, reason: 'must be an integer from 0 to 600000' });
      } else if (k === 'earlyOutput') {
        if (typeof v !== 'boolean') issues.push({ path: k, reason: 'must be true or false' });
      } else issues.push({ path: k, reason: 'unknown field (known: workMs, earlyOutput)' });
    }
    return issues;
  });
}
