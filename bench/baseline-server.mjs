// The baseline of every HTTP benchmark: a bare Express JSON echo, measured in the same run.
import express from 'express';

const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/echo', (req, res) => {
  res.json({ jsonrpc: '2.0', id: req.body?.id ?? null, result: req.body?.params ?? null });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
