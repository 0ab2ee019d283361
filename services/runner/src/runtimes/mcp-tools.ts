import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { MCP_TOOL_SEPARATOR, MODEL_LIMITS, type McpServerDefinition } from '@a2a-inbound/agent-definitions';
import type { Logger } from '@a2a-inbound/logger';
import { blockedCause, type GuardedFetch } from './guarded-fetch';
import { checkArguments } from './http-tools';

/** One MCP tool as the model sees it (`<server>__<tool>`), and where it goes. */
export interface McpTool {
  /** The name the model calls: `<server>__<tool>`. */
  name: string;
  server: string;
  /** The server's own name of the tool. */
  toolName: string;
  description: string;
  /** JSON Schema (type object) of the arguments, as the server lists it. */
  parameters: Record<string, unknown>;
  requiresApproval: boolean;
}

/** A server that could not be connected or listed: the run ends `failed` with this reason. */
export class McpConnectError extends Error {
  constructor(
    readonly server: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'McpConnectError';
  }
}

const CLIENT_INFO = { name: 'a2a-inbound-runner', version: '1.0.0' };
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Pages of `tools/list` read at most per server (a server that never stops paging is cut). */
const MAX_LIST_PAGES = 10;
/** Time given to ending the sessions (DELETE) when the run ends or is canceled. */
const CLOSE_GRACE_MS = 2_000;

/** Headers of a RequestInit as a plain record (the SDK gives a Headers object, tuples or a record). */
function plainHeaders(h: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  new Headers(h).forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

/**
 * The SDK transport's `fetch`, through the runner's guarded egress (SSRF checks and the allow-list on every
 * connection, redirects included), aborted with the run.
 */
export function mcpFetch(fetch: GuardedFetch, runSignal: AbortSignal) {
  return async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string')
      throw new TypeError('MCP transport: only text request bodies are supported');
    return fetch(String(url), {
      method: (init.method ?? 'GET').toUpperCase(),
      headers: plainHeaders(init.headers),
      ...(typeof body === 'string' ? { body } : {}),
      signal: init.signal ? AbortSignal.any([runSignal, init.signal]) : runSignal,
    });
  };
}

/** Why a server could not be used, in words a user can act on (never the header values). */
function connectReason(server: McpServerDefinition, err: unknown): string {
  const what = `MCP server "${server.name}" (${server.url})`;
  const blocked = blockedCause(err);
  if (blocked)
    return `${what} is not allowed by the egress policy (${blocked.host}); an operator can add it to EGRESS_ALLOW_HOSTS or EGRESS_ALLOW_CIDRS.`;
  if (err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number))
    return `${what} did not answer within ${server.timeoutMs} ms (timeoutMs of the server in the agent version).`;
  const msg = err instanceof Error ? err.message : String(err);
  if (/\b401\b|\b403\b|unauthori[sz]ed|forbidden/i.test(msg))
    return `${what} refused the credentials; check its headerSecrets.`;
  return `${what} could not be used: ${msg.slice(0, 300)}. Check its url and that it speaks MCP over Streamable HTTP.`;
}

/** The text of an MCP tool result's content, as the model reads it (binary content described, not inlined). */
export function resultText(content: readonly Record<string, unknown>[]): string {
  const str = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
  return content
    .map((c) => {
      switch (c.type) {
        case 'text':
          return str(c.text);
        case 'image':
        case 'audio':
          return `[${c.type} (${str(c.mimeType, 'unknown type')}), ${Buffer.byteLength(str(c.data), 'base64')} bytes; not shown to you]`;
        case 'resource': {
          const r = (c.resource ?? {}) as Record<string, unknown>;
          return typeof r.text === 'string' ? `Resource ${str(r.uri)}:\n${r.text}` : `[resource ${str(r.uri)}]`;
        }
        case 'resource_link':
          return `[resource link: ${str(c.name)} ${str(c.uri)}]`;
        default:
          return JSON.stringify(c);
      }
    })
    .join('\n');
}

/** Cuts a text to `maxBytes` of UTF-8 (no broken character at the end). */
function capBytes(text: string, maxBytes: number): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.byteLength <= maxBytes) return { text, truncated: false };
  return {
    text: buf
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/\uFFFD$/, ''),
    truncated: true,
  };
}

interface Connected {
  def: McpServerDefinition;
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/**
 * The MCP sessions of one run: connected at run start (each server of the version, concurrently), tools listed
 * once (the run's cache), every call through the guarded egress with the server's timeout and result cap,
 * closed at run end and when the run is canceled.
 */
export class McpSessions {
  readonly tools = new Map<string, McpTool>();
  readonly #servers = new Map<string, Connected>();
  #closed = false;
  /** Aborts the transports' requests once the sessions are closed (the run's cancel ends the calls first). */
  readonly #life = new AbortController();
  readonly #onAbort = (): void => void this.close();

  private constructor(
    private readonly signal: AbortSignal,
    private readonly log: Logger,
  ) {}

