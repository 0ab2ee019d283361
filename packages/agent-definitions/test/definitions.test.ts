import { describe, expect, it } from 'vitest';
import { EgressPolicy, type Resolver } from '@a2a-inbound/runtime';
import {
  SecretBox,
  cardInputModes,
  cardTraits,
  checkEgressUrl,
  credentialOrigins,
  intersectMediaTypes,
  parseModelConfig,
  registerRuntimeValidator,
  runtimeDefinition,
  validateDefinition,
  type DefinitionChecks,
  untrustedCardEndpoints,
  untrustedEndpointReason,
  type DefinitionEgress,
} from '../src';

const fakeDns =
  (map: Record<string, string[]>): Resolver =>
  async (host) => {
    const a = map[host];
    if (!a) throw new Error('ENOTFOUND');
    return a;
  };
const policy: DefinitionEgress = {
  policy: new EgressPolicy(),
  resolve: fakeDns({
    'api.example.com': ['93.184.216.34'],
    'agent.example.com': ['93.184.216.35'],
    'rebind.example.com': ['10.0.0.5'],
  }),
};
const checks = (secrets: string[] = ['openai']): DefinitionChecks => ({
  secretExists: async (n) => secrets.includes(n),
  checkEgressUrl: (u) => checkEgressUrl(u, policy),
});
const model = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  baseUrl: 'https://api.example.com/v1',
  model: 'gpt-test',
  apiKeySecret: 'openai',
  ...extra,
});

