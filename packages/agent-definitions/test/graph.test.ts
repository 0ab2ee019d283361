import { describe, expect, it } from 'vitest';
import { cardTraits, describeIssues, parseGraphConfig, validateDefinition, validateGraphConfig } from '../src';

const checks = (secrets: string[] = []) => ({
  secretExists: async (n: string) => Promise.resolve(secrets.includes(n)),
  checkEgressUrl: async (u: string) =>
    Promise.resolve(u.includes('10.0.0.') ? 'must point to a public address' : undefined),
});

const graph = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  steps: [
    { id: 'fetch', kind: 'http', url: 'https://api.example.com/items/{sku}', params: '{ "sku": input.sku }' },
    { id: 'shape', kind: 'transform', expression: '{ "price": steps.fetch.body.price, "sku": input.sku }' },
    { id: 'check', kind: 'branch', condition: 'steps.shape.price > 100', then: ['ask'], else: ['done'] },
    { id: 'ask', kind: 'approval', prompt: '"Buy " & input.sku & " for " & steps.shape.price & "?"' },
    { id: 'done', kind: 'transform', expression: '"ok " & steps.shape.sku' },
  ],
  edges: [
    { from: 'fetch', to: 'shape' },
    { from: 'shape', to: 'check' },
  ],
  ...extra,
});

describe('graph runtime definition', () => {
  it('accepts a graph whose references are all bound, and orders it topologically', () => {
    expect(validateGraphConfig(graph())).toEqual([]);
    expect(parseGraphConfig(graph()).order).toEqual(['fetch', 'shape', 'check', 'ask', 'done']);
  });

  it('refuses a cycle, naming it', () => {
    const issues = validateGraphConfig(
      graph({ edges: [...(graph().edges as object[]), { from: 'done', to: 'fetch' }] }),
    );
    expect(issues).toEqual([
      { path: 'edges', reason: expect.stringContaining('the graph has a cycle: fetch → shape → check → done → fetch') },
    ]);
  });

  it('refuses an input bound to a step that does not run before it', () => {
    const g = graph();
    (g.edges as object[]).splice(0, 1); // shape no longer follows fetch
    expect(validateGraphConfig(g)).toEqual([
      {
        path: 'steps[1].expression',
        reason: 'steps.fetch is not bound here: "fetch" does not run before "shape" (add an edge)',
      },
    ]);
  });

  it('refuses a reference to nothing (neither input nor steps.<id>) and to an unknown step', () => {
    const g = graph({ output: 'steps.nope & total' });
    const issues = validateGraphConfig(g);
    expect(issues).toContainEqual({ path: 'output', reason: 'steps.nope names no step' });
    expect(issues).toContainEqual({
      path: 'output',
      reason: '"total" is bound to nothing (use input or steps.<id>)',
    });
  });

  it('allows relative names inside predicates and lambdas of a bound path', () => {
    const g = {
      steps: [
        { id: 'a', kind: 'transform', expression: '$map(input.items[price > 2], function($i) { $i.name })' },
        { id: 'b', kind: 'transform', expression: 'steps.a[$ != "x"]' },
      ],
      edges: [{ from: 'a', to: 'b' }],
    };
    expect(validateGraphConfig(g)).toEqual([]);
  });

  it('refuses an expression that does not compile, with the JSONata reason', () => {
    const g = graph();
    (g.steps as Record<string, unknown>[])[1]!.expression = '{ "price": ';
    const issues = validateGraphConfig(g);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.path).toBe('steps[1].expression');
    expect(issues[0]!.reason).toMatch(/^is not a valid JSONata expression: /);
  });

  it('refuses an unknown step kind, unknown fields, bad ids, duplicate ids and dangling edges', () => {
    const issues = validateGraphConfig({
      steps: [
        { id: 'a', kind: 'shell', command: 'rm -rf /' },
        { id: 'a', kind: 'transform', expression: 'input', extra: 1 },
        { id: '1x', kind: 'transform', expression: 'input' },
      ],
      edges: [{ from: 'a', to: 'zzz' }],
      retries: 3,
    });
    const text = describeIssues(issues);
    expect(text).toContain('retries: unknown field (known: steps, edges, output)');
    expect(text).toContain(
      'steps[0].kind: unknown step kind "shell" (one of: model, http, transform, branch, approval)',
    );
    expect(text).toContain('steps[1].id: duplicate step id "a"');
    expect(text).toContain('steps[1].extra: unknown field of a transform step');
    expect(text).toContain('steps[2].id: must match');
    expect(text).toContain('edges[0]: names no step: "zzz"');
  });

  it('is registered: validateDefinition checks secrets and destinations of the steps, the card does not stream', async () => {
    const g = {
      steps: [
        {
          id: 'llm',
          kind: 'model',
          baseUrl: 'https://api.example.com/v1',
          model: 'm',
          apiKeySecret: 'openai',
          prompt: 'input',
        },
        { id: 'call', kind: 'http', method: 'POST', url: 'http://10.0.0.5/hook', headerSecrets: { 'X-Key': 'hook' } },
      ],
      edges: [{ from: 'llm', to: 'call' }],
    };
    expect(await validateDefinition('graph', g, checks(['openai']))).toEqual([
      {
        path: 'runtimeConfig.steps[1].headerSecrets.X-Key',
        reason: 'secret "hook" does not exist in this subscription',
      },
      { path: 'runtimeConfig.steps[1].url', reason: 'must point to a public address' },
    ]);
    expect(cardTraits('graph', g).streaming).toBe(false);
    expect((await validateDefinition('graph', {}, checks()))[0]).toEqual({
      path: 'runtimeConfig.steps',
      reason: 'is required (a non-empty array of steps)',
    });
  });
});
