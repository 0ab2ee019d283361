import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// The benchmark is not a timed test: this only runs `bench/run.mjs` in its shortest mode against the embedded
// mode so that the command cannot rot (targets start, every case answers, the report is written in place).
const root = join(__dirname, '../..');
const MAIN = join(root, 'embedded/dist/main.js');

describe('bench/run.mjs (npm run bench), shortest mode, embedded only', () => {
  it('measures send, get, card, the first stream frame and idle streams, and writes the table between the markers', async () => {
    if (!existsSync(MAIN)) execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'ignore' });
    const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    const out = join(dir, 'performance.md');
    writeFileSync(
      out,
      '# Performance\n\nkept above\n\n<!-- bench:begin (written by `npm run bench`) -->\nold\n<!-- bench:end -->\n\nkept below\n',
    );
    const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'bench/run.mjs')], {
      env: {
        ...process.env,
        BENCH_SECONDS: '1',
        BENCH_CONCURRENCY: '2',
        BENCH_TARGETS: 'embedded',
        BENCH_IDLE_STREAMS: '20',
        BENCH_LOADGEN: 'node',
        BENCH_WARMUP_SECONDS: '1',
        BENCH_OUT: out,
      },
      timeout: 270_000,
    });
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('kept above');
    expect(text).toContain('kept below');
    expect(text).not.toContain('\nold\n');
    expect(stdout).toContain('| target | case | c | req/s |');
    // Written formatted (prettier pads the table), as the committed docs/performance.md must be.
    expect(text).not.toContain('|---|');
    expect(text).toMatch(/\n\| -+ \| -+ \| -+ \|/);
    const v1 = ['send-v1', 'get-v1', 'send-v1-rest', 'get-v1-rest', 'send-v1-grpc', 'get-v1-grpc'];
    // The primary, Node-driven comparison (0.3, its A/A control, 1.0 JSON-RPC and HTTP+JSON), the wrk A/A control.
    v1.push('get-node', 'send-node', 'get-node-aa', 'send-node-aa', 'get-v1-node', 'send-v1-node');
    v1.push('get-v1-rest-node', 'send-v1-rest-node', 'get-aa', 'send-aa');
    // The 0.3 request paced to the gRPC client's rate (ADR 0074).
    v1.push('get-node-paced', 'send-node-paced');
    for (const kase of ['send', 'get', 'card', 'stream-first', 'get+20sse', ...v1]) {
      const row = new RegExp(
        `\\| embedded +\\| ${kase.replace('+', '\\+')} +\\| \\d+ +\\| (\\d+) +\\|[^\\n]*\\| (\\d+) +\\|[^|]*\\|\\n`,
      ).exec(text);
      expect(row, kase).not.toBeNull();
      expect(Number(row![1]), `${kase} req/s`).toBeGreaterThan(0);
      expect(Number(row![2]), `${kase} errors`).toBe(0);
    }
    // Each 1.0 case beside its 0.3 one, as a ratio of server CPU per request.
    for (const [binding, op] of [
      ['JSON-RPC', 'get'],
      ['HTTP\\+JSON', 'get'],
      ['gRPC', 'get'],
      ['JSON-RPC', 'send'],
      ['HTTP\\+JSON', 'send'],
      ['gRPC', 'send'],
    ])
      // The ratio table: target, operation, binding, clients, c, rounds, each side's ms per request, median ratio
      // (one round: no interval);
      // each binding in the primary (Node / Node) comparison and the secondary one.
      for (const clients of ['Node / Node \\(primary\\)', '[^|]+ \\(secondary\\)'])
        expect(text).toMatch(
          new RegExp(
            `\\| embedded +\\| ${op} +\\| ${binding} +\\| ${clients} +\\| 2 +\\| 1 +\\| [\\d.]* / [\\d.]* +\\| \\d+\\.\\d\\d× +\\|`,
          ),
        );
    // gRPC against the 0.3 request at gRPC's rate.
    for (const op of ['get', 'send'])
      expect(text).toMatch(
        new RegExp(
          `\\| embedded +\\| ${op} +\\| gRPC +\\| Node / Node, 0\\.3 at gRPC's rate +\\| 2 +\\| 1 +\\| [\\d.]* / [\\d.]* +\\| \\d+\\.\\d\\d× +\\|`,
        ),
      );
    for (const op of ['get', 'send'])
      for (const clients of ['Node / Node \\(primary\\)', '[^|]+ \\(secondary\\)'])
        expect(text).toMatch(
          new RegExp(
            `\\| embedded +\\| ${op} +\\| A/A control \\(0\\.3 vs 0\\.3\\) +\\| ${clients} +\\| 2 +\\| 1 +\\| [\\d.]* / [\\d.]* +\\| \\d`,
          ),
        );
    expect(text).toMatch(/embedded: 20 idle SSE streams open \(0 refused\)/);
    expect(text).toMatch(
      /event-loop utilisation of the embedded process during each case: get-node c=2 [01]\.\d\d, .* get c=2 [01]\.\d\d, .* send c=2 [01]\.\d\d[,.]/,
    );
  }, 300_000);
});