describe('version definitions', () => {
  it('refuses an unknown runtime, naming the known ones', async () => {
    const issues = await validateDefinition('gpt-magic', {}, checks());
    expect(issues).toEqual([{ path: 'runtime', reason: expect.stringContaining('unknown runtime "gpt-magic"') }]);
    expect(issues[0]!.reason).toContain('model');
  });

  it('accepts a complete model definition', async () => {
    const tool = {
      type: 'http',
      name: 'weather',
      url: 'https://api.example.com/weather/{city}',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    };
    expect(await validateDefinition('model', model({ tools: [tool], memoryMessages: 10 }), checks())).toEqual([]);
  });

  it('names the field path and the reason of each bad field', async () => {
    const issues = await validateDefinition(
      'model',
      {
        baseUrl: 'ftp://x',
        maxSteps: 0,
        tools: [{ type: 'http', name: 'bad name', url: 'https://api.example.com/{q}' }],
        colour: 1,
      },
      checks(),
    );
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'runtimeConfig.colour', reason: expect.stringContaining('unknown field') },
        { path: 'runtimeConfig.baseUrl', reason: 'must be an http or https URL' },
        { path: 'runtimeConfig.model', reason: 'is required' },
        { path: 'runtimeConfig.maxSteps', reason: 'must be an integer from 1 to 32' },
        { path: 'runtimeConfig.tools[0].name', reason: 'must match [A-Za-z0-9_-]{1,64}' },
        { path: 'runtimeConfig.tools[0].url', reason: 'placeholders need parameters with those properties' },
      ]),
    );
  });

  it('refuses a missing secret and a tool URL to a private address (literal, internal name, or by DNS)', async () => {
    const tools = [
      { type: 'http', name: 'a', url: 'https://10.1.2.3/x' },
      { type: 'http', name: 'b', url: 'https://metadata.google.internal/computeMetadata' },
      { type: 'http', name: 'c', url: 'https://rebind.example.com/' },
      { type: 'http', name: 'd', url: 'http://api.example.com/' },
    ];
    const issues = await validateDefinition('model', model({ apiKeySecret: 'nope', tools }), checks());
    expect(issues).toEqual([
      { path: 'runtimeConfig.apiKeySecret', reason: 'secret "nope" does not exist in this subscription' },
      { path: 'runtimeConfig.tools[0].url', reason: expect.stringContaining('10.1.2.3 is private') },
      { path: 'runtimeConfig.tools[1].url', reason: expect.stringContaining('is private') },
      { path: 'runtimeConfig.tools[2].url', reason: expect.stringContaining('must resolve to a public address') },
      { path: 'runtimeConfig.tools[3].url', reason: expect.stringContaining('https') },
    ]);
  });

  it('MCP servers: shape, unique names, secrets exist, URL through the egress policy, defaults', async () => {
    const mcp = { name: 'files', url: 'https://api.example.com/mcp', headerSecrets: { Authorization: 'openai' } };
    expect(await validateDefinition('model', model({ mcpServers: [mcp] }), checks())).toEqual([]);
    const parsed = parseModelConfig(model({ mcpServers: [{ ...mcp, approval: ['rm'], allowTools: ['ls', 'rm'] }] }));
    expect(parsed.mcpServers).toEqual([
      {
        name: 'files',
        url: 'https://api.example.com/mcp',
        headerSecrets: { Authorization: 'openai' },
        allowTools: ['ls', 'rm'],
        approval: ['rm'],
        timeoutMs: 30_000,
        maxResultBytes: 256 * 1024,
      },
    ]);
    const shape = await validateDefinition(
      'model',
      model({
        tools: [{ type: 'http', name: 'files__x', url: 'https://api.example.com/x' }],
        mcpServers: [
          mcp,
          { ...mcp },
          { name: 'a__b', url: 'ftp://x', approval: 'yes', timeoutMs: 5, extra: 1 },
          { name: 'c', url: 'https://api.example.com/{x}' },
        ],
      }),
      checks(),
    );
    expect(shape).toEqual(
      expect.arrayContaining([
        { path: 'runtimeConfig.mcpServers[1].name', reason: 'duplicate MCP server name "files"' },
        { path: 'runtimeConfig.mcpServers[2].extra', reason: expect.stringContaining('unknown field') },
        { path: 'runtimeConfig.mcpServers[2].name', reason: expect.stringContaining('without "__"') },
        { path: 'runtimeConfig.mcpServers[2].url', reason: 'must be an http or https URL' },
        { path: 'runtimeConfig.mcpServers[2].approval', reason: 'must be an array of tool names' },
        { path: 'runtimeConfig.mcpServers[2].timeoutMs', reason: 'must be an integer from 100 to 300000' },
        { path: 'runtimeConfig.mcpServers[3].url', reason: 'must be a fixed URL (no placeholders)' },
        { path: 'runtimeConfig.tools[0].name', reason: expect.stringContaining('namespace of the MCP server "files"') },
      ]),
    );
    const refs = await validateDefinition(
      'model',
      model({
        mcpServers: [
          { name: 'a', url: 'https://10.1.2.3/mcp' },
          { name: 'b', url: 'https://api.example.com/mcp', headerSecrets: { 'X-Key': 'missing' } },
        ],
      }),
      checks(),
    );
    expect(refs).toEqual([
      {
        path: 'runtimeConfig.mcpServers[1].headerSecrets.X-Key',
        reason: 'secret "missing" does not exist in this subscription',
      },
      { path: 'runtimeConfig.mcpServers[0].url', reason: expect.stringContaining('10.1.2.3 is private') },
    ]);
  });

  it('the operator allow-list opens private destinations (plain http included)', async () => {
    const allow: DefinitionEgress = {
      policy: new EgressPolicy({ hosts: ['localhost'], cidrs: ['127.0.0.0/8'] }),
      resolve: fakeDns({ localhost: ['127.0.0.1'] }),
    };
    expect(await checkEgressUrl('http://127.0.0.1:11434/v1', allow)).toBeUndefined();
    expect(await checkEgressUrl('http://localhost:8080/tool', allow)).toBeUndefined();
    expect(await checkEgressUrl('http://10.0.0.1/', allow)).toContain('private');
    expect(await checkEgressUrl('https://{host}/x', allow)).toContain('URL template must be literal');
  });

  it('demo runtimes refuse configuration they do not take', async () => {
    expect(await validateDefinition('demo:echo', { greeting: 'hi' }, checks())).toEqual([
      { path: 'runtimeConfig.greeting', reason: expect.stringContaining('unknown field') },
    ]);
    expect(await validateDefinition('demo:slow', { workMs: 10 }, checks())).toEqual([]);
  });

  it('a2a-upstream and http: url through the egress policy, tokenSecret a secret reference', async () => {
    expect(await validateDefinition('a2a-upstream', { url: 'https://api.example.com/agent' }, checks())).toEqual([]);
    expect(
      await validateDefinition(
        'http',
        { url: 'https://api.example.com/run', tokenSecret: 'missing', bogus: 1 },
        checks(),
      ),
    ).toEqual([{ path: 'runtimeConfig.bogus', reason: expect.stringContaining('unknown field') }]);
    expect(
      await validateDefinition('http', { url: 'https://api.example.com/run', tokenSecret: 'missing' }, checks()),
    ).toEqual([{ path: 'runtimeConfig.tokenSecret', reason: 'secret "missing" does not exist in this subscription' }]);
    expect(await validateDefinition('a2a-upstream', { url: 'https://10.0.0.7/' }, checks())).toEqual([
      { path: 'runtimeConfig.url', reason: expect.stringContaining('private') },
    ]);
  });

  it('a2a-upstream allowedOrigins: origins only, each through the egress policy (ADR 0021, decision 9)', async () => {
    const url = 'https://agent.example.com/a';
    expect(
      await validateDefinition('a2a-upstream', { url, allowedOrigins: ['https://api.example.com'] }, checks()),
    ).toEqual([]);
    for (const allowedOrigins of [
      'https://api.example.com',
      ['https://api.example.com/rpc'],
      ['ftp://api.example.com'],
      ['not a url'],
      Array.from({ length: 11 }, (_, i) => `https://a${i}.example.com`),
    ])
      expect(await validateDefinition('a2a-upstream', { url, allowedOrigins }, checks())).toEqual([
        { path: 'runtimeConfig.allowedOrigins', reason: expect.stringContaining('origins') },
      ]);
    expect(await validateDefinition('a2a-upstream', { url, allowedOrigins: ['https://10.0.0.7'] }, checks())).toEqual([
      { path: 'runtimeConfig.allowedOrigins[0]', reason: expect.stringContaining('private') },
    ]);
    // http has no card: its token goes to its url only, so it has no such field.
    expect(await validateDefinition('http', { url, allowedOrigins: [] }, checks())).toEqual([
      { path: 'runtimeConfig.allowedOrigins', reason: expect.stringContaining('unknown field') },
    ]);
  });

  it('an upstream card endpoint outside the trusted origins is named; endpoints of other transports are not', () => {
    const trusted = credentialOrigins({
      url: 'https://agent.example.com/a',
      allowedOrigins: ['https://b.example.com'],
    });
    expect([...trusted]).toEqual(['https://agent.example.com', 'https://b.example.com']);
    expect(untrustedCardEndpoints({ url: 'https://agent.example.com/rpc' }, trusted)).toEqual([]);
    expect(untrustedCardEndpoints({ url: 'https://b.example.com:443/rpc' }, trusted)).toEqual([]);
    expect(untrustedCardEndpoints({ url: 'https://evil.example.net/rpc' }, trusted)).toEqual([
      'https://evil.example.net',
    ]);
    // Same host, another port or scheme: another origin.
    expect(untrustedCardEndpoints({ url: 'http://agent.example.com/rpc' }, trusted)).toEqual([
      'http://agent.example.com',
    ]);
    const card = {
      url: 'https://agent.example.com/rpc',
      additionalInterfaces: [
        { transport: 'HTTP+JSON', url: 'https://rest.example.net/v1' },
        { transport: 'GRPC', url: 'https://grpc.example.net' },
      ],
    };
    expect(untrustedCardEndpoints(card, trusted)).toEqual(['https://rest.example.net']);
    expect(untrustedCardEndpoints({ url: 'https://grpc.example.net', preferredTransport: 'GRPC' }, trusted)).toEqual(
      [],
    );
    expect(untrustedEndpointReason(['https://evil.example.net'], 'https://agent.example.com/a')).toContain(
      'add "https://evil.example.net" to runtimeConfig.allowedOrigins',
    );
  });

  it('card traits: streaming only when the runtime streams; input modes only those it accepts', () => {
    const declared = ['text/plain', 'application/json', 'image/png', 'application/pdf'];
    const textModel = cardTraits('model', model({ stream: false }));
    expect(textModel.streaming).toBe(false);
    expect(cardInputModes(declared, textModel)).toEqual(['text/plain', 'application/json']);
    const vision = cardTraits('model', model({ vision: true }));
    expect(vision.streaming).toBe(true);
    expect(cardInputModes(declared, vision)).toEqual(['text/plain', 'application/json', 'image/png']);
    expect(cardTraits('demo:echo', {}).streaming).toBe(true);
    expect(cardTraits('no-such-runtime', {}).streaming).toBe(false);
    // http: streaming only when the version says its agent answers with SSE; every input reaches it.
    expect(cardTraits('http', { url: 'https://a.example.com' }).streaming).toBe(false);
    expect(cardTraits('http', { url: 'https://a.example.com', streaming: true }).streaming).toBe(true);
    expect(cardInputModes(declared, cardTraits('http', { url: 'https://a.example.com' }))).toEqual(declared);
    // a2a-upstream: nothing claimed from the configuration alone (the upstream card's claims are stored with it).
    expect(cardTraits('a2a-upstream', { url: 'https://a.example.com' }).streaming).toBe(false);
  });

  it('http streaming is a boolean', async () => {
    expect(await validateDefinition('http', { url: 'https://a.example.com', streaming: 'yes' }, checks())).toEqual([
      { path: 'runtimeConfig.streaming', reason: 'must be true or false' },
    ]);
  });

  it('media type intersection: the narrower of each matching pair, in our order, once', () => {
    expect(intersectMediaTypes(['text/plain', 'application/json'], ['text/plain'])).toEqual(['text/plain']);
    expect(intersectMediaTypes(['image/*', 'text/plain'], ['image/png', 'image/jpeg', 'text/*'])).toEqual([
      'image/png',
      'image/jpeg',
      'text/plain',
    ]);
    expect(intersectMediaTypes(['text/plain', 'TEXT/PLAIN'], ['*/*'])).toEqual(['text/plain']);
    expect(intersectMediaTypes(['application/pdf'], ['text/plain'])).toEqual([]);
  });

  it('another runtime plugs in with one line; its …Secret fields are secret references', async () => {
    registerRuntimeValidator(
      'test-upstream',
      (c) => (typeof c.url === 'string' ? [] : [{ path: 'url', reason: 'is required' }]),
      {
        streaming: false,
      },
    );
    expect(runtimeDefinition('test-upstream')).toBeDefined();
    expect(await validateDefinition('test-upstream', {}, checks())).toEqual([
      { path: 'runtimeConfig.url', reason: 'is required' },
    ]);
    expect(await validateDefinition('test-upstream', { url: 'x', auth: { tokenSecret: 'tok' } }, checks())).toEqual([
      { path: 'runtimeConfig.auth.tokenSecret', reason: 'secret "tok" does not exist in this subscription' },
    ]);
    expect(cardTraits('test-upstream', {}).streaming).toBe(false);
  });
});

