import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/**
 * A real MCP server (`McpServer` of @modelcontextprotocol/sdk over Streamable HTTP, with sessions) on a plain
 * Node http server the test starts. Two tools:
 * - `add` { a, b } → the sum as text;
 * - `lookup` { key } → `value of <key>`; `missing` answers `isError` ("no such key"), `throw` throws in the
 *   handler, `slow` answers after 2 s, `big` answers 100 000 characters.
 * With `token`, requests without `Authorization: Bearer <token>` get 401.
 */
export class TestMcpServer {
  readonly calls: { tool: string; args: unknown; authorization: string | undefined }[] = [];
  /** Sessions initialized, and the ones the client ended (DELETE) or that closed. */
  readonly opened: string[] = [];
  readonly closed: string[] = [];
  /** Every HTTP request the server got (method), to see the client's traffic. */
  readonly requests: string[] = [];
  url = '';
  #server: Server;
  #transports = new Map<string, StreamableHTTPServerTransport>();
  #auth: string | undefined;

  constructor(private readonly options: { token?: string } = {}) {
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/mcp`;
    return this;
  }

  async close(): Promise<void> {
    for (const t of this.#transports.values()) await t.close().catch(() => undefined);
    this.#server.closeAllConnections();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  /** Sessions still open on the server. */
  get openSessions(): number {
    return this.#transports.size;
  }

  #mcp(): McpServer {
    const server = new McpServer({ name: 'test-tools', version: '1.0.0' });
    server.registerTool(
      'add',
      { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
      ({ a, b }) => {
        this.calls.push({ tool: 'add', args: { a, b }, authorization: this.#auth });
        return { content: [{ type: 'text', text: String(a + b) }] };
      },
    );
    server.registerTool(
      'lookup',
      { description: 'Looks a key up', inputSchema: { key: z.string() } },
      async ({ key }) => {
        this.calls.push({ tool: 'lookup', args: { key }, authorization: this.#auth });
        if (key === 'missing') return { isError: true, content: [{ type: 'text', text: 'no such key: missing' }] };
        if (key === 'throw') throw new Error('the lookup backend is down');
        if (key === 'slow') await new Promise((r) => setTimeout(r, 2_000));
        if (key === 'big') return { content: [{ type: 'text', text: 'y'.repeat(100_000) }] };
        return { content: [{ type: 'text', text: `value of ${key}` }] };
      },
    );
    return server;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.requests.push(req.method ?? '');
    if (this.options.token && req.headers.authorization !== `Bearer ${this.options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    this.#auth = req.headers.authorization;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body: unknown = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    const sid = req.headers['mcp-session-id'];
    let transport = typeof sid === 'string' ? this.#transports.get(sid) : undefined;
    if (!transport) {
      if (typeof sid === 'string' || req.method !== 'POST') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"no such session"}');
        return;
      }
      const t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.opened.push(id);
          this.#transports.set(id, t);
        },
        onsessionclosed: (id) => {
          this.closed.push(id);
          this.#transports.delete(id);
        },
      });
      await this.#mcp().connect(t);
      transport = t;
    }
    await transport.handleRequest(req, res, body);
  }
}
