// A parse worker (worker thread of `ParsePool`): parses and extracts the code files it is sent, one at a
// time, and answers each with its facts as plain data. Bundled beside each entry that holds the linker.
import { parentPort } from 'node:worker_threads';
import { type CodeFileJob, extractCodeFile } from './domain/extract/code-file';

if (!parentPort) throw new Error('parse-worker.js runs as a worker thread of the linker');
const port = parentPort;
port.on('message', (msg: { id: number; job: CodeFileJob }) => {
  extractCodeFile(msg.job).then(
    (result) => port.postMessage({ id: msg.id, result }),
    (err: unknown) => port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
