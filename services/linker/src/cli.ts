// Developer CLI: `node services/linker/dist/cli.js <dir|git-url>... [--json] [--include-tests]`.
import { runCli } from './cli-run';

runCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`linker: ${String(err)}\n`);
    process.exitCode = 1;
  },
);
