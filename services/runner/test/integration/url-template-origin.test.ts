import { createEgressAgent, EgressPolicy, type EgressAgent } from '@a2a-inbound/runtime';
import { startRedirectTrap, type RedirectTrap } from '@a2a-inbound/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { egressRuntimes } from '../../src/runtimes';
import { ScriptedProvider } from '../../../../test/agents/scripted-provider';
import { fakeRun } from '../support/fake-run';

/**
 * ADR 0020 decision 8: a URL template's values (a model's tool-call arguments, a graph's state: what a
 * prompt-injected model or a user's message chooses) never move a secret-carrying request off the template's
 * literal origin. Two loopback servers: `first` is the tool's origin, `other` the attacker's; both on the
 * allow-list, so only the template rule stands between the secret and the attacker.
 */
const SECRET = 'header-secret-value';

let trap: RedirectTrap;
let provider: ScriptedProvider;
let egress: EgressAgent;
let runtimes: ReturnType<typeof egressRuntimes>;

beforeAll(async () => {
  trap = await startRedirectTrap();
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

const attackerHostPort = (): string => new URL(trap.other).host;

/** Values an attacker puts in a path placeholder to reach `other`. */
const hostileValues = (): string[] => {
  const hp = attackerHostPort();
  return [
    `@${hp}`,
    `x@${hp}/steal`,
    `//${hp}/steal`,
    `\\\\${hp}\\steal`,
    `%2F%2F${hp}%2Fsteal`,
    `http://${hp}/steal`,
    `../../..//${hp}`,
  ];
};

/** A model runtime whose one HTTP tool has this URL; the scripted model calls it with `args`. */
async function modelToolCall(url: string, args: Record<string, unknown>): Promise<string> {
  const run = fakeRun({
    text: `call lookup ${JSON.stringify(args)}`,
    secrets: { hdr: SECRET },
    config: {
      baseUrl: `${provider.url}/v1`,
      model: 'm',
      tools: [
        {
          type: 'http',
          name: 'lookup',
          method: 'GET',
          url,
          parameters: { type: 'object', properties: { id: { type: 'string' }, h: { type: 'string' } } },
          headerSecrets: { 'X-Api-Key': 'hdr' },
        },
      ],
    },
  });
  await runtimes.model!(run.ctx);
  return run.final()?.text ?? '';
}

/** A graph whose http step has this URL, its placeholder bound to the user's message text. */
async function graphStep(
  url: string,
  text: string,
  params = '{ "id": input }',
): Promise<{ state: string; text: string }> {
  const run = fakeRun({
    text,
    secrets: { hdr: SECRET },
    config: {
      steps: [{ id: 'get', kind: 'http', url, params, headerSecrets: { 'X-Key': 'hdr' } }],
      edges: [],
      output: 'steps.get.body',
    },
  });
  await runtimes.graph!(run.ctx);
  const f = run.final();
  return { state: f?.state ?? '', text: f?.text ?? '' };
}

const attackerGotNothing = (): void => {
  expect(trap.seen.filter((s) => s.origin === 'other')).toEqual([]);
  expect(trap.leaked('other', [SECRET])).toEqual([]);
};

describe('a URL template value cannot move the request to another origin', () => {
  it('model HTTP tool: hostile path values stay one encoded path segment on the template origin', async () => {
    for (const v of hostileValues()) {
      trap.seen.length = 0;
      await modelToolCall(`${trap.first}/items/{id}`, { id: v });
      attackerGotNothing();
      const got = trap.seen.filter((s) => s.origin === 'first');
      expect(got).toHaveLength(1);
      expect(got[0]!.path).toBe(`/items/${encodeURIComponent(v)}`);
      expect(got[0]!.headers['x-api-key']).toBe(SECRET); // the tool's own origin keeps its secret
    }
  });

  it('model HTTP tool: a ".." value is refused (it would reach another path of the origin)', async () => {
    const answer = await modelToolCall(`${trap.first}/v1/users/{id}/profile`, { id: '..' });
    expect(trap.seen).toEqual([]);
    expect(answer).toContain('path segment, which would move the request to another path'); // the tool's answer
  });

  it('model HTTP tool: a stored template whose host is a placeholder is refused at run time', async () => {
    // Creation refuses these (agent-definitions url-template tests); a definition stored another way still
    // must not let the arguments choose where the secret goes.
    for (const url of ['http://127.0.0.1:{h}/steal', 'http://{h}/steal', '{h}/steal']) {
      trap.seen.length = 0;
      const h = url.startsWith('{') ? trap.other : url.includes(':{') ? new URL(trap.other).port : attackerHostPort();
      const answer = await modelToolCall(url, { h });
      expect(answer).toMatch(/origin \(scheme, host, port\) of a URL template must be literal|literal http/);
      attackerGotNothing();
      expect(trap.seen).toEqual([]);
    }
  });

  it('graph http step: hostile values from the user message stay on the template origin', async () => {
    for (const v of hostileValues()) {
      trap.seen.length = 0;
      const r = await graphStep(`${trap.first}/items/{id}`, v);
      expect(r.state).toBe('completed');
      attackerGotNothing();
      expect(trap.seen.map((s) => s.path)).toEqual([`/items/${encodeURIComponent(v)}`]);
    }
  });

  it('graph http step: a stored host placeholder or a ".." value fails the step, nothing sent', async () => {
    const port = new URL(trap.other).port;
    const hostPlaceholder = await graphStep('http://127.0.0.1:{h}/steal', port, '{ "h": input }');
    expect(hostPlaceholder.state).toBe('failed');
    expect(hostPlaceholder.text).toContain('origin (scheme, host, port) of a URL template must be literal');
    const dots = await graphStep(`${trap.first}/v1/users/{id}/profile`, '..');
    expect(dots.state).toBe('failed');
    expect(dots.text).toContain('"." or ".." path segment');
    expect(trap.seen).toEqual([]);
  });
});
