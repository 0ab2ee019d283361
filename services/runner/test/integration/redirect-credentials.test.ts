import { createEgressAgent, EgressPolicy, type EgressAgent } from '@a2a-inbound/runtime';
import { startRedirectTrap, type RedirectTrap } from '@a2a-inbound/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { egressRuntimes } from '../../src/runtimes';
import { ScriptedProvider } from '../../../../test/agents/scripted-provider';
import { fakeRun } from '../support/fake-run';

/**
 * Issue 19, defect 2: every runtime's credential (model `apiKeySecret`, http and a2a-upstream `tokenSecret`,
 * MCP and graph `headerSecrets`, model HTTP tools' `headerSecrets`) stays with the origin it was configured
 * for. The destination answers 307 to another origin (another loopback port, on the allow-list for the test):
 * the second origin gets the request without the secret; a same-origin redirect keeps it.
 */
const SECRETS = { key: 'sk-provider-secret', tok: 'upstream-token-secret', hdr: 'header-secret-value' };

let trap: RedirectTrap;
let provider: ScriptedProvider;
let egress: EgressAgent;
let runtimes: ReturnType<typeof egressRuntimes>;

beforeAll(async () => {
  // A valid agent card on the first origin whose service URL redirects (`/card/<hop>/…`): the a2a-upstream
  // runtime's JSON-RPC call, not only its card read, is then redirected.
  trap = await startRedirectTrap((req) => {
    const card = /^\/card\/(cross|same)\/\.well-known\/agent-card\.json$/.exec(req.path);
    if (req.origin !== 'first' || !card) return undefined;
    return {
      body: {
        protocolVersion: '0.3.0',
        name: 'Up',
        description: 'upstream',
        url: `${trap.first}/${card[1]}/rpc`,
        version: '1',
        capabilities: { streaming: false },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 's', name: 'S', description: 'd', tags: [] }],
      },
    };
  });
  provider = await new ScriptedProvider().start();
  egress = createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.0/8'] }) });
  runtimes = egressRuntimes(egress);
});
afterAll(async () => {
  await egress.close();
  await provider.close();
  await trap.close();
});
beforeEach(() => {
  trap.seen.length = 0;
});

type Hop = 'cross' | 'same';

/** Each credential-carrying path: the runtime, its configuration through `<trap>/<hop>/…`, the message. */
const paths: { name: string; runtime: string; text?: string; config: (hop: Hop) => Record<string, unknown> }[] = [
  {
    name: 'model provider (apiKeySecret)',
    runtime: 'model',
    config: (hop) => ({ baseUrl: `${trap.first}/${hop}/v1`, model: 'm', apiKeySecret: 'key', maxRetries: 0 }),
  },
  {
    name: 'model MCP server (headerSecrets)',
    runtime: 'model',
    config: (hop) => ({
      baseUrl: `${provider.url}/v1`,
      model: 'm',
      mcpServers: [{ name: 'calc', url: `${trap.first}/${hop}/mcp`, headerSecrets: { 'X-Mcp-Key': 'hdr' } }],
    }),
  },
  {
    name: 'model HTTP tool (headerSecrets)',
    runtime: 'model',
    text: 'call lookup {}',
    config: (hop) => ({
      baseUrl: `${provider.url}/v1`,
      model: 'm',
      tools: [
        {
          type: 'http',
          name: 'lookup',
          description: 'looks up',
          method: 'GET',
          url: `${trap.first}/${hop}/tool`,
          parameters: { type: 'object', properties: {} },
          headerSecrets: { 'X-Api-Key': 'hdr' },
        },
      ],
    }),
  },
  {
    name: 'graph http step (headerSecrets)',
    runtime: 'graph',
    config: (hop) => ({
      steps: [{ id: 'get', kind: 'http', url: `${trap.first}/${hop}/price`, headerSecrets: { 'X-Key': 'hdr' } }],
      edges: [],
      output: 'steps.get.body',
    }),
  },
  {
    name: 'graph model step (apiKeySecret)',
    runtime: 'graph',
    config: (hop) => ({
      steps: [
        {
          id: 'ask',
          kind: 'model',
          baseUrl: `${trap.first}/${hop}/v1`,
          model: 'm',
          apiKeySecret: 'key',
          prompt: '"hi"',
        },
      ],
      edges: [],
      output: 'steps.ask',
    }),
  },
  {
    name: 'http agent (tokenSecret as Authorization)',
    runtime: 'http',
    config: (hop) => ({ url: `${trap.first}/${hop}/agent`, tokenSecret: 'tok' }),
  },
  {
    name: 'http agent (tokenSecret in its own authHeader)',
    runtime: 'http',
    config: (hop) => ({ url: `${trap.first}/${hop}/agent`, tokenSecret: 'tok', authHeader: 'X-Agent-Token' }),
  },
  {
    name: 'a2a-upstream (tokenSecret, at the card read)',
    runtime: 'a2a-upstream',
    config: (hop) => ({ url: `${trap.first}/${hop}/upstream`, tokenSecret: 'tok' }),
  },
  {
    name: 'a2a-upstream (tokenSecret, at the JSON-RPC call)',
    runtime: 'a2a-upstream',
    config: (hop) => ({ url: `${trap.first}/card/${hop}`, tokenSecret: 'tok' }),
  },
];

describe('a redirect to another origin carries no credential, in every runtime', () => {
  it.each(paths)('$name: the other origin gets the request without the secret', async (p) => {
    const run = fakeRun({ config: p.config('cross'), text: p.text ?? 'hello', secrets: SECRETS });
    await runtimes[p.runtime]!(run.ctx);
    const landed = trap.seen.filter((s) => s.origin === 'other');
    expect(landed.length).toBeGreaterThan(0); // the redirect was followed
    expect(trap.leaked('other', Object.values(SECRETS))).toEqual([]);
    for (const s of landed) expect(s.headers.authorization).toBeUndefined();
  });

  it.each(paths)('$name: a same-origin redirect keeps the secret', async (p) => {
    const run = fakeRun({ config: p.config('same'), text: p.text ?? 'hello', secrets: SECRETS });
    await runtimes[p.runtime]!(run.ctx);
    expect(trap.seen.filter((s) => s.origin === 'other')).toEqual([]);
    expect(trap.leaked('first', Object.values(SECRETS)).length).toBeGreaterThan(0);
  });
});