  /**
   * Connects to every server and lists its tools. A server that cannot be reached, refuses the headers or
   * is blocked by the egress policy throws McpConnectError (the sessions already open are closed).
   */
  static async open(
    servers: readonly McpServerDefinition[],
    deps: {
      fetch: GuardedFetch;
      log: Logger;
      signal: AbortSignal;
      headers(server: McpServerDefinition): Record<string, string>;
      /** Tools offered from all servers at most (default MODEL_LIMITS.mcpTools.max). */
      maxTools?: number;
    },
  ): Promise<McpSessions> {
    const sessions = new McpSessions(deps.signal, deps.log);
    deps.signal.addEventListener('abort', sessions.#onAbort, { once: true });
    try {
      const listed = await Promise.all(servers.map((s) => sessions.#connect(s, deps)));
      let budget: number = deps.maxTools ?? MODEL_LIMITS.mcpTools.max;
      for (const tools of listed)
        for (const t of tools) {
          if (budget <= 0) {
            deps.log.warn({ server: t.server, tool: t.toolName }, 'MCP tool not offered: too many MCP tools');
            continue;
          }
          sessions.tools.set(t.name, t);
          budget -= 1;
        }
      return sessions;
    } catch (err) {
      await sessions.close();
      throw err;
    }
  }

  async #connect(
    def: McpServerDefinition,
    deps: { fetch: GuardedFetch; signal: AbortSignal; headers(server: McpServerDefinition): Record<string, string> },
  ): Promise<McpTool[]> {
    const transport = new StreamableHTTPClientTransport(new URL(def.url), {
      fetch: mcpFetch(deps.fetch, this.#life.signal),
      requestInit: { headers: deps.headers(def) },
      // The session lives as long as the run: no reconnect loops after the run has gone.
      reconnectionOptions: {
        maxRetries: 0,
        initialReconnectionDelay: 1_000,
        maxReconnectionDelay: 1_000,
        reconnectionDelayGrowFactor: 1,
      },
    });
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    this.#servers.set(def.name, { def, client, transport });
    const opts = { timeout: def.timeoutMs, signal: deps.signal };
    try {
      await client.connect(transport, opts);
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const r = await client.listTools(cursor ? { cursor } : {}, opts);
        for (const t of r.tools) {
          if (def.allowTools && !def.allowTools.includes(t.name)) continue;
          const name = `${def.name}${MCP_TOOL_SEPARATOR}${t.name}`;
          if (!TOOL_NAME.test(name)) {
            this.log.warn(
              { server: def.name, tool: t.name.slice(0, 100) },
              'MCP tool not offered: its name is not a valid function name',
            );
            continue;
          }
          const schema = (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>;
          const { $schema: _drop, ...parameters } = schema;
          tools.push({
            name,
            server: def.name,
            toolName: t.name,
            description: (t.description ?? t.title ?? '').slice(0, 2_000),
            parameters: { ...parameters, type: 'object' },
            requiresApproval: def.approval === true || (Array.isArray(def.approval) && def.approval.includes(t.name)),
          });
        }
        cursor = r.nextCursor;
        if (!cursor) break;
      }
      return tools;
    } catch (err) {
      if (deps.signal.aborted) throw err;
      throw new McpConnectError(def.name, connectReason(def, err));
    }
  }

  /**
   * Calls a tool: the answer is what the model reads. Tool errors (`isError`), protocol errors, timeouts and
   * blocked destinations are answers too (`{"error": …}`); only a cancel of the run propagates.
   */
  async call(name: string, rawArguments: string): Promise<string> {
    const tool = this.tools.get(name);
    const server = tool && this.#servers.get(tool.server);
    if (!tool || !server) return JSON.stringify({ error: `there is no tool named "${name}"` });
    let args: unknown;
    try {
      args = rawArguments.trim() ? JSON.parse(rawArguments) : {};
    } catch {
      return JSON.stringify({ error: 'the arguments are not valid JSON' });
    }
    const bad = checkArguments(tool.parameters, args);
    if (bad) return JSON.stringify({ error: bad });
    const { def, client } = server;
    try {
      const r = await client.callTool({ name: tool.toolName, arguments: args as Record<string, unknown> }, undefined, {
        timeout: def.timeoutMs,
        signal: this.signal,
      });
      const content = Array.isArray(r.content) ? (r.content as Record<string, unknown>[]) : [];
      let text = resultText(content);
      if (!text && r.structuredContent !== undefined) text = JSON.stringify(r.structuredContent);
      if (!text && 'toolResult' in r) text = JSON.stringify(r.toolResult);
      const capped = capBytes(text, def.maxResultBytes);
      const cut = capped.truncated ? { truncated: `the result was cut at ${def.maxResultBytes} bytes` } : {};
      return JSON.stringify(
        r.isError ? { error: capped.text || 'the tool failed', ...cut } : { result: capped.text, ...cut },
      );
    } catch (err) {
      if (this.signal.aborted) throw err;
      if (err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number))
        return JSON.stringify({ error: `the tool did not answer within ${def.timeoutMs} ms` });
      const blocked = blockedCause(err);
      if (blocked)
        return JSON.stringify({
          error: `the tool server's address (${blocked.host}) is not allowed by the egress policy`,
        });
      if (err instanceof McpError)
        return JSON.stringify({ error: `the tool server answered with an error: ${err.message.slice(0, 500)}` });
      this.log.warn(
        { server: def.name, tool: tool.toolName, err: err instanceof Error ? err.message : String(err) },
        'MCP tool call failed',
      );
      return JSON.stringify({ error: 'the tool server could not be reached' });
    }
  }

  /**
   * Ends every session, at run end and on cancel: a DELETE for servers that keep sessions (at most
   * CLOSE_GRACE_MS), then the transport; idempotent.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.signal.removeEventListener('abort', this.#onAbort);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => {
      timer = setTimeout(r, CLOSE_GRACE_MS);
    });
    await Promise.race([
      grace,
      Promise.all(
        [...this.#servers.values()].map(({ transport }) =>
          transport.sessionId ? transport.terminateSession().catch(() => undefined) : Promise.resolve(),
        ),
      ),
    ]);
    clearTimeout(timer);
    this.#life.abort();
    await Promise.all([...this.#servers.values()].map(({ client }) => client.close().catch(() => undefined)));
  }
}
