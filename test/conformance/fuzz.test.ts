import { gzipSync } from 'node:zlib';
import { ERROR_TABLE } from '@a2a-inbound/errors';
import { silentLogger } from '@a2a-inbound/logger';
import { startSystem, type System } from '@a2a-inbound/embedded';
import { manage, rpc, textMessage, uniqueId } from '@a2a-inbound/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conformanceResolver } from './suite';

/**
 * Fuzz-style robustness test of the A2A endpoints: a seeded PRNG builds a few hundred bad requests (malformed
 * JSON, wrong types at every field of the envelope, params, message and parts, huge strings, deep nesting, bad
 * base64, unknown methods, invalid UTF-8, empty bodies, odd content types, batches) and every answer must be a
 * well-formed JSON-RPC error: JSON (never HTML), never a 5xx, the id echoed when it can be read, a code from the
 * error table and never an internal error. The seed is fixed so a failure reproduces; FUZZ_SEED overrides it.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 0x2a2a_1b0d);
const CASES = 400;
const BODY_LIMIT_BYTES = 4 * 1024 * 1024;
const KNOWN_CODES = new Set(Object.values(ERROR_TABLE).map((m) => m.jsonRpc));

/** mulberry32: small, fast, good enough to pick cases reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface FuzzCase {
  name: string;
  body: Buffer | string;
  headers?: Record<string, string>;
  /** The id the answer must echo: a value when the body's id is readable, null when it is not. */
  expectId: string | number | null;
  path?: string;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const huge = (n: number, ch = 'x'): string => ch.repeat(n);

