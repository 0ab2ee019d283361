#!/usr/bin/env node
// An OpenAI-compatible Chat Completions server that answers at once (a fixed short answer, JSON or SSE), for
// bench/model-runtime.ts. Prints "LISTENING <port>".
import { createServer } from 'node:http';

const answer = JSON.stringify({
  id: 'c',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
});
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (body.includes('"stream":true')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        'data: {"choices":[{"index":0,"delta":{"content":"ok"}}]}\n\n' +
          'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}\n\n' +
          'data: [DONE]\n\n',
      );
    } else res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});
