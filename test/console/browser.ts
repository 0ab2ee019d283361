import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

// Code passed to page.evaluate runs in the browser; the repository's lib has no DOM types, so its globals are loose here.
declare const document: any;
declare const window: any;

const require = createRequire(__filename);
export const ROOT = join(__dirname, '../..');
export const CONSOLE_DIST = join(ROOT, 'console', 'dist');
/** Where the tests put their screenshots (gitignored). */
export const SCREENSHOTS = join(ROOT, 'test-output', 'console-screenshots');

/** Debian's chromium (apt-get install chromium), or CHROMIUM_PATH. */
export function chromiumPath(): string | undefined {
  for (const p of [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'])
    if (p && existsSync(p)) return p;
  return undefined;
}

/** The console's static files: built by `npm run build`; built here when a test runs alone. */
export function ensureConsoleBuilt(): string {
  if (!existsSync(join(CONSOLE_DIST, 'index.html')))
    execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build'], {
      cwd: join(ROOT, 'console'),
      stdio: 'ignore',
    });
  return CONSOLE_DIST;
}

export async function launch(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('chromium is not installed: apt-get install -y chromium');
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A page that records CSP violations and page errors, which the tests then assert are none. */
export async function newPage(
  browser: Browser,
  width = 1280,
  options: { timezoneId?: string; permissions?: string[] } = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  return { context, page, problems };
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the current page (evaluated through DevTools, so the page's CSP does not block it). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            ctx: unknown,
            opts: unknown,
          ): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return result
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).join(', ')})`);
}

/** Elements reaching past the viewport's right edge (tables scroll inside their own `.scroll` region instead). */
export async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const wide = [...document.querySelectorAll('body *')]
      .filter(
        (e: any) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.parentElement?.closest('.scroll'),
      )
      .slice(0, 5)
      .map((e: any) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`);
    const sideways = document.documentElement.scrollWidth - window.innerWidth;
    return sideways > 1 ? [`the page scrolls ${sideways} px sideways`, ...wide] : wide;
  });
}

/**
 * Screenshots of the current page at 1280 and 390 px wide, full page. At 390 px nothing may reach past the
 * edge: a phone would scroll the whole page sideways (and the full-page shot would come out wider than 390).
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  let wide: string[] = [];
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    if (width === 390) wide = await overflowing(page);
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  if (wide.length > 0) throw new Error(`${name} overflows at 390 px: ${wide.join('; ')}`);
}

/**
 * Every enabled control on the page that Tab never reaches (by its tag, id, class and text). Each control is
 * marked, then Tab is pressed until all were focused or a generous limit is reached; controls inside a closed
 * <details> are not visible and not counted (its summary is).
 */
export async function unreachableByTab(page: Page): Promise<string[]> {
  const total = await page.evaluate(() => {
    const sel =
      'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';
    const els = [...document.querySelectorAll(sel)].filter((e: any) => e.checkVisibility());
    els.forEach((e: any, i: number) => e.setAttribute('data-kb', String(i)));
    document.activeElement?.blur?.();
    return els.length;
  });
  const seen = new Set<string>();
  for (let i = 0; i < total * 4 + 10 && seen.size < total; i += 1) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => document.activeElement?.getAttribute('data-kb') ?? null);
    if (id !== null) seen.add(id);
  }
  return page.evaluate(
    (reached: string[]) =>
      [...document.querySelectorAll('[data-kb]')]
        .filter((e: any) => !reached.includes(e.getAttribute('data-kb')))
        .map(
          (e: any) =>
            `${e.tagName.toLowerCase()}#${e.id}.${e.className} "${String(e.textContent ?? '')
              .trim()
              .slice(0, 40)}"`,
        ),
    [...seen],
  );
}
