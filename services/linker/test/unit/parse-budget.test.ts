import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemoryDocumentStore, SequentialIds, systemClock } from '@a2a-inbound/ports';
import { extractSource, type SourceFile } from '../../src/domain/extract/index';
import { LinkerService } from '../../src/domain/linker-service';
import { buildReport, renderMarkdown } from '../../src/domain/report';
import { fetchSource, listSourceFiles } from '../../src/ingest/index';

// ~900 KB of deeply nested arrays (under the 1 MiB file limit): tree-sitter takes seconds over it.
const PATHOLOGICAL = Array.from(
  { length: 14_000 },
  (_, i) => `const a${i} = [${'['.repeat(24)}1${']'.repeat(24)}];`,
).join('\n');
const SERVER =
  "import express from 'express';\nconst app = express();\napp.get('/api/items', (req, res) => res.json([]));\n";
const CLIENT = "export const load = () => fetch('http://items:8080/api/items');\n";

const files = (entries: Record<string, string>): SourceFile[] =>
  Object.entries(entries).map(([path, text]) => ({ path, read: () => Promise.resolve(text) }));

describe('parse time budget', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'linker-budget-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('a file over its parse budget is skipped with the reason in the report; the others are analysed', async () => {
    const started = performance.now();
    const items = await extractSource('items', files({ 'src/generated.ts': PATHOLOGICAL, 'src/server.ts': SERVER }), {
      parseBudgetMs: 50,
    });
    // Cut at the budget, not parsed to the end (which takes seconds).
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(items.skippedFiles).toEqual([{ path: 'src/generated.ts', reason: 'parse took longer than 50 ms' }]);
    expect(items.endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(['GET /api/items']);
    const web = await extractSource('web', files({ 'src/api.ts': CLIENT }), { parseBudgetMs: 50 });
    const report = buildReport([items, web], { application: 'app' });
    expect(report.table.map((r) => `${r.caller} → ${r.servedBy}`)).toEqual([
      'web src/api.ts:1 → items src/server.ts:3 GET /api/items (express)',
    ]);
    expect(report.skippedFiles).toEqual([
      { source: 'items', file: 'src/generated.ts', reason: 'parse took longer than 50 ms' },
    ]);
    expect(renderMarkdown(report)).toContain(
      '### Skipped files\n\nRead but not analysed: their calls, routes and messages are missing above.\n\n- items src/generated.ts — parse took longer than 50 ms',
    );
  });

  it('without a skipped file the report has no such section (existing reports unchanged)', async () => {
    const web = await extractSource('web', files({ 'src/api.ts': CLIENT }));
    const items = await extractSource('items', files({ 'src/server.ts': SERVER }));
    const report = buildReport([web, items], { application: 'app' });
    expect(report.skippedFiles).toBeUndefined();
    expect(renderMarkdown(report)).not.toContain('Skipped files');
  });

  it("the service's parse stage lists the skipped file (LINKER_PARSE_BUDGET_MS)", async () => {
    const root = join(tmp, 'items');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'src', 'generated.ts'), PATHOLOGICAL);
    writeFileSync(join(root, 'src', 'server.ts'), SERVER);
    const service = await LinkerService.open({
      store: new InMemoryDocumentStore(),
      clock: systemClock,
      ids: new SequentialIds('t'),
      allowedLocalRoots: [tmp],
      access: { fetch: (l) => fetchSource(l, { allowedDirs: [tmp] }), list: (r, o) => listSourceFiles(r, o) },
      parseBudgetMs: 50,
    });
    const caller = { subscriptionId: 's', role: 'developer' } as const;
    const app = await service.createApplication(caller, 'app');
    await service.addSource(caller, app.id, 'items', { kind: 'dir', path: root });
    const v = await service.ingest(caller, app.id, 'items');
    expect(v.status).toBe('completed');
    expect(v.stages.find((s) => s.name === 'parse')?.detail).toBe(
      'skipped 1 file: src/generated.ts (parse took longer than 50 ms)',
    );
  });
});