export function buildCases(seed: number, count: number): FuzzCase[] {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const int = (n: number): number => Math.floor(rnd() * n);
  const randomString = (n: number): string =>
    Array.from({ length: n }, () => String.fromCharCode(32 + int(95))).join('');

  const wrongValues: Json[] = [
    null,
    0,
    -1,
    1.5,
    1e308,
    true,
    false,
    '',
    'string',
    [],
    [1, 2],
    {},
    { nested: { deeper: [null] } },
    huge(70_000),
    [[[[[[[[[[]]]]]]]]]],
  ];
  const validSend = (): { [k: string]: Json } => ({
    jsonrpc: '2.0',
    id: `fz-${int(1e9)}`,
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        role: 'user',
        messageId: uniqueId('fz'),
        parts: [{ kind: 'text', text: 'fuzz' }],
      },
      configuration: { blocking: false },
    },
  });

  /** Paths whose every wrong-typed value must be refused, with the values that are not wrong there. */
  const fields: { path: (string | number)[]; allowed: (v: Json) => boolean }[] = [
    { path: ['jsonrpc'], allowed: () => false },
    { path: ['method'], allowed: () => false },
    { path: ['params'], allowed: () => false },
    { path: ['params', 'message'], allowed: () => false },
    { path: ['params', 'message', 'role'], allowed: () => false },
    {
      path: ['params', 'message', 'messageId'],
      allowed: (v) => typeof v === 'string' && v.length > 0 && v.length <= 256,
    },
    { path: ['params', 'message', 'parts'], allowed: () => false },
    { path: ['params', 'message', 'parts', 0], allowed: () => false },
    { path: ['params', 'message', 'parts', 0, 'kind'], allowed: () => false },
    { path: ['params', 'message', 'parts', 0, 'text'], allowed: (v) => typeof v === 'string' && v.length <= 1_000_000 },
    { path: ['params', 'message', 'kind'], allowed: () => false },
    {
      path: ['params', 'message', 'contextId'],
      allowed: (v) => v === null || (typeof v === 'string' && v.length > 0 && v.length <= 256),
    },
    { path: ['params', 'message', 'taskId'], allowed: (v) => v === null },
    {
      path: ['params', 'message', 'metadata'],
      allowed: (v) => v === null || (typeof v === 'object' && !Array.isArray(v)),
    },
    {
      path: ['params', 'message', 'parts', 0, 'metadata'],
      allowed: (v) => v === null || (typeof v === 'object' && !Array.isArray(v)),
    },
    { path: ['params', 'configuration'], allowed: (v) => v === null || (typeof v === 'object' && !Array.isArray(v)) },
    {
      path: ['params', 'configuration', 'historyLength'],
      allowed: (v) => v === null || (typeof v === 'number' && Number.isInteger(v) && v >= 0),
    },
    { path: ['params', 'configuration', 'blocking'], allowed: (v) => v === null || typeof v === 'boolean' },
    { path: ['params', 'configuration', 'pushNotificationConfig'], allowed: (v) => v === null },
  ];

  const setAt = (obj: { [k: string]: Json }, path: (string | number)[], value: Json): void => {
    let cur: Json = obj;
    for (const key of path.slice(0, -1)) cur = (cur as Record<string | number, Json>)[key]!;
    (cur as Record<string | number, Json>)[path.at(-1)!] = value;
  };

  const fileCase = (file: Json): { [k: string]: Json } => {
    const b = validSend();
    setAt(b, ['params', 'message', 'parts'], [{ kind: 'file', file }]);
    return b;
  };
  const badBase64 = [
    '***',
    'aGk',
    'a GVsbG8=',
    '=aGk',
    'aGk=aGk=',
    'aGVsbG8==',
    '\u00e9\u00e9\u00e9\u00e9',
    'aGVs\nbG8=',
    huge(4097, '!'),
  ];
  const wrongFiles: Json[] = [
    ...badBase64.map((bytes) => ({ name: 'f.txt', mimeType: 'text/plain', bytes })),
    { name: 'f.txt', bytes: 'aGk=' },
    { name: 'f.txt', mimeType: 5, bytes: 'aGk=' },
    { name: 'f.txt', mimeType: 'text/plain' },
    { name: 'f.txt', mimeType: 'text/plain', bytes: 'aGk=', uri: 'https://files.public.example/f' },
    { name: 'f.txt', mimeType: 'text/plain', uri: 'http://files.public.example/f' },
    { name: 'f.txt', mimeType: 'text/plain', uri: 'https://10.0.0.1/f' },
    { name: 'f.txt', mimeType: 'text/plain', uri: 'https://files.private.example/f' },
    { name: 'f.txt', mimeType: 'text/plain', uri: 'javascript:alert(1)' },
    { name: 'f.txt', mimeType: 'text/plain', uri: 42 },
    { name: 'f.exe', mimeType: 'application/x-msdownload', bytes: 'TVo=' },
    { name: 7, mimeType: 'text/plain', bytes: 'aGk=' },
    'aGk=',
    null,
  ];
  const methods = [
    'tasks/get',
    'tasks/cancel',
    'tasks/resubscribe',
    'tasks/pushNotificationConfig/get',
    'tasks/pushNotificationConfig/list',
    'tasks/pushNotificationConfig/delete',
    'tasks/pushNotificationConfig/set',
  ];
  const stringifyBody = (b: Json): string => JSON.stringify(b);
  const idOf = (b: { [k: string]: Json }): string | number | null => {
    const id = b.id;
    if (typeof id === 'string' && id.length <= 256) return id;
    if (typeof id === 'number' && Number.isFinite(id)) return id;
    return null;
  };

  const generators: (() => FuzzCase)[] = [
    // Malformed JSON: a valid request cut short, or with a byte flipped into something that breaks it.
    () => {
      const text = stringifyBody(validSend());
      return { name: 'truncated JSON', body: text.slice(0, 1 + int(text.length - 2)), expectId: null };
    },
    () => {
      const text = stringifyBody(validSend());
      // Some insertions still parse (a ',' inside a string): try positions until one breaks the JSON.
      for (;;) {
        const at = int(text.length);
        const broken = `${text.slice(0, at)}${pick(['{', '"', ',', '\\', '\u0000', ']'])}${text.slice(at)}`;
        try {
          JSON.parse(broken);
        } catch {
          return { name: 'JSON with a broken byte', body: broken, expectId: null };
        }
      }
    },
    () => ({ name: 'garbage', body: randomString(1 + int(300)), expectId: null }),
    () => ({
      name: 'not JSON at all',
      body: pick([
        '<html></html>',
        'undefined',
        'NaN',
        "{'a':1}",
        '{"a":1,}',
        '[1,]',
        '{"jsonrpc":"2.0"',
        '\u0000',
        'null null',
      ]),
      expectId: null,
    }),
    // Wrong types at every field.
    () => {
      const b = validSend();
      const f = pick(fields);
      const candidates = wrongValues.filter((v) => !f.allowed(v));
      setAt(b, f.path, pick(candidates));
      const id = f.path[0] === 'id' ? null : idOf(b);
      return { name: `wrong type at ${f.path.join('.')}`, body: stringifyBody(b), expectId: id };
    },
    () => {
      const b = validSend();
      const id = pick(
        wrongValues.filter(
          (v) =>
            !(typeof v === 'string' && v.length <= 256) && !(typeof v === 'number' && Number.isFinite(v)) && v !== null,
        ),
      );
      b.id = id;
      return { name: 'wrong id type', body: stringifyBody(b), expectId: null };
    },
    () => {
      const b = validSend();
      delete b[pick(['jsonrpc', 'method'])];
      return { name: 'missing envelope field', body: stringifyBody(b), expectId: idOf(b) };
    },
    () => {
      const method = pick(methods);
      const params: Json = pick([
        {},
        { id: pick(wrongValues.filter((v) => typeof v !== 'string' || v.length === 0 || v.length > 256)) },
        { taskId: 5 },
        [],
        'x',
        7,
      ]);
      const b = { jsonrpc: '2.0', id: int(1e6), method, params };
      return { name: `${method} with bad params`, body: stringifyBody(b), expectId: b.id };
    },
    // Unknown methods.
    () => {
      const method = pick([
        randomString(1 + int(40)),
        'message/sendd',
        'tasks/list',
        'rpc.discover',
        '__proto__',
        'constructor',
        huge(10_000, 'm'),
      ]);
      const b = { jsonrpc: '2.0', id: `m-${int(1e6)}`, method, params: {} };
      return { name: 'unknown method', body: stringifyBody(b), expectId: b.id };
    },
    // File parts: bad base64, missing mimeType, both forms, refused URIs, refused types.
    () => {
      const b = fileCase(pick(wrongFiles));
      return { name: 'bad file part', body: stringifyBody(b), expectId: idOf(b) };
    },
    // Huge strings.
    () => {
      const b = validSend();
      const which = pick(['messageId', 'text', 'contextId', 'method', 'id', 'mimeType']);
      const big = huge(1_000_001 + int(1000));
      if (which === 'messageId') setAt(b, ['params', 'message', 'messageId'], big);
      if (which === 'text') setAt(b, ['params', 'message', 'parts', 0, 'text'], big);
      if (which === 'contextId') setAt(b, ['params', 'message', 'contextId'], big);
      if (which === 'method') b.method = big;
      if (which === 'id') b.id = big;
      if (which === 'mimeType')
        setAt(b, ['params', 'message', 'parts'], [{ kind: 'file', file: { name: 'f', mimeType: big, bytes: 'aGk=' } }]);
      return { name: `huge ${which}`, body: stringifyBody(b), expectId: which === 'id' ? null : idOf(b) };
    },
    // Deep nesting in the envelope, the params and the metadata.
    () => {
      const depth = pick([65, 1000, 20_000]);
      const b = validSend();
      const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const where = pick(['metadata', 'params', 'data']);
      const text = stringifyBody(b);
      const withNested =
        where === 'metadata'
          ? text.replace('"kind":"message"', `"kind":"message","metadata":${nested}`)
          : where === 'data'
            ? text.replace('{"kind":"text","text":"fuzz"}', `{"kind":"data","data":${nested}}`)
            : text.replace('"params":', `"extra":${nested},"params":`);
      return { name: `nested ${depth} deep in ${where}`, body: withNested, expectId: b.id as string };
    },
    // Invalid UTF-8 inside an otherwise fine request.
    () => {
      const b = validSend();
      const [head, tail] = stringifyBody(b).split('fuzz') as [string, string];
      const bad = pick([[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]]);
      return {
        name: 'invalid UTF-8',
        body: Buffer.concat([Buffer.from(head), Buffer.from(bad), Buffer.from(tail)]),
        expectId: null,
      };
    },
    // Empty bodies and odd content types with bad bodies.
    () => ({
      name: 'empty body',
      body: '',
      headers: { 'Content-Type': pick(['application/json', 'text/plain', 'application/octet-stream']) },
      expectId: null,
    }),
    () => ({
      name: 'form-encoded body',
      body: 'jsonrpc=2.0&method=message%2Fsend&id=1',
      headers: {
        'Content-Type': pick([
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'text/html',
          'application/xml',
        ]),
      },
      expectId: null,
    }),
    () => ({
      name: 'gzip that is not gzip',
      body: 'definitely not gzip',
      headers: { 'Content-Encoding': 'gzip' },
      expectId: null,
    }),
    () => ({
      name: 'unknown content encoding',
      body: stringifyBody(validSend()),
      headers: { 'Content-Encoding': pick(['br', 'compress', 'x-unknown']) },
      expectId: null,
    }),
    () => {
      const b = validSend();
      b.method = 'tasks/get';
      b.params = { id: 5 };
      return {
        name: 'gzipped bad request',
        body: gzipSync(stringifyBody(b)),
        headers: { 'Content-Encoding': 'gzip' },
        expectId: b.id as string,
      };
    },
    // Batches and other non-object bodies.
    () => ({
      name: 'batch',
      body: stringifyBody(pick([[validSend(), validSend()], [], [1, 2], [{}]])),
      expectId: null,
    }),
    () => ({ name: 'scalar body', body: pick(['1', '"a string"', 'true', 'null', '[]', '{}']), expectId: null }),
    // Unsupported versions and the 0.1 generation.
    () => {
      const b = validSend();
      if (rnd() < 0.5) b.method = pick(['tasks/send', 'tasks/sendSubscribe']);
      return {
        name: 'unsupported version',
        body: stringifyBody(b),
        expectId: b.id as string,
        ...(b.method === 'message/send' ? { path: pick(['/v0.1', '/v1.0', '/v9']) } : {}),
      };
    },
    () => {
      const b = validSend();
      return {
        name: 'unsupported A2A-Version header',
        body: stringifyBody(b),
        headers: { 'A2A-Version': pick(['1.0', '0.1', 'x', '0.3.0.0']) },
        expectId: b.id as string,
      };
    },
  ];

  const cases: FuzzCase[] = [];
  for (let i = 0; i < count; i++) cases.push(generators[i % generators.length]!());
  // And a few fixed, nasty ones.
  cases.push({ name: '100k levels of [', body: '['.repeat(100_000), expectId: null });
  cases.push({
    name: '100k levels of [ ] closed',
    body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    expectId: null,
  });
  cases.push({
    name: '100k levels of {"a":',
    body: `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
    expectId: null,
  });
  cases.push({
    name: 'deep id',
    body: `{"jsonrpc":"2.0","id":${'['.repeat(50_000)}${']'.repeat(50_000)},"method":"tasks/get","params":{"id":"x"}}`,
    expectId: null,
  });
  cases.push({
    name: 'BOM then JSON',
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jsonrpc":"2.0","id":"bom","method":"nope"}')]),
    expectId: 'bom',
  });
  cases.push({
    name: '__proto__ params',
    body: '{"jsonrpc":"2.0","id":"proto","method":"message/send","params":{"__proto__":{"message":1}}}',
    expectId: 'proto',
  });
  return cases;
}

/** The data of the one `data:` frame of an SSE body; throws unless there is exactly one. */
function singleSseFrame(text: string): unknown {
  const frames = text
    .split('\n\n')
    .map((raw) =>
      raw
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n'),
    )
    .filter((d) => d.length > 0);
  if (frames.length !== 1) throw new Error(`${frames.length} SSE frames`);
  return JSON.parse(frames[0]!) as unknown;
}

/** A case whose body names a streaming method (message/stream, tasks/resubscribe) in a readable envelope. */
function isStreamingCase(c: FuzzCase): boolean {
  try {
    const b = JSON.parse(c.body.toString()) as { method?: unknown };
    return b.method === 'message/stream' || b.method === 'tasks/resubscribe';
  } catch {
    return false;
  }
}

describe('A2A fuzz: bad input always gets a well-formed JSON-RPC error', () => {
  let system: System;
  let key: string;
  let agent: string;

  beforeAll(async () => {
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1', BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES) },
      log: silentLogger(),
      resolver: conformanceResolver,
    });
    key = system.tasks.seed!.credentials!.a2aKey;
    const sut = { tasksAddress: system.tasks.grpc.address, subscriptionId: system.tasks.seed!.subscriptionId };
    // An agent of its own with a rate limit the fuzz cannot reach.
    agent = String(
      (await manage(sut, 'admin', 'agents.create', { name: 'Fuzz target', description: 'fuzz', type: 'AI Agent' })).id,
    );
    await manage(sut, 'admin', 'agents.publishVersion', { agentId: agent, version: '1.0.0', runtime: 'demo:echo' });
    await manage(sut, 'admin', 'agents.promote', { agentId: agent, version: '1.0.0' });
    await manage(sut, 'admin', 'deployments.addAgent', { deploymentId: 'demo-deployment', agentId: agent });
    await manage(sut, 'admin', 'settings.update', {
      agentId: agent,
      settings: { a2aEnabled: true, rateLimitPerMinute: 1_000_000 },
    });
  }, 120_000);
  afterAll(async () => {
    await system?.close();
  }, 60_000);

  const post = async (c: FuzzCase): Promise<{ status: number; contentType: string; text: string }> => {
    const path = c.path ?? pick2(c.name);
    const res = await fetch(`${system.baseUrl}/agents/${agent}/a2a${path}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${key}`,
        ...(typeof c.body === 'string' ? { 'Content-Type': 'application/json' } : {}),
        ...(c.headers ?? {}),
      },
      body: c.body,
    });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
  };
  // The endpoint variant is a function of the case so that a failure reproduces.
  const pick2 = (name: string): string => ['', '/v0.3', '/v0.2'][name.length % 3]!;

  it(`${CASES} seeded bad requests (seed ${SEED}) each get a JSON-RPC error: JSON, no 5xx, id echoed, a known code, never internal`, async () => {
    const cases = buildCases(SEED, CASES);
    const failures: string[] = [];
    const started = Date.now();
    for (const [i, c] of cases.entries()) {
      const r = await post(c);
      const where = `case ${i} (${c.name})`;
      let body: any;
      // A refused streaming method is a stream of exactly one error frame; everything else is JSON.
      const streamed = /^text\/event-stream/.test(r.contentType);
      try {
        body = streamed ? singleSseFrame(r.text) : JSON.parse(r.text);
      } catch {
        failures.push(`${where}: not JSON (${r.status} ${r.contentType}): ${r.text.slice(0, 120)}`);
        continue;
      }
      const problems: string[] = [];
      if (r.status !== 200) problems.push(`HTTP ${r.status}`);
      if (!/^application\/json/.test(r.contentType) && !(streamed && isStreamingCase(c)))
        problems.push(`content-type ${r.contentType}`);
      if (/<html|<!doctype/i.test(r.text)) problems.push('HTML');
      if (body?.jsonrpc !== '2.0') problems.push('jsonrpc');
      if (body?.result !== undefined) problems.push('a result');
      if (!Number.isInteger(body?.error?.code) || !KNOWN_CODES.has(body.error.code))
        problems.push(`code ${body?.error?.code}`);
      if (typeof body?.error?.message !== 'string') problems.push('message');
      if (body?.error?.data?.code === 'INTERNAL') problems.push('internal error');
      if (!Object.prototype.hasOwnProperty.call(body ?? {}, 'id') || body.id !== c.expectId)
        problems.push(`id ${JSON.stringify(body?.id)} instead of ${JSON.stringify(c.expectId)}`);
      if (problems.length > 0) failures.push(`${where}: ${problems.join(', ')}: ${r.text.slice(0, 160)}`);
    }
    expect(failures).toEqual([]);
    expect(cases.length).toBeGreaterThan(CASES);
    expect(Date.now() - started).toBeLessThan(60_000);

    // The server is still up and still serves real requests.
    expect((await fetch(`${system.baseUrl}/healthz`)).status).toBe(200);
    const ok = await rpc(
      `${system.baseUrl}/agents/${agent}/a2a`,
      { jsonrpc: '2.0', id: 'after', method: 'message/send', params: { message: textMessage('still alive') } },
      { key },
    );
    expect(ok.body.result.status.state).toBe('completed');
  }, 90_000);

  it('a body over the limit (BODY_LIMIT_BYTES) gets a JSON-RPC-shaped error with HTTP 413, not an HTML page', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 'big',
      method: 'message/send',
      params: { message: textMessage('x'.repeat(BODY_LIMIT_BYTES + 10)) },
    });
    const res = await fetch(`${system.baseUrl}/agents/${agent}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as {
      jsonrpc: string;
      id: unknown;
      error: { code: number; message: string; data: { code: string } };
    };
    expect(body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { code: expect.any(Number), message: expect.any(String), data: { code: 'PAYLOAD_TOO_LARGE' } },
    });
    expect(KNOWN_CODES.has(body.error.code)).toBe(true);
    // Announced too large by Content-Length alone, and streamed without a length: the same answer.
    const chunked = await fetch(`${system.baseUrl}/agents/${agent}/a2a`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: new ReadableStream({
        start(controller) {
          const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024));
          for (let i = 0; i < 6; i++) controller.enqueue(chunk);
          controller.close();
        },
      }),
      duplex: 'half',
    });
    expect(chunked.status).toBe(413);
    expect(((await chunked.json()) as { error: { data: { code: string } } }).error.data.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await fetch(`${system.baseUrl}/healthz`)).status).toBe(200);
  }, 60_000);

  it('valid JSON-RPC with an unusual Content-Type is still answered (the body is JSON whatever the header says)', async () => {
    for (const contentType of ['text/plain', 'application/json-rpc', 'application/octet-stream']) {
      const res = await fetch(`${system.baseUrl}/agents/${agent}/a2a`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: contentType,
          method: 'message/send',
          params: { message: textMessage(contentType) },
        }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: string; result: { status: { state: string } } };
      expect(body.id).toBe(contentType);
      expect(body.result.status.state).toBe('completed');
    }
  });

  it('other HTTP methods and unknown sub-paths of the endpoint answer JSON-RPC-shaped JSON, never HTML', async () => {
    for (const [method, path] of [
      ['GET', ''],
      ['PUT', '/v0.3'],
      ['DELETE', '/v0.2'],
      ['PATCH', ''],
    ] as const) {
      const res = await fetch(`${system.baseUrl}/agents/${agent}/a2a${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { jsonrpc: string; error: { code: number } };
      expect(body.jsonrpc).toBe('2.0');
      expect(KNOWN_CODES.has(body.error.code)).toBe(true);
    }
    const deeper = await rpc(
      `${system.baseUrl}/agents/${agent}/a2a/v0.3/extra`,
      { jsonrpc: '2.0', id: 'deep', method: 'message/send', params: {} },
      { key },
    );
    expect(deeper.status).toBeLessThan(500);
    expect(deeper.headers.get('content-type')).toMatch(/^application\/json/);
    expect(deeper.body.jsonrpc).toBe('2.0');
    expect(deeper.body.error.code).toBe(-32004);
  });
});

describe('A2A server-side failure', () => {
  let system: System;

  beforeAll(async () => {
    system = await startSystem({
      env: { PORT: '0', HOST: '127.0.0.1' },
      log: silentLogger(),
      resolver: conformanceResolver,
    });
  }, 120_000);
  afterAll(async () => {
    await system?.close();
  }, 60_000);

  it('-32603 | Internal error | server-side failure (the tasks service is gone): HTTP 200, a JSON-RPC error, nothing internal leaked', async () => {
    const key = system.tasks.seed!.credentials!.a2aKey;
    const url = `${system.baseUrl}/agents/demo-echo/a2a`;
    // Warm the gateway's key and agent lookups, then take the tasks service away.
    expect(
      (
        await rpc(
          url,
          { jsonrpc: '2.0', id: 'warm', method: 'message/send', params: { message: textMessage('warm') } },
          { key },
        )
      ).body.result.status.state,
    ).toBe('completed');
    await system.tasks.close();
    for (const method of ['message/send', 'tasks/get', 'message/stream']) {
      const r = await rpc(
        url,
        { jsonrpc: '2.0', id: `down-${method}`, method, params: { message: textMessage('down'), id: 'x' } },
        { key },
      );
      expect(r.status).toBe(200);
      // message/stream: the refusal is a stream of one error frame (what streaming clients read).
      const streamed = method === 'message/stream';
      expect(r.headers.get('content-type')).toMatch(streamed ? /^text\/event-stream/ : /^application\/json/);
      expect(streamed ? singleSseFrame(r.text) : r.body).toMatchObject({
        jsonrpc: '2.0',
        id: `down-${method}`,
        error: { code: -32603, message: 'Internal error' },
      });
      expect(r.text).not.toMatch(/grpc|ECONNREFUSED|stack|at /i);
    }
    expect((await fetch(`${system.baseUrl}/healthz`)).status).toBe(200);
  }, 60_000);
});
