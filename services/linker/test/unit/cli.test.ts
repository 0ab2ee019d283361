import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli-run';
import { EMPTY_STATE } from '../../src/domain/report';
import { FIXTURES } from './helpers';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (t) => (out += t), stderr: (t) => (err += t) });
  return { code, out, err };
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync(
    'git',
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args],
    { cwd, encoding: 'utf8' },
  ).trim();

describe('linker CLI', () => {
  let tmp: string;
  let firstCommit: string;

  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), 'linker-cli-'));
    // users-service as a git repository: v1 (tag) serves /api/users/me; a later commit removes it.
    const repo = join(tmp, 'users-service');
    cpSync(join(FIXTURES, 'routing-rules', 'users-service'), repo, { recursive: true });
    git(tmp, 'init', '-q', repo);
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'v1');
    git(repo, 'tag', 'v1');
    firstCommit = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'rm', '-q', 'src/app.ts');
    git(repo, 'commit', '-qm', 'remove routes');
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('prints the Markdown report of directories', async () => {
    const { code, out } = await cli(
      join(FIXTURES, 'routing-rules', 'web'),
      join(FIXTURES, 'routing-rules', 'users-service'),
      join(FIXTURES, 'routing-rules', 'accounts-go'),
      '--name',
      'routing-rules',
    );
    expect(code).toBe(0);
    expect(out).toContain('# Link report: routing-rules');
    expect(out).toContain('| API links | 5 |');
    expect(out).toContain(
      '| web src/api.ts:7 | GET /api/users/me | users-service src/app.ts:6 GET /api/users/me (express) | exact path |',
    );
  });

  it('reads a file:// git URL at a tag and at a commit; the default branch is the latest commit', async () => {
    const url = `file://${join(tmp, 'users-service')}`;
    const web = join(FIXTURES, 'routing-rules', 'web');
    for (const ref of ['v1', firstCommit]) {
      const { code, out } = await cli(web, `${url}#${ref}`, '--json');
      expect(code).toBe(0);
      const report = JSON.parse(out);
      expect(report.sources).toEqual(['users-service', 'web']);
      expect(report.table.map((r: { servedBy: string }) => r.servedBy)).toContain(
        'users-service src/app.ts:6 GET /api/users/me (express)',
      );
    }
    const head = JSON.parse((await cli(web, url, '--json')).out);
    expect(head.statistics.apiLinks).toBe(0);
  });

  it('shows the empty state when nothing crosses', async () => {
    const { code, out } = await cli(join(FIXTURES, 'independent', 'blog'), join(FIXTURES, 'independent', 'wiki'));
    expect(code).toBe(0);
    expect(out).toContain('# Link report: blog + wiki');
    expect(out).toContain(EMPTY_STATE);
  });

  it('includes test folders on request', async () => {
    const dirs = ['storefront', 'orders'].map((r) => join(FIXTURES, 'http-polyglot', r));
    const without = JSON.parse((await cli(...dirs, '--json')).out);
    const withTests = JSON.parse((await cli(...dirs, '--json', '--include-tests')).out);
    expect(withTests.statistics.apiLinks).toBe(without.statistics.apiLinks + 1);
  });

  it('fails with usage errors and unknown sources', async () => {
    expect((await cli()).code).toBe(2);
    expect((await cli('--bogus', '.')).code).toBe(2);
    for (const n of ['x', '-1', '1.5', '65']) expect((await cli('--workers', n, '.')).err).toContain('--workers takes');
    const missing = await cli(join(tmp, 'nope'));
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('neither a directory nor a git URL');
    const badGit = await cli(`file://${join(tmp, 'nope.git')}`);
    expect(badGit.code).toBe(1);
  });
  it('tells two folders of one name apart by the compose Dockerfile path (aggregator, aggregator-2)', async () => {
    const app = join(tmp, 'same-names');
    const files: Record<string, string> = {
      'compose/docker-compose.yml': [
        'services:',
        '  webagg:',
        '    build: { context: .., dockerfile: Web.Bff/aggregator/Dockerfile }',
        '  mobileagg:',
        '    build: { context: .., dockerfile: Mobile.Bff/aggregator/Dockerfile }',
        '',
      ].join('\n'),
      'Web.Bff/aggregator/server.js': 'const app = require("express")();\napp.get("/web/cart", h);\n',
      'Mobile.Bff/aggregator/server.js': 'const app = require("express")();\napp.get("/mobile/cart", h);\n',
      'shop/client.js': 'fetch("http://webagg/web/cart");\nfetch("http://mobileagg/mobile/cart");\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(app, path)), { recursive: true });
      writeFileSync(join(app, path), text);
    }
    const { code, out } = await cli(
      ...['Mobile.Bff/aggregator', 'Web.Bff/aggregator', 'compose', 'shop'].map((f) => join(app, f)),
      '--json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(out) as { table: { calls: string; servedBy: string }[] };
    expect(report.table.map((t) => `${t.calls} | ${t.servedBy}`)).toEqual([
      'GET webagg/web/cart | aggregator-2 server.js:2 GET /web/cart (express)',
      'GET mobileagg/mobile/cart | aggregator server.js:2 GET /mobile/cart (express)',
    ]);
  });
});
