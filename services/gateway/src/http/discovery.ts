import { isObject } from './rest';

/** Problems of an agent card against the spec's Agent card table (empty when valid). */
export function cardProblems(card: unknown): string[] {
  if (!isObject(card)) return ['the card is not a JSON object'];
  const p: string[] = [];
  const str = (k: string): void => {
    if (typeof card[k] !== 'string' || card[k].length === 0) p.push(`${k} must be a non-empty string`);
  };
  for (const k of ['protocolVersion', 'name', 'description', 'url', 'version']) str(k);
  if (card.preferredTransport !== 'JSONRPC') p.push('preferredTransport must be "JSONRPC"');
  if (typeof card.url === 'string' && !/^https?:\/\//.test(card.url)) p.push('url must be an absolute http(s) URL');
  const caps = card.capabilities;
  if (!isObject(caps)) p.push('capabilities must be an object');
  else
    for (const k of ['streaming', 'pushNotifications', 'stateTransitionHistory'])
      if (typeof caps[k] !== 'boolean') p.push(`capabilities.${k} must be a boolean`);
  const modes = (k: string, needed: string[]): void => {
    const v = card[k];
    if (!Array.isArray(v) || v.some((m) => typeof m !== 'string')) p.push(`${k} must be an array of media types`);
    else for (const n of needed) if (!v.includes(n)) p.push(`${k} must include ${n}`);
  };
  modes('defaultInputModes', ['text/plain', 'application/json']);
  modes('defaultOutputModes', ['text/plain', 'text/markdown', 'application/json']);
  const schemes = card.securitySchemes;
  const apiKey = isObject(schemes) ? schemes.apiKey : undefined;
  if (!isObject(apiKey) || apiKey.type !== 'http' || apiKey.scheme !== 'bearer')
    p.push('securitySchemes.apiKey must be { type: "http", scheme: "bearer" }');
  if (!Array.isArray(card.security) || !card.security.some((s) => isObject(s) && Array.isArray(s.apiKey)))
    p.push('security must contain { apiKey: [] }');
  if (!Array.isArray(card.skills)) p.push('skills must be an array');
  else
    card.skills.forEach((s: unknown, i: number) => {
      if (!isObject(s)) return void p.push(`skills[${i}] must be an object`);
      for (const k of ['id', 'name', 'description'])
        if (typeof s[k] !== 'string') p.push(`skills[${i}].${k} must be a string`);
      for (const k of ['tags', 'examples'])
        if (!Array.isArray(s[k]) || (s[k] as unknown[]).some((t) => typeof t !== 'string'))
          p.push(`skills[${i}].${k} must be an array of strings`);
    });
  const provider = card.provider;
  if (!isObject(provider) || typeof provider.organization !== 'string' || typeof provider.url !== 'string')
    p.push('provider must have organization and url strings');
  return p;
}

export interface FetchedJson {
  status: number;
  latencyMs: number;
  contentType: string;
  body: unknown;
  error?: string;
}

const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** GET as a client would: no credentials, no redirects followed, bounded time and size. */
export async function fetchJson(fetchImpl: typeof fetch, url: string, timeoutMs: number): Promise<FetchedJson> {
  const started = performance.now();
  try {
    const res = await fetchImpl(url, {
      method: 'GET',
      headers: { Accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const buf = await res.arrayBuffer();
    const latencyMs = Math.round((performance.now() - started) * 10) / 10;
    const contentType = res.headers.get('content-type') ?? '';
    if (buf.byteLength > MAX_BODY_BYTES)
      return { status: res.status, latencyMs, contentType, body: undefined, error: 'the body is larger than 5 MB' };
    try {
      return {
        status: res.status,
        latencyMs,
        contentType,
        body: JSON.parse(Buffer.from(buf).toString('utf8')) as unknown,
      };
    } catch {
      return { status: res.status, latencyMs, contentType, body: undefined, error: 'the body is not JSON' };
    }
  } catch (err) {
    const latencyMs = Math.round((performance.now() - started) * 10) / 10;
    const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return {
      status: 0,
      latencyMs,
      contentType: '',
      body: undefined,
      error: timedOut ? `no answer within ${timeoutMs} ms` : 'the request failed (connection error)',
    };
  }
}

export interface DiscoveryTestResult {
  ok: boolean;
  catalogUrl: string;
  status: number;
  latencyMs: number;
  contentType: string;
  entries: number;
  expectedEntries: number;
  problems: string[];
  cards: { agentId: string; cardUrl: string; status: number; latencyMs: number; ok: boolean; problems: string[] }[];
}

/**
 * Test Discovery: fetches the public catalog over HTTP, then every entry's card URL, and validates each
 * card (inline and fetched). `expectedEntries` is the banner's count of A2A-enabled agents.
 */
export async function testDiscovery(
  fetchImpl: typeof fetch,
  catalogUrl: string,
  expectedEntries: number,
  timeoutMs: number,
): Promise<DiscoveryTestResult> {
  const r = await fetchJson(fetchImpl, catalogUrl, timeoutMs);
  const problems: string[] = [];
  if (r.error) problems.push(r.error);
  if (r.status !== 200) problems.push(`the catalog answered HTTP ${r.status || 'nothing'}`);
  if (r.status === 200 && !/json/i.test(r.contentType))
    problems.push(`the catalog content type is ${r.contentType || 'missing'}, not JSON`);
  const rawEntries = isObject(r.body) && Array.isArray(r.body.entries) ? (r.body.entries as unknown[]) : undefined;
  if (r.body !== undefined && !rawEntries) problems.push('the catalog has no entries array');
  const entries = rawEntries ?? [];
  if (rawEntries && entries.length !== expectedEntries)
    problems.push(`the catalog lists ${entries.length} agents; ${expectedEntries} have A2A enabled`);
  const cards: DiscoveryTestResult['cards'] = [];
  for (const [i, e] of entries.slice(0, 100).entries()) {
    if (!isObject(e)) {
      problems.push(`entries[${i}] is not an object`);
      continue;
    }
    const meta = isObject(e.metadata) ? e.metadata : {};
    const agentId =
      typeof meta['dev.a2a-inbound.agentId'] === 'string'
        ? meta['dev.a2a-inbound.agentId']
        : typeof e.identifier === 'string'
          ? e.identifier
          : `entries[${i}]`;
    const cardUrl = typeof e.url === 'string' ? e.url : '';
    const cardChecks = cardProblems(e.data).map((x) => `inline card: ${x}`);
    let status = 0;
    let latencyMs = 0;
    if (!/^https?:\/\//.test(cardUrl)) cardChecks.push('the entry has no card URL');
    else {
      const c = await fetchJson(fetchImpl, cardUrl, timeoutMs);
      status = c.status;
      latencyMs = c.latencyMs;
      if (c.error) cardChecks.push(c.error);
      if (c.status !== 200) cardChecks.push(`the card answered HTTP ${c.status || 'nothing'}`);
      else cardChecks.push(...cardProblems(c.body));
    }
    cards.push({ agentId, cardUrl, status, latencyMs, ok: cardChecks.length === 0, problems: cardChecks });
  }
  return {
    ok: problems.length === 0 && cards.every((c) => c.ok),
    catalogUrl,
    status: r.status,
    latencyMs: r.latencyMs,
    contentType: r.contentType,
    entries: entries.length,
    expectedEntries,
    problems,
    cards,
  };
}
