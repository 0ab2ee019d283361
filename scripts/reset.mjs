#!/usr/bin/env node
// `npm run reset [-- --yes]`: empties the durable embedded mode's data directory (DATA_DIR, default
// .data/embedded): every key, user, agent, secret, task and event. Asks first unless --yes; refuses while an
// `npm start` holds the directory.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';

const root = new URL('..', import.meta.url).pathname;
const raw = process.env.DATA_DIR || join(root, '.data', 'embedded');
const dir = isAbsolute(raw) ? raw : resolve(raw);
const out = (t) => process.stdout.write(`${t}\n`);

if (!existsSync(dir) || readdirSync(dir).length === 0) {
  out(`nothing to reset: ${dir} is empty`);
  process.exit(0);
}
const lock = join(dir, 'embedded.pid');
if (existsSync(lock)) {
  const pid = Number(readFileSync(lock, 'utf8').trim());
  let running = false;
  try {
    process.kill(pid, 0);
    running = true;
  } catch (err) {
    running = err.code === 'EPERM';
  }
  if (running) {
    process.stderr.write(`${dir} is in use by process ${pid}: stop it (Ctrl-C in its terminal) first\n`);
    process.exit(1);
  }
}
if (!process.argv.includes('--yes')) {
  if (!process.stdin.isTTY) {
    process.stderr.write(`npm run reset deletes everything in ${dir}: run it in a terminal, or add -- --yes\n`);
    process.exit(2);
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await rl.question(`Delete every key, user, agent, secret and task in ${dir}? Type "yes": `);
  rl.close();
  if (answer.trim() !== 'yes') {
    out('kept');
    process.exit(1);
  }
}
for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true });
out(`emptied ${dir}: the next npm start creates a new deployment and prints new credentials`);
