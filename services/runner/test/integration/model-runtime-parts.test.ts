import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseModelConfig } from '@a2a-inbound/agent-definitions';
import { createEgressAgent, egressFetch, EgressPolicy } from '@a2a-inbound/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletion, retryDelayMs, type ChatRequest } from '../../src/runtimes/chat-completions';
import { callHttpTool, checkArguments, toolRequest } from '../../src/runtimes/http-tools';
import { userContent } from '../../src/runtimes/model-runtime';

const tool = (extra: Record<string, unknown> = {}) =>
  parseModelConfig({
    baseUrl: 'https://x.example',
    model: 'm',
    tools: [
      {
        type: 'http',
        name: 't',
        method: 'GET',
        url: 'https://api.example.com/items/{id}',
        parameters: {
          type: 'object',
          properties: { id: { type: 'string' }, n: { type: 'integer' }, mode: { enum: ['a', 'b'] } },
          required: ['id'],
        },
        ...extra,
      },
    ],
  }).tools[0]!;

describe('HTTP tools', () => {
  it('checks arguments against the JSON Schema: required, types, enums', () => {
    const schema = tool().parameters;
    expect(checkArguments(schema, { id: 'x', n: 2, mode: 'a' })).toBeUndefined();
    expect(checkArguments(schema, {})).toBe('missing required argument "id"');
    expect(checkArguments(schema, { id: 'x', n: 1.5 })).toBe('argument "n" must be of type integer');
    expect(checkArguments(schema, { id: 'x', mode: 'c' })).toMatch(/must be one of/);
    expect(checkArguments(schema, [1])).toBe('arguments must be a JSON object');
  });

  it('fills URL placeholders encoded; other arguments go to the query (GET) or the JSON body (POST)', () => {
    expect(toolRequest(tool(), { id: 'a/b c', n: 3 })).toEqual({
      url: 'https://api.example.com/items/a%2Fb%20c?n=3',
      method: 'GET',
      body: undefined,
    });
    expect(toolRequest(tool({ method: 'POST' }), { id: '7', n: 3 })).toEqual({
      url: 'https://api.example.com/items/7',
      method: 'POST',
      body: '{"n":3}',
    });
  });
});

describe('file parts reach the model', () => {
  it('files the tasks service stored are read back (a text file inline)', async () => {
    const parts = [
      { kind: 'file', file: { uri: 'urn:a2a-inbound:file:blob-1', mimeType: 'text/plain', name: 'n.txt' } },
    ];
    const read = async (id: string) =>
      id === 'blob-1'
        ? { data: new TextEncoder().encode('stored notes'), mimeType: 'text/plain', name: 'n.txt' }
        : undefined;
    expect(await userContent(msg(parts), false, read)).toBe('File n.txt (text/plain):\nstored notes');
  });

  const msg = (parts: unknown[]) => ({ kind: 'message', role: 'user', messageId: 'm', parts }) as never;
  it('text inline, images as data URLs (vision), other types described by name and type', async () => {
    const png = Buffer.from([137, 80, 78, 71]).toString('base64');
    const parts = [
      { kind: 'text', text: 'look' },
      {
        kind: 'file',
        file: { name: 'a.txt', mimeType: 'text/plain', bytes: Buffer.from('hello file').toString('base64') },
      },
      { kind: 'file', file: { name: 'p.png', mimeType: 'image/png', bytes: png } },
      { kind: 'file', file: { name: 'r.pdf', mimeType: 'application/pdf', bytes: png } },
    ];
    expect(await userContent(msg(parts), true)).toEqual([
      { type: 'text', text: 'look' },
      { type: 'text', text: 'File a.txt (text/plain):\nhello file' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
      { type: 'text', text: expect.stringMatching(/^\[Attached file: r\.pdf \(application\/pdf, 4 bytes\)/) },
    ]);
    // Without vision the image is described too, and an all-text message is one string.
    expect(await userContent(msg(parts.slice(2, 3)), false)).toMatch(/^\[Attached file: p\.png \(image\/png/);
  });
});

describe('guarded egress and the provider client', () => {
  let url = '';
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    if (req.url === '/big') res.end('y'.repeat(10_000));
    else if (req.url === '/hang')
      return; // never answers (closed in afterAll)
    else if (req.url === '/v1/chat/completions') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The stream breaks off: no finish_reason, no [DONE].
      res.end('data: {"choices":[{"delta":{"content":"partial"}}]}\n\n');
    } else res.end('{}');
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a private address is refused at connect time unless allow-listed (the tool sees an error answer)', async () => {
    const strict = egressFetch(createEgressAgent({ policy: new EgressPolicy() }));
    const before = hits;
    const t = tool({ url: `${url}/items/{id}` });
    const refused = await callHttpTool(strict, t, '{"id":"1"}', {}, new AbortController().signal);
    expect(JSON.parse(refused)).toEqual({ error: expect.stringContaining('not allowed by the egress policy') });
    expect(hits).toBe(before);
    const allowed = egressFetch(
      createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.1/32'] }) }),
    );
    expect(JSON.parse(await callHttpTool(allowed, t, '{"id":"1"}', {}, new AbortController().signal))).toEqual({
      status: 200,
      body: '{}',
    });
  });

  it('caps a tool response and says so', async () => {
    const allowed = egressFetch(
      createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.1/32'] }) }),
    );
    const t = tool({ url: `${url}/big`, parameters: { type: 'object', properties: {} }, maxResponseBytes: 100 });
    const out = JSON.parse(await callHttpTool(allowed, t, '{}', {}, new AbortController().signal));
    expect(out.body).toHaveLength(100);
    expect(out.truncated).toMatch(/cut at 100 bytes/);
  });

  it('a tool that does not answer within its timeoutMs is an error answer the model reads (the run goes on)', async () => {
    const allowed = egressFetch(
      createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.1/32'] }) }),
    );
    const t = tool({ url: `${url}/hang`, parameters: { type: 'object', properties: {} }, timeoutMs: 200 });
    const started = Date.now();
    const out = JSON.parse(await callHttpTool(allowed, t, '{}', {}, new AbortController().signal));
    expect(out).toEqual({ error: 'the tool did not answer within 200 ms' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a stream that breaks off is a failure, not a short answer', async () => {
    const allowed = egressFetch(
      createEgressAgent({ policy: new EgressPolicy({ hosts: [], cidrs: ['127.0.0.1/32'] }) }),
    );
    const deltas: string[] = [];
    const req: ChatRequest = {
      baseUrl: `${url}/v1`,
      apiKey: undefined,
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      tools: [],
      temperature: undefined,
      maxOutputTokens: undefined,
      stream: true,
      timeoutMs: 5_000,
      maxRetries: 0,
      signal: new AbortController().signal,
      onDelta: async (d) => {
        deltas.push(d);
      },
      sleep: async () => undefined,
    };
    await expect(chatCompletion(allowed, req)).rejects.toMatchObject({ kind: 'bad_answer' });
    expect(deltas).toEqual(['partial']);
  });

  it('backoff: exponential with jitter, or Retry-After, capped at 10 s', () => {
    for (let i = 0; i < 20; i++) {
      const d = retryDelayMs(2, null);
      expect(d).toBeGreaterThanOrEqual(500);
      expect(d).toBeLessThan(1000);
    }
    expect(retryDelayMs(1, '3')).toBe(3000);
    expect(retryDelayMs(1, '3600')).toBe(10_000);
  });
});
