import { expandUrlTemplate, UrlTemplateError, type HttpToolDefinition } from '@a2a-inbound/agent-definitions';
import { blockedCause, readCapped, type GuardedFetch } from './guarded-fetch';

/**
 * Checks arguments against the tool's JSON Schema as far as a model's mistakes go: an object, the required
 * properties present, declared properties of the declared primitive type. Undefined when fine; else why.
 */
export function checkArguments(schema: Record<string, unknown>, args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'arguments must be a JSON object';
  const a = args as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  for (const r of required) if (typeof r === 'string' && !(r in a)) return `missing required argument "${r}"`;
  const props = (schema.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown }>;
  for (const [k, v] of Object.entries(a)) {
    const p = props[k];
    if (!p) {
      if (schema.additionalProperties === false) return `unknown argument "${k}"`;
      continue;
    }
    if (Array.isArray(p.enum) && !p.enum.includes(v)) return `argument "${k}" must be one of ${JSON.stringify(p.enum)}`;
    const types = Array.isArray(p.type) ? p.type : p.type === undefined ? [] : [p.type];
    if (types.length > 0 && !types.some((t) => typeMatches(String(t), v)))
      return `argument "${k}" must be of type ${types.join(' or ')}`;
  }
  return undefined;
}

function typeMatches(t: string, v: unknown): boolean {
  switch (t) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number';
    case 'integer':
      return Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'null':
      return v === null;
    default:
      return true;
  }
}

/** An argument as text: strings as they are, anything else as JSON. */
const scalar = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * The request a tool call makes: placeholders filled (each value percent-encoded as one component, the origin
 * the template's literal one), the other arguments as query or JSON body.
 */
export function toolRequest(
  tool: HttpToolDefinition,
  args: Record<string, unknown>,
): { url: string; method: string; body: string | undefined } {
  const used = new Set<string>();
  // Throws UrlTemplateError when a value would leave the path or query (or a stored template is unsafe).
  const url = expandUrlTemplate(tool.url, (name) => {
    used.add(name);
    const v = args[name];
    return v === undefined || v === null ? '' : scalar(v);
  });
  const rest = Object.entries(args).filter(([k]) => !used.has(k));
  let body: string | undefined;
  if (tool.method === 'GET' || tool.method === 'DELETE') {
    for (const [k, v] of rest) url.searchParams.set(k, scalar(v));
  } else {
    body = JSON.stringify(Object.fromEntries(rest));
  }
  return { url: url.toString(), method: tool.method, body };
}

/**
 * Calls an HTTP tool through the guarded egress, with its timeout and response cap. The answer is what the
 * model reads: the status and the body (JSON as is, text truncated at the cap). Failures are answers too
 * (the model can try something else); only a cancel of the run propagates.
 */
export async function callHttpTool(
  fetch: GuardedFetch,
  tool: HttpToolDefinition,
  rawArguments: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<string> {
  let args: unknown;
  try {
    args = rawArguments.trim() ? JSON.parse(rawArguments) : {};
  } catch {
    return JSON.stringify({ error: 'the arguments are not valid JSON' });
  }
  const bad = checkArguments(tool.parameters, args);
  if (bad) return JSON.stringify({ error: bad });
  let req: ReturnType<typeof toolRequest>;
  try {
    req = toolRequest(tool, args as Record<string, unknown>);
  } catch (err) {
    if (err instanceof UrlTemplateError) return JSON.stringify({ error: err.message });
    throw err;
  }
  const { url, method, body } = req;
  const timeout = AbortSignal.timeout(tool.timeoutMs);
  try {
    const res = await fetch(url, {
      method,
      headers: {
        accept: 'application/json, text/plain;q=0.9, */*;q=0.1',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body } : {}),
      signal: AbortSignal.any([signal, timeout]),
    });
    const { text, truncated } = await readCapped(res, tool.maxResponseBytes);
    let parsed: unknown = text;
    if (!truncated && (res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return JSON.stringify({
      status: res.status,
      body: parsed,
      ...(truncated ? { truncated: `the response was cut at ${tool.maxResponseBytes} bytes` } : {}),
    });
  } catch (err) {
    if (signal.aborted) throw err;
    if (timeout.aborted) return JSON.stringify({ error: `the tool did not answer within ${tool.timeoutMs} ms` });
    const blocked = blockedCause(err);
    if (blocked)
      return JSON.stringify({ error: `the tool's address (${blocked.host}) is not allowed by the egress policy` });
    return JSON.stringify({ error: 'the tool could not be reached' });
  }
}
