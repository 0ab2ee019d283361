/**
 * Linker scale check: an application of 1,000 source files across five repositories (TypeScript,
 * C#, Java, Python, Go) is ingested (list + read + tree-sitter parse + extract) and linked.
 * Prints wall time, peak RSS and the ratio against a baseline measured in the same run: a plain
 * recursive read of the same files. Target: under 5 s with bounded memory on a 2-core machine; 5,000
 * files (BENCH_FILES=5000, the polyglot application of issue 20) under 20 s. Code files are parsed by the
 * linker's parse workers (BENCH_WORKERS, default LINKER_PARSE_WORKERS' default: one per core, at most four; 0:
 * the main thread), whose script is bundled beside the bench. BENCH_PHASES=1 first measures each phase's CPU on
 * one thread (parse, extract, link, report; the peak RSS then includes that pass):
 *
 *   npx esbuild bench/linker-1000.ts services/linker/src/parse-worker.ts --bundle --platform=node \
 *     --external:web-tree-sitter --external:yaml --entry-names=[name] --outdir=/tmp/linker-bench
 *   NODE_PATH=$PWD/node_modules node /tmp/linker-bench/linker-1000.js
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryDocumentStore, SequentialIds, systemClock } from '@a2a-inbound/ports';
import {
  buildReport,
  extractSource,
  fetchSource,
  LinkerService,
  languageOf,
  listSourceFiles,
  parse,
  ParsePool,
  renderMarkdown,
  defaultParseWorkers,
} from '@a2a-inbound/linker';

const FILES = Number(process.env.BENCH_FILES ?? 1000);
const WORKERS = Number(process.env.BENCH_WORKERS ?? defaultParseWorkers());
const REPOS = ['shop-ts', 'orders-cs', 'catalog-java', 'billing-py', 'shipping-go'] as const;
const FILLER = 40; // lines of ordinary code per file, so files look like real ones
/** Each file calls the matching file of the next repository (round robin), so every call links. */
const next = (i: number): number => (i + 1) % FILES;

function tsFile(i: number): string {
  const fill = Array.from(
    { length: FILLER },
    (_, k) => `  const v${k} = items.filter((x) => x.id !== ${k}).map((x) => ({ ...x, n: ${k} }));`,
  ).join('\n');
  return `import express from 'express';\nconst app = express();\nconst BASE = process.env.ORDERS_URL ?? 'http://orders-cs:8080';\n
export function handler${i}(items: { id: number }[]) {\n${fill}\n  return items;\n}\n
app.get('/api/shop/${i}/:id', async (req, res) => {\n  const r = await fetch(\`\${BASE}/api/orders/${next(i)}/\${req.params.id}\`);\n  res.json(await r.json());\n});\n`;
}
function csFile(i: number): string {
  const fill = Array.from(
    { length: FILLER },
    (_, k) => `        var v${k} = items.Where(x => x.Id != ${k}).Select(x => x.Id + ${k}).ToList();`,
  ).join('\n');
  return `using Microsoft.AspNetCore.Mvc;\n\n[ApiController]\n[Route("api/orders/${i}")]\npublic class Orders${i}Controller : ControllerBase\n{\n    [HttpGet("{id:int}")]\n    public async Task<IActionResult> Get(int id)\n    {\n${fill}\n        await _http.GetAsync($"http://catalog-java/api/catalog/${next(i)}/{id}");\n        return Ok();\n    }\n}\n`;
}
function javaFile(i: number): string {
  const fill = Array.from(
    { length: FILLER },
    (_, k) => `        List<Integer> v${k} = items.stream().filter(x -> x != ${k}).collect(Collectors.toList());`,
  ).join('\n');
  return `package com.acme.catalog;\n\n@RestController\n@RequestMapping("/api/catalog/${i}")\npublic class Catalog${i}Controller {\n    @GetMapping("/{sku}")\n    public Product get(@PathVariable String sku) {\n${fill}\n        return restTemplate.getForObject("http://billing-py:8000/invoices/${next(i)}/" + sku, Product.class);\n    }\n}\n`;
}
function pyFile(i: number): string {
  const fill = Array.from({ length: FILLER }, (_, k) => `    v${k} = [x for x in items if x != ${k}]`).join('\n');
  return `import requests\nfrom fastapi import APIRouter\n\nrouter = APIRouter(prefix="/invoices/${i}")\n\n\n@router.get("/{invoice_id}")\ndef invoice(invoice_id: int, items=()):\n${fill}\n    requests.get(f"http://shipping-go:9000/shipments/${next(i)}/{invoice_id}")\n    return {}\n`;
}
function goFile(i: number): string {
  const fill = Array.from({ length: FILLER }, (_, k) => `\tv${k} := len(items) + ${k}\n\t_ = v${k}`).join('\n');
  return `package main\n\nimport "github.com/gin-gonic/gin"\n\nfunc route${i}(r *gin.Engine, items []int) {\n${fill}\n\tr.GET("/shipments/${i}/:id", shipment)\n\thttp.Get("http://shop-ts:3000/api/shop/${next(i)}/" + id)\n}\n`;
}
const WRITERS: Record<(typeof REPOS)[number], [string, (i: number) => string]> = {
  'shop-ts': ['src/routes', tsFile],
  'orders-cs': ['Controllers', csFile],
  'catalog-java': ['src/main/java/com/acme/catalog', javaFile],
  'billing-py': ['app', pyFile],
  'shipping-go': ['internal', goFile],
};
const EXT: Record<(typeof REPOS)[number], string> = {
  'shop-ts': 'ts',
  'orders-cs': 'cs',
  'catalog-java': 'java',
  'billing-py': 'py',
  'shipping-go': 'go',
};

