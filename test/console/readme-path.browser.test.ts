import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { chromiumPath, launch, newPage, ROOT, seriousViolations } from './browser';

/**
 * The README's promise, literally: a user with only what `npm start` prints (the console URL and the admin
 * token) gets a streamed answer in the console in under a minute. It runs the bundle `npm start` runs
 * (embedded/dist/main.js, built by `npm run build`), reads the banner, and follows the README's steps with
 * nothing chosen beyond them: sign in, API keys → Create key, Test console → Send.
 */
const MAIN = join(ROOT, 'embedded/dist/main.js');
const browserPath = chromiumPath();
const maybe = browserPath || process.env.CI === 'true' ? describe : describe.skip;

maybe('README: from npm start to a streamed answer in the console', { timeout: 120_000 }, () => {
  let browser: Browser;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    // `npm test` builds first; a bare `npx vitest run` on a fresh clone builds here.
    if (!existsSync(MAIN) || !existsSync(join(ROOT, 'embedded/dist/console/index.html')))
      execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'ignore' });
    browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('prints the console URL and the admin token; with them alone a message/stream answer arrives in under a minute', async () => {
    const started = Date.now();
    child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', STORE: 'memory', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const deadline = Date.now() + 30_000;
    while (!/admin token:\s+\S+\n/.test(out)) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no banner:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const consoleUrl = /web console:\s+(http:\/\/\S+\/console\/)/.exec(out)?.[1];
    const adminToken = /admin token:\s+(\S+)/.exec(out)?.[1];
    expect(consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/$/);
    expect(adminToken).toMatch(/^usr_/);

    const { context, page, problems } = await newPage(browser);
    // "open the console URL, paste the printed admin token, sign in"
    await page.goto(consoleUrl!);
    await page.getByLabel('User token').fill(adminToken!);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // "API keys → Create key (scope a2a) shows the value once"
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('.once .key-value').waitFor();
    expect(await page.locator('.key-value').textContent()).toMatch(/^a2a_/);
    // "Test console (the default agent Demo Echo Agent, method message/stream and the new key are preselected) → Send"
    await page.getByRole('link', { name: 'Test console', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Test console' }).waitFor();
    const agent = page.getByLabel('Agent', { exact: true });
    await expect.poll(() => agent.inputValue(), { timeout: 15_000 }).toBe('demo-echo');
    expect(await agent.locator('option:checked').textContent()).toContain('Demo Echo Agent');
    expect(await page.getByLabel('Method', { exact: true }).inputValue()).toBe('message/stream');
    expect(await page.getByLabel('Key (scope a2a)').inputValue()).toMatch(/^a2a key \(a2a_/);
    await page.getByRole('button', { name: 'Send' }).click();
    // "the stream frames appear as they arrive, with the answer text and the credits left"
    await expect.poll(() => page.locator('p.status').textContent(), { timeout: 30_000 }).toContain('Stream ended');
    expect(await page.locator('p.status').getAttribute('class')).toContain('ok');
    const frames = await page.locator('ol.frames > li').allTextContents();
    expect(frames.length).toBeGreaterThan(2);
    expect(frames.at(-1)).toContain('"final":true');
    expect((await page.locator('.answer-text').first().textContent())?.trim()).not.toBe('');
    expect(await page.locator('.credits-left').textContent()).toMatch(/^\d+$/);
    const seconds = (Date.now() - started) / 1000;
    process.stdout.write(`README path: npm start's bundle to a streamed answer in ${seconds.toFixed(1)} s\n`);
    expect(seconds).toBeLessThan(60);
    expect(await seriousViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
