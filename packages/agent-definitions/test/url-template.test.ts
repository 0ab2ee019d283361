import { EgressPolicy } from '@a2a-inbound/runtime';
import { describe, expect, it } from 'vitest';
import {
  checkEgressUrl,
  expandUrlTemplate,
  UrlTemplateError,
  urlTemplateProblem,
  validateDefinition,
  type DefinitionChecks,
} from '../src';

/** Every destination allowed: only the template rule (ADR 0020, decision 8) can refuse. */
const openChecks: DefinitionChecks = { secretExists: async () => true, checkEgressUrl: async () => undefined };

const LITERAL_ORIGIN = 'the origin (scheme, host, port) of a URL template must be literal';
const SCHEME_FIRST = 'must start with a literal http:// or https:// origin';
const USERINFO = 'must not carry userinfo';
const DOTS = 'must not contain "." or ".." path segments';

/** Templates a definition may not hold, and the rule a 400 names. */
const refused: [string, string][] = [
  ['https://{h}/x', LITERAL_ORIGIN],
  ['https://api.{region}.example.com/v1/x', LITERAL_ORIGIN],
  ['https://api.example.com:{port}/x', LITERAL_ORIGIN],
  ['https://api.example.com{p}', LITERAL_ORIGIN],
  ['https://api.example.com{p}/x', LITERAL_ORIGIN],
  ['https://{u}@api.example.com/x', LITERAL_ORIGIN],
  ['https://{u}:{p}@api.example.com/x', LITERAL_ORIGIN],
  ['HTTPS://{h}/x', LITERAL_ORIGIN],
  ['{base}/path', SCHEME_FIRST],
  ['{scheme}://api.example.com/x', SCHEME_FIRST],
  ['https:/{h}/x', SCHEME_FIRST],
  ['//{h}/x', SCHEME_FIRST],
  [' https://{h}/x', SCHEME_FIRST],
  ['ftp://api.example.com/{p}', SCHEME_FIRST],
  ['https://user:pw@api.example.com/{p}', USERINFO],
  ['https://user@api.example.com/{p}', USERINFO],
  ['https://api.example.com/v1/../admin/{p}', DOTS],
  ['https://api.example.com/v1/%2e%2E/{p}', DOTS],
  ['https://api.example.com/./{p}', DOTS],
];

const accepted = [
  'https://api.example.com/items/{sku}',
  'https://api.example.com:8443/v1/{a}/{b}?q={q}&fixed=1',
  'https://api.example.com/search?q={q}',
  'https://api.example.com/files/{name}.json',
  'https://api.example.com/x#{frag}',
  'http://127.0.0.1:11434/tool/{id}',
];

const props = { h: {}, region: {}, port: {}, p: {}, u: {}, base: {}, scheme: {}, sku: {}, a: {}, b: {}, q: {} };
const props2 = { ...props, name: {}, frag: {}, id: {} };
const modelWithTool = (url: string): Record<string, unknown> => ({
  baseUrl: 'https://api.example.com/v1',
  model: 'm',
  tools: [{ type: 'http', name: 't', url, parameters: { type: 'object', properties: props2 } }],
});
const graphWithStep = (url: string): Record<string, unknown> => ({
  steps: [{ id: 's', kind: 'http', url, params: '{ "p": input }' }],
  edges: [],
});

describe('a URL template has a literal origin (checked when a version is created)', () => {
  it.each(refused)('%s is refused: %s', async (url, rule) => {
    expect(urlTemplateProblem(url)).toContain(rule);
    expect(await validateDefinition('model', modelWithTool(url), openChecks)).toEqual([
      { path: 'runtimeConfig.tools[0].url', reason: expect.stringContaining(rule) },
    ]);
    expect(await validateDefinition('graph', graphWithStep(url), openChecks)).toEqual([
      { path: 'runtimeConfig.steps[0].url', reason: expect.stringContaining(rule) },
    ]);
    const egress = { policy: new EgressPolicy({ hosts: [], cidrs: ['0.0.0.0/0'] }), resolve: async () => ['1.2.3.4'] };
    expect(await checkEgressUrl(url, egress)).toContain(rule);
  });

  it.each(accepted)('%s is accepted', async (url) => {
    expect(urlTemplateProblem(url)).toBeUndefined();
    expect(await validateDefinition('model', modelWithTool(url), openChecks)).toEqual([]);
    expect(await validateDefinition('graph', graphWithStep(url), openChecks)).toEqual([]);
  });
});

describe('expanding a URL template keeps its origin (checked again at run time)', () => {
  const values = (v: string) => () => v;
  it.each([
    '@evil.example',
    'x@evil.example/steal',
    '//evil.example/steal',
    '\\\\evil.example\\steal',
    '%2F%2Fevil.example%2Fsteal',
    'https://evil.example/',
    '../../..//evil.example',
    '?q=1#frag',
  ])('a value %j is one encoded path segment on the template origin', (v) => {
    const url = expandUrlTemplate('https://api.example.com/items/{id}', values(v));
    expect(url.origin).toBe('https://api.example.com');
    expect(url.pathname).toBe(`/items/${encodeURIComponent(v)}`);
    expect(url.search).toBe('');
  });

  it('a query value is one encoded component (no extra parameters)', () => {
    const url = expandUrlTemplate('https://api.example.com/s?q={q}&k=1', values('a&k=2#x'));
    expect([...url.searchParams]).toEqual([
      ['q', 'a&k=2#x'],
      ['k', '1'],
    ]);
  });

  it.each(['.', '..'])('a value %j that makes a dot segment is refused', (v) => {
    expect(() => expandUrlTemplate('https://api.example.com/v1/users/{id}/profile', values(v))).toThrow(
      UrlTemplateError,
    );
  });

  it('an encoded dot value stays text (its % is encoded), not a dot segment', () => {
    const url = expandUrlTemplate('https://api.example.com/v1/users/{id}/profile', values('%2e%2E'));
    expect(url.pathname).toBe('/v1/users/%252e%252E/profile');
  });

  it.each(['https://{h}/x', 'https://api.example.com:{h}/x', '{h}/x', 'https://{h}@api.example.com/x'])(
    'a stored template %s whose origin has a placeholder is refused before any value is used',
    (t) => {
      expect(() => expandUrlTemplate(t, values('evil.example'))).toThrow(UrlTemplateError);
    },
  );
});