function generate(root: string): void {
  for (let i = 0; i < FILES; i++) {
    const repo = REPOS[i % REPOS.length]!;
    const [dir, write] = WRITERS[repo];
    const full = join(root, repo, dir);
    mkdirSync(full, { recursive: true });
    writeFileSync(join(full, `f${i}.${EXT[repo]}`), write(i));
  }
}

async function readAll(dir: string): Promise<number> {
  let bytes = 0;
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) bytes += await readAll(p);
    else bytes += (await readFile(p, 'utf8')).length;
  }
  return bytes;
}

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;
const mb = (kb: number): string => `${(kb / 1024).toFixed(0)} MB`;

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'linker-bench-'));
  try {
    generate(root);
    const rssStart = process.memoryUsage().rss;

    const b0 = performance.now();
    const bytes = await readAll(root);
    const baselineMs = performance.now() - b0;

    // Second reference: tree-sitter parse of every file, nothing extracted (the parser's own cost).
    const p0 = performance.now();
    const pc0 = process.cpuUsage();
    for (const repo of REPOS) {
      for (const f of await listSourceFiles(join(root, repo))) {
        const lang = languageOf(f.path);
        if (lang) (await parse(lang, await f.read())).delete();
      }
    }
    const parseOnlyMs = performance.now() - p0;
    const parseOnlyCpuMs = cpuMs(process.cpuUsage(pc0));

    // BENCH_PHASES=1: the CPU of each phase on this thread alone, before the service run (which may use workers):
    // parse + extract (every source's extraction, minus the parse-only reference: extraction), link, report.
    const phases: string[] = [];
    if (process.env.BENCH_PHASES) {
      const e0 = process.cpuUsage();
      const all = [];
      for (const repo of REPOS) all.push(await extractSource(repo, await listSourceFiles(join(root, repo))));
      const extractCpuMs = cpuMs(process.cpuUsage(e0));
      const l0 = process.cpuUsage();
      const linked = buildReport(all, { application: 'bench' });
      const linkCpuMs = cpuMs(process.cpuUsage(l0));
      const r0 = process.cpuUsage();
      renderMarkdown(linked);
      const reportCpuMs = cpuMs(process.cpuUsage(r0));
      phases.push(
        `CPU by phase, one thread: parse ${(parseOnlyCpuMs / 1000).toFixed(2)} s, extract ${((extractCpuMs - parseOnlyCpuMs) / 1000).toFixed(2)} s, link ${(linkCpuMs / 1000).toFixed(2)} s, report ${(reportCpuMs / 1000).toFixed(2)} s`,
      );
    }

    // The real path: the linker service on the in-memory document store, one ingest (version) per
    // repository, each going through fetch, parse and link; then the report of the last version.
    const t0 = performance.now();
    const tc0 = process.cpuUsage();
    const DEV = { subscriptionId: 'bench', role: 'developer' };
    const pool = ParsePool.open(WORKERS, join(__dirname, 'parse-worker.js'));
    if (WORKERS > 0 && !pool) throw new Error(`no parse-worker.js beside the bench in ${__dirname}: see the header`);
    const service = await LinkerService.open({
      store: new InMemoryDocumentStore(),
      clock: systemClock,
      ids: new SequentialIds('b'),
      allowedLocalRoots: [root],
      access: { fetch: (l) => fetchSource(l, { allowedDirs: [root] }), list: (r, o) => listSourceFiles(r, o) },
      ...(pool ? { parser: pool } : {}),
    });
    const app = await service.createApplication(DEV, 'bench');
    const stageMs = { fetch: 0, parse: 0, link: 0 };
    for (const repo of REPOS) {
      await service.addSource(DEV, app.id, repo, { kind: 'dir', path: join(root, repo) });
      const v = await service.ingest(DEV, app.id, repo);
      if (v.status !== 'completed') throw new Error(`ingest of ${repo} failed: ${v.error ?? ''}`);
      for (const st of v.stages) stageMs[st.name] += st.durationMs;
    }
    const { report, markdown } = await service.getReport(DEV, app.id);
    const totalMs = performance.now() - t0;
    // BENCH_REPORT=<file>: the report as JSON, to compare two builds' links on the same input.
    if (process.env.BENCH_REPORT) writeFileSync(process.env.BENCH_REPORT, JSON.stringify(report));
    await pool?.close();
    const totalCpuMs = cpuMs(process.cpuUsage(tc0));
    const peakRssKb = process.resourceUsage().maxRSS;
    const files = (await Promise.all(REPOS.map((r) => listSourceFiles(join(root, r))))).reduce(
      (n, l) => n + l.length,
      0,
    );
    process.stdout.write(
      [
        `files: ${files} in ${REPOS.length} repositories (${(bytes / 1024 / 1024).toFixed(1)} MB of source)`,
        `baseline (recursive read): ${baselineMs.toFixed(0)} ms`,
        `reference (tree-sitter parse only): ${parseOnlyMs.toFixed(0)} ms`,
        `linker service, ${REPOS.length} ingests (fetch ${stageMs.fetch} ms, parse ${stageMs.parse} ms, link ${stageMs.link} ms) + report`,
        `parse workers: ${pool ? pool.size : 'none (main thread)'}; load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
        `total: ${(totalMs / 1000).toFixed(2)} s${FILES === 1000 ? ' (target < 5 s)' : FILES === 5000 ? ' (target < 20 s)' : ''}`,
        `ratio vs baseline: ${(totalMs / baselineMs).toFixed(1)}x; vs parse only: ${(totalMs / parseOnlyMs).toFixed(2)}x`,
        // CPU time of this process: what the machine's other load changes least (wall time waits for the CPU).
        `CPU: linker ${totalCpuMs.toFixed(0)} ms, parse only ${parseOnlyCpuMs.toFixed(0)} ms; CPU ratio vs parse only: ${(totalCpuMs / parseOnlyCpuMs).toFixed(2)}x`,
        ...phases,
        `RSS before run: ${mb(rssStart / 1024)}; peak RSS: ${mb(peakRssKb)}`,
        `report: ${report.statistics.apiLinks} API links, ${report.statistics.unresolvedCalls} unresolved, ${markdown.length} chars of Markdown`,
        ...(process.env.BENCH_DEBUG ? report.unresolvedCalls.slice(0, 5).map((u) => JSON.stringify(u)) : []),
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exitCode = 1;
});
