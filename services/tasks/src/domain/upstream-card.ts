import { agentCardUrl, untrustedCardEndpoints, untrustedEndpointReason } from '@a2a-inbound/agent-definitions';
import { egressBlockedCause } from '@a2a-inbound/runtime';
import type { SkillDoc } from './control-model';

/** What a version of runtime `a2a-upstream` may claim: its upstream's own card, read when it is created. */
export interface UpstreamCard {
  /** The upstream's own description (empty when its card has none). */
  description: string;
  streaming: boolean;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: SkillDoc[];
}

export const UPSTREAM_CARD_TIMEOUT_MS = 10_000;
export const UPSTREAM_CARD_MAX_BYTES = 256 * 1024;

/** Why a card could not be used; the message is the reason shown to the caller. */
export class UpstreamCardError extends Error {}

/** The card names a service endpoint on an origin the version's token may not go to (ADR 0021, decision 9). */
export class UntrustedEndpointError extends UpstreamCardError {}

/**
 * Reads the upstream's agent card (`url`: the card or the agent's base URL, as the runtime reads it) through the
 * guarded egress `fetch` (the operator allow-list applies, redirects are checked), within `timeoutMs` and
 * `maxBytes`, and keeps what the version's card may claim. With `trustedOrigins` (the version sends a token),
 * a card naming a service endpoint on another origin is refused as the runner would refuse to call it.
 * Throws UpstreamCardError with the reason.
 */
export async function readUpstreamCard(
  url: string,
  fetchImpl: typeof fetch,
  options: {
    headers?: Record<string, string>;
    trustedOrigins?: ReadonlySet<string>;
    timeoutMs?: number;
    maxBytes?: number;
  } = {},
): Promise<UpstreamCard> {
  const timeoutMs = options.timeoutMs ?? UPSTREAM_CARD_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? UPSTREAM_CARD_MAX_BYTES;
  const cardUrl = agentCardUrl(url);
  const signal = AbortSignal.timeout(timeoutMs);
  let body: string;
  try {
    const res = await fetchImpl(cardUrl, { headers: { Accept: 'application/json', ...options.headers }, signal });
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      throw new UpstreamCardError(`${cardUrl} answered ${res.status}`);
    }
    body = await readCapped(res, maxBytes, cardUrl);
  } catch (err) {
    if (err instanceof UpstreamCardError) throw err;
    if (signal.aborted) throw new UpstreamCardError(`${cardUrl} did not answer within ${timeoutMs} ms`);
    const blocked = egressBlockedCause(err);
    if (blocked) throw new UpstreamCardError(blocked.message);
    const cause = (err as { cause?: { message?: unknown } }).cause?.message;
    throw new UpstreamCardError(
      `${cardUrl}: ${typeof cause === 'string' ? cause : err instanceof Error ? err.message : String(err)}`,
    );
  }
  let card: unknown;
  try {
    card = JSON.parse(body);
  } catch {
    throw new UpstreamCardError(`${cardUrl} is not JSON`);
  }
  const claims = cardClaims(card, cardUrl);
  const untrusted = options.trustedOrigins ? untrustedCardEndpoints(card, options.trustedOrigins) : [];
  if (untrusted.length > 0) throw new UntrustedEndpointError(untrustedEndpointReason(untrusted, url));
  return claims;
}

async function readCapped(res: Response, maxBytes: number, cardUrl: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  const tooLarge = (): UpstreamCardError => new UpstreamCardError(`${cardUrl} is larger than ${maxBytes} bytes`);
  if (declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const mediaList = (v: unknown): string[] | undefined =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.length <= 50 &&
  v.every((m) => typeof m === 'string' && /^[^\s/]+\/[^\s/]+$/.test(m) && m.length <= 200)
    ? (v as string[])
    : undefined;

const clip = (s: string, n: number): string => (s.length > n ? s.slice(0, n) : s);

/** The claims of an A2A 0.3 agent card; a card without its required fields is refused with the field named. */
function cardClaims(card: unknown, cardUrl: string): UpstreamCard {
  const invalid = (reason: string): UpstreamCardError =>
    new UpstreamCardError(`${cardUrl} is not an agent card: ${reason}`);
  if (!isObject(card)) throw invalid('not a JSON object');
  if (typeof card.url !== 'string' || !/^https?:\/\//i.test(card.url))
    throw invalid('url must be the http(s) URL of the agent');
  const caps = card.capabilities;
  if (!isObject(caps)) throw invalid('capabilities must be an object');
  if (caps.streaming !== undefined && typeof caps.streaming !== 'boolean')
    throw invalid('capabilities.streaming must be true or false');
  const input = mediaList(card.defaultInputModes);
  if (!input) throw invalid('defaultInputModes must be a non-empty list of media types');
  const output = mediaList(card.defaultOutputModes);
  if (!output) throw invalid('defaultOutputModes must be a non-empty list of media types');
  if (!Array.isArray(card.skills)) throw invalid('skills must be a list');
  const skills: SkillDoc[] = [];
  for (const [i, s] of card.skills.slice(0, 100).entries()) {
    if (!isObject(s) || typeof s.id !== 'string' || !s.id || typeof s.name !== 'string' || !s.name)
      throw invalid(`skills[${i}] must have an id and a name`);
    const texts = (v: unknown): string[] =>
      Array.isArray(v)
        ? v
            .filter((t): t is string => typeof t === 'string' && t.length > 0)
            .slice(0, 100)
            .map((t) => clip(t, 2000))
        : [];
    skills.push({
      id: clip(s.id, 2000),
      name: clip(s.name, 2000),
      description: clip(typeof s.description === 'string' && s.description ? s.description : s.name, 2000),
      tags: texts(s.tags),
      examples: texts(s.examples),
    });
  }
  return {
    description: typeof card.description === 'string' ? clip(card.description.trim(), 2000) : '',
    streaming: caps.streaming === true,
    defaultInputModes: input,
    defaultOutputModes: output,
    skills,
  };
}