describe('SecretBox (AES-256-GCM)', () => {
  const k1 = Buffer.alloc(32, 1).toString('base64');
  const k2 = Buffer.alloc(32, 2).toString('base64');

  it('seals without the plaintext and opens it again; bound to its name and subscription', () => {
    const box = SecretBox.fromBase64(k1);
    const sealed = box.seal('sk-very-secret', 'sub/openai');
    expect(sealed).not.toContain('sk-very-secret');
    expect(Buffer.from(sealed.split('.')[3]!, 'base64url').toString()).not.toContain('secret');
    expect(box.open(sealed, 'sub/openai')).toBe('sk-very-secret');
    expect(() => box.open(sealed, 'other/openai')).toThrow();
    expect(box.seal('sk-very-secret', 'sub/openai')).not.toBe(sealed); // fresh IV
  });

  it('rotation: a value sealed with the previous key still opens; new values use the current key', () => {
    const old = SecretBox.fromBase64(k1).seal('v', 'a');
    const rotated = SecretBox.fromBase64(k2, [k1]);
    expect(rotated.open(old, 'a')).toBe('v');
    expect(rotated.isStale(old)).toBe(true);
    expect(rotated.isStale(rotated.seal('v', 'a'))).toBe(false);
    expect(() => SecretBox.fromBase64(k2).open(old, 'a')).toThrow(/not configured/);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => SecretBox.fromBase64(Buffer.alloc(16).toString('base64'))).toThrow(/32 bytes/);
  });
});
