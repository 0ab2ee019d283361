import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the contract agent received (for assertions). */
export interface ContractRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: {
    contract: string;
    taskId: string;
    contextId: string;
    message: {
      messageId: string;
      role: string;
      parts: { kind: string; text?: string; file?: Record<string, string> }[];
    };
    history: { role: string; parts: { kind: string; text?: string }[] }[];
    resume?: unknown;
  };
}

/**
 * An agent of the `http` runtime's contract (docs/agent-http-contract.md), as a plain Node HTTP server, by path:
 * `/json` answers JSON; `/sse` streams `status`, three `delta`s and `final`; `/ask` asks a question
 * (`input-required` with `resume`) and answers with the resume state on the reply; `/fail` answers a final
 * `failed`; `/error-event` sends an SSE `error`; `/500` answers 500; `/bad-json`; `/huge` (2 MiB);
 * `/no-final` closes its stream without a final event; `/keepalive` sends only comments for 1.5 s, then answers; `/hang` never answers (records the disconnect).
 */
export interface ContractAgent {
  base: string;
  received: ContractRequest[];
  /** Paths whose request was closed by the caller before an answer (cancel, timeout). */
  disconnected: string[];
  close(): Promise<void>;
}

const textOf = (parts: { kind: string; text?: string }[]): string =>
  parts.map((p) => (p.kind === 'text' ? (p.text ?? '') : '')).join(' ');

export async function startContractAgent(): Promise<ContractAgent> {
  const received: ContractRequest[] = [];
  const disconnected: string[] = [];
  const hanging = new Set<ServerResponse>();
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const sse = (res: ServerResponse, events: [string, unknown][], end = true): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    if (end) res.end();
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as ContractRequest['body'];
      received.push({ path, headers: req.headers, body });
      const said = textOf(body.message?.parts ?? []);
      switch (path) {
        case '/json':
          return json(res, 200, { text: `json agent heard: ${said} (history ${body.history.length})` });
        case '/sse':
          return sse(res, [
            ['status', { message: 'thinking' }],
            ['delta', { text: 'Hel' }],
            ['ping', {}], // unknown events are ignored
            ['delta', { text: 'lo ' }],
            ['delta', { text: said }],
            ['final', { state: 'completed' }],
          ]);
        case '/ask':
          if (body.resume === undefined)
            return json(res, 200, {
              state: 'input-required',
              message: 'Which city?',
              resume: { step: 2, asked: said },
            });
          return json(res, 200, { text: `Booked ${JSON.stringify(body.resume)} in ${said}` });
        case '/fail':
          return json(res, 200, { state: 'failed', message: 'the model is overloaded' });
        case '/error-event':
          return sse(res, [
            ['delta', { text: 'partial' }],
            ['error', { message: 'tool crashed' }],
          ]);
        case '/500':
          return json(res, 500, { error: 'database down' });
        case '/bad-json':
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"text": ');
          return;
        case '/huge':
          return json(res, 200, { text: 'x'.repeat(2 * 1024 * 1024) });
        case '/no-final':
          return sse(res, [['delta', { text: 'half' }]]);
        case '/keepalive': {
          // Only comments for 1.5 s, then the answer.
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const ping = setInterval(() => res.write(': still working\n\n'), 300);
          setTimeout(() => {
            clearInterval(ping);
            res.end(`event: final\ndata: ${JSON.stringify({ text: 'done after 1.5 s' })}\n\n`);
          }, 1_500);
          return;
        }
        case '/hang':
          hanging.add(res);
          res.on('close', () => {
            if (!res.writableEnded) disconnected.push(path);
            hanging.delete(res);
          });
          return;
        default:
          return json(res, 404, { error: 'no such agent' });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    disconnected,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
