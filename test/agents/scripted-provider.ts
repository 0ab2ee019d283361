import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One Chat Completions request the scripted provider received. */
export interface SeenRequest {
  authorization: string | undefined;
  body: {
    model: string;
    stream?: boolean;
    messages: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[];
    tools?: { function: { name: string } }[];
  };
  /** Set when the client went away before the answer ended (a canceled run). */
  aborted: boolean;
}

/**
 * A real OpenAI-compatible HTTP server whose answers are scripted by the last user message:
 * - `stream: <text>` streams <text> word by word (20 ms apart); `slow: <text>` 300 ms apart (cancel);
 * - `weather <city>` asks for the `get_weather` tool, then answers with what the tool returned;
 * - `delete <id>` asks for the `delete_item` tool (an approval tool), then answers with its result;
 * - `call <tool> <JSON arguments>` asks for any tool (MCP tools: `server__tool`), then answers with its result;
 * - `fail429` / `fail500` always answer 429 / 500; `flaky` answers 500 once per conversation, then text;
 * - `fail401` answers 401 quoting the key it got (as some providers do); `hang` never answers;
 * - `recall` answers with every earlier user text it was sent (memory);
 * - anything else: `echo: <text>` (JSON or streamed).
 * It also serves the tool endpoints `GET /tools/weather/<city>` and `POST /tools/delete/<id>`.
 */
export class ScriptedProvider {
  readonly requests: SeenRequest[] = [];
  readonly toolCalls: { path: string; method: string; body: string; headers: Record<string, unknown> }[] = [];
  #server: Server;
  #flaky = new Set<string>();
  #open = new Set<ServerResponse>();
  url = '';

  constructor() {
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const r of this.#open) r.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((r) => this.#server.close(() => r()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '';
    if (path.startsWith('/tools/')) {
      this.toolCalls.push({ path, method: req.method ?? '', body: raw, headers: req.headers });
      res.setHeader('content-type', 'application/json');
      const [, , kind, arg] = path.split('?')[0]!.split('/');
      if (kind === 'weather') res.end(JSON.stringify({ city: decodeURIComponent(arg ?? ''), tempC: 21, sky: 'clear' }));
      else if (kind === 'delete') res.end(JSON.stringify({ deleted: decodeURIComponent(arg ?? '') }));
      else if (kind === 'big') res.end(JSON.stringify({ filler: 'x'.repeat(100_000) }));
      else res.writeHead(404).end('{}');
      return;
    }
    if (path !== '/v1/chat/completions' || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such route"}}');
      return;
    }
    const body = JSON.parse(raw) as SeenRequest['body'];
    const seen: SeenRequest = { authorization: req.headers.authorization, body, aborted: false };
    this.requests.push(seen);
    res.on('close', () => {
      if (!res.writableFinished) seen.aborted = true;
    });
    const users = body.messages.filter((m) => m.role === 'user');
    const last = users.at(-1);
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    const toolResults = body.messages.filter((m) => m.role === 'tool');
    const lastIsTool = body.messages.at(-1)?.role === 'tool';
    const json = (status: number, payload: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
    };
    const usage = {
      prompt_tokens: 10 + body.messages.length,
      completion_tokens: 5,
      total_tokens: 15 + body.messages.length,
    };

    if (text.startsWith('fail429')) return json(429, { error: { message: 'Rate limit reached for requests.' } }); // a sentence, as OpenAI's are
    if (text.startsWith('fail500')) return json(500, { error: { message: 'upstream overloaded' } });
    if (text.startsWith('fail401'))
      return json(401, {
        error: { message: `Incorrect API key provided: ${req.headers.authorization?.slice(7) ?? ''}` },
      });
    if (text.startsWith('hang')) {
      this.#open.add(res);
      return; // never answers
    }
    if (text.startsWith('flaky') && !this.#flaky.has(text)) {
      this.#flaky.add(text);
      return json(503, { error: { message: 'try again' } });
    }

    const toolCall = (name: string, args: Record<string, unknown>) => ({
      id: `call_${this.requests.length}`,
      type: 'function',
      function: { name, arguments: JSON.stringify(args) },
    });
    let answer: string | undefined;
    let call: ReturnType<typeof toolCall> | undefined;
    let delayMs = 20;
    const weather = /^weather (\S+)/.exec(text);
    const del = /^delete (\S+)/.exec(text);
    const named = /^call (\S+) (\{.*\})\s*$/.exec(text);
    if (named && !lastIsTool) call = toolCall(named[1]!, JSON.parse(named[2]!) as Record<string, unknown>);
    else if (weather && !lastIsTool) call = toolCall('get_weather', { city: weather[1] });
    else if (del && !lastIsTool) call = toolCall('delete_item', { id: del[1] });
    else if (lastIsTool) answer = `Tool said: ${String(toolResults.at(-1)?.content)}`;
    else if (text.startsWith('recall'))
      answer = `You said before: ${users
        .slice(0, -1)
        .map((u) => String(u.content))
        .join(' | ')}`;
    else if (text.startsWith('stream: ')) answer = text.slice(8);
    else if (text.startsWith('slow: ')) {
      answer = text.slice(6);
      delayMs = 300;
    } else answer = `echo: ${text}`;

    if (!body.stream) {
      return json(200, {
        id: 'cmpl-1',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: call
              ? { role: 'assistant', content: null, tool_calls: [call] }
              : { role: 'assistant', content: answer },
            finish_reason: call ? 'tool_calls' : 'stop',
          },
        ],
        usage,
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    this.#open.add(res);
    const send = (chunk: unknown): void => {
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    };
    if (call) {
      // Tool calls arrive in fragments: the name first, the arguments in two pieces.
      const args = call.function.arguments;
      send({
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                { index: 0, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
              ],
            },
          },
        ],
      });
      send({
        choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(0, 5) } }] } }],
      });
      send({
        choices: [
          {
            index: 0,
            delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(5) } }] },
            finish_reason: 'tool_calls',
          },
        ],
      });
    } else {
      const words = answer!.split(/(?<= )/);
      for (const w of words) {
        if (res.destroyed) return;
        send({ choices: [{ index: 0, delta: { content: w } }] });
        await new Promise((r) => setTimeout(r, delayMs));
      }
      send({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    }
    send({ choices: [], usage });
    res.end('data: [DONE]\n\n');
    this.#open.delete(res);
  }
}
