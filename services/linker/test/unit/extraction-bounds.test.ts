import { describe, expect, it } from 'vitest';
import { extractSource } from '../../src/domain/extract/index';
import { MAX_INSTANTIATED_CALLS, applyGoMounts, applyGoPackages } from '../../src/domain/go-packages';
import { emptyFacts } from '../../src/domain/model';
import { MAX_APPLIED, applyApiInterfaces, applyGoOptions } from '../../src/domain/api-interfaces';
import { eventuateFile } from '../../src/domain/extract/eventuate';

/** One in-memory source file. */
const file = (path: string, text: string) => ({ path, read: async () => text });

/**
 * A repository is untrusted input: the definitions that reach a use (ADR 0048) must stay cheap however a
 * function reassigns a local (review 22). Before the bound, each definition that reads the local looked it
 * up again from its own position: a thousand `url = url + …` lines overflowed the stack and failed the whole
 * source, and a helper whose returned local is reassigned in 24 branches was re-evaluated once per path.
 */
describe('reaching definitions within bounds (review 22)', () => {
  it('a local reassigned from itself a thousand times: the source is extracted, the call kept', async () => {
    const body = Array.from({ length: 1_000 }, (_, i) => `  url = url + '/a${i}';`);
    const text = ['export function f() {', "  let url = 'http://orders';", ...body, '  return fetch(url);', '}'];
    const facts = await extractSource('s', [file('a.js', text.join('\n'))]);
    expect(facts.calls).toHaveLength(1);
    expect(facts.calls[0]!.loc.line).toBe(1_003);
  }, 60_000);

  it('a helper whose returned local is set in 24 branches is summarised in one pass per definition', async () => {
    const branches = Array.from({ length: 24 }, (_, i) => `  if (c) url = url + '/a${i}';`);
    const text = [
      'export function f(c) {',
      "  let url = 'http://orders';",
      ...branches,
      '  fetch(url);',
      '  return url;',
      '}',
    ];
    const facts = await extractSource('s', [file('a.js', text.join('\n'))]);
    expect(facts.calls).toHaveLength(1);
  }, 30_000);

  it('a few branches still give one call per value (the bound leaves ordinary code alone)', async () => {
    const text = [
      'export function f(c) {',
      "  let url = '';",
      "  if (c) url = 'http://orders/list';",
      "  else url = 'http://payments/list';",
      '  return fetch(url);',
      '}',
    ];
    const facts = await extractSource('s', [file('a.js', text.join('\n'))]);
    expect(facts.calls.map((c) => c.url)).toEqual([[{ lit: 'http://orders/list' }], [{ lit: 'http://payments/list' }]]);
  });
});

describe('a file nested beyond the evaluator (review 22)', () => {
  it('a 20,000-term concatenation is skipped and listed; the source and its other files are extracted', async () => {
    const deep = `export const u = ${Array.from({ length: 20_000 }, () => "'a'").join(' + ')};\nfetch(u);\n`;
    const facts = await extractSource('s', [
      file('deep.js', deep),
      file('ok.js', "export function g() { return fetch('http://orders/list'); }\n"),
    ]);
    expect(facts.skippedFiles).toEqual([{ path: 'deep.js', reason: expect.stringContaining('too deeply nested') }]);
    expect(facts.calls.map((c) => c.loc.file)).toEqual(['ok.js']);
  }, 60_000);
});

describe('gRPC declarations scanned in linear time (review 22)', () => {
  it('a Go file with 100 KB of blanks: its server and client are found (unbounded lookbehinds were quadratic)', async () => {
    const text = [
      'package main',
      'import "google.golang.org/grpc"',
      `var pad = 1${' '.repeat(100_000)}`,
      'func main() {',
      '  pb.RegisterOrdersServer(s, &server{})',
      '  c := pb.NewPaymentsClient(conn)',
      '}',
    ].join('\n');
    const facts = await extractSource('s', [file('main.go', text)]);
    expect(facts.grpcServers.map((g) => g.service)).toEqual(['Orders']);
    expect(facts.grpcCalls.map((g) => g.service)).toContain('Payments');
  }, 20_000);
});

describe('typed gRPC clients and Eventuate Tram declarations in linear time', () => {
  it('Go: 100 KB of blanks and a 50 KB identifier around a typed client field: the call is found', async () => {
    const go = [
      'package adapters',
      'import "shop/gen/cart"',
      `var pad${'x'.repeat(50_000)} = 1${' '.repeat(100_000)}`,
      'type A struct { client cart.CartClient }',
      'func (a A) f() { a.client.GetCart(ctx, nil) }',
    ].join('\n');
    const facts = await extractSource('s', [file('a.go', go)]);
    expect(facts.grpcCalls.map((g) => `${g.service}/${g.method}`)).toEqual(['Cart/GetCart']);
  }, 20_000);

  it('Java: 40,000 unclosed comments, 40,000 `class A extends`, 100 KB of blanks, 40,000 publish calls', () => {
    const head = 'package com.acme;\nimport io.eventuate.tram.events.publisher.DomainEventPublisher;\n';
    const texts = [
      '/* x '.repeat(40_000),
      'class A extends '.repeat(40_000),
      `Publisher p${' '.repeat(100_000)}`,
      'DomainEventPublisher p;\n' + 'p.publish('.repeat(40_000),
      '@EventuateDomainEventHandler('.repeat(40_000),
    ];
    const started = Date.now();
    for (const t of texts) eventuateFile(head + t, 'A.java');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('Go package summaries within a budget (review 22)', () => {
  it('a thousand sites of a function holding a thousand calls: the instantiated calls stop at the budget', () => {
    const n = 1_000;
    const caller = emptyFacts('caller');
    const pkg = {
      ...emptyFacts('pkg'),
      goFuncs: [{ pkg: 'p', name: 'F', params: ['u'], file: 'p/p.go', start: 1, end: n + 2 }],
    };
    for (let i = 0; i < n; i++)
      pkg.calls.push({
        method: 'GET',
        url: [{ lit: `/x${i}` }],
        client: 'net/http',
        loc: { file: 'p/p.go', line: i + 2 },
      });
    const sites = Array.from({ length: n }, (_, i) => ({
      pkg: 'p',
      name: 'F',
      args: [[{ lit: 'x' }]],
      loc: { file: 'm.go', line: i + 1 },
    }));
    const [out] = applyGoPackages([{ ...caller, goSites: sites }, pkg]);
    expect(out!.calls).toHaveLength(MAX_INSTANTIATED_CALLS);
    expect(out!.calls[0]).toMatchObject({ url: [{ lit: '/x0' }], loc: { file: 'm.go', line: 1 } });
  });
  it('two thousand sites of a function among two thousand others: each site visits its own function only', () => {
    // Review 22 #11: every site scanned every call of the package, each against every function (8e9 steps here).
    const n = 2_000;
    const funcs = Array.from({ length: n }, (_, i) => ({
      pkg: 'p',
      name: i === 0 ? 'F' : `G${i}`,
      params: ['u'],
      file: `p/f${i % 20}.go`,
      start: 10 * i + 1,
      end: 10 * i + 5,
    }));
    const pkg = { ...emptyFacts('pkg'), goFuncs: funcs };
    for (const f of funcs)
      pkg.calls.push({
        method: 'GET',
        url: [{ ref: 'u' }],
        client: 'net/http',
        loc: { file: f.file, line: f.start + 1 },
      });
    const sites = Array.from({ length: n }, (_, i) => ({
      pkg: 'p',
      name: 'F',
      args: [[{ lit: `http://x/${i}` }]],
      loc: { file: 'm.go', line: i + 1 },
    }));
    const started = Date.now();
    const [out, lib] = applyGoPackages([{ ...emptyFacts('caller'), goSites: sites }, pkg]);
    expect(Date.now() - started).toBeLessThan(3_000);
    // F's one call, at each site with its argument; the package keeps the calls of its other functions.
    expect(out!.calls).toHaveLength(n);
    expect(out!.calls[1]).toMatchObject({ url: [{ lit: 'http://x/1' }], loc: { file: 'm.go', line: 2 } });
    expect(lib!.calls).toHaveLength(n - 1);
  });
});

describe('Go callbacks within bounds (ADR 0062 amendment)', () => {
  it('functions handing a callback on to each other 20 ways a level, a cycle, 2,000 callbacks: linked in bounded time', () => {
    const n = 20;
    // F0…F19 each hand their parameter to every other one (and to themselves); only F19 mounts it.
    const lib = {
      ...emptyFacts('lib'),
      goFuncs: Array.from({ length: n }, (_, i) => ({
        pkg: 'server',
        name: `F${i}`,
        params: ['h'],
        file: 'server.go',
        start: i * 10 + 1,
        end: i * 10 + 9,
        forwards: Array.from({ length: n }, (_, k) => ({ param: 0, to: `server.F${k}`, arg: 0 })),
        ...(i === n - 1 ? { mounts: [{ param: 0, prefix: '/api' }] } : {}),
      })),
    };
    // The routes' functions call each other in a ring, every one reachable from every callback.
    const svc = {
      ...emptyFacts('svc'),
      endpoints: Array.from({ length: 1_000 }, (_, i) => ({
        method: 'GET' as const,
        path: `/r${i}`,
        framework: 'chi',
        loc: { file: 'routes.go', line: i + 1 },
      })),
      goFuncs: Array.from({ length: 1_000 }, (_, i) => ({
        pkg: 'main',
        name: `R${i}`,
        params: [],
        file: 'routes.go',
        start: i + 1,
        end: i + 1,
        calls: [`main.R${(i + 1) % 1_000}`, `main.R${(i + 7) % 1_000}`],
      })),
      goCallbacks: Array.from({ length: 2_000 }, (_, i) => ({
        to: 'server.F0',
        local: false,
        arg: 0,
        calls: [`main.R${i % 1_000}`],
        loc: { file: 'main.go', line: i + 1 },
      })),
    };
    const started = performance.now();
    const [, out] = applyGoMounts([lib, svc]);
    expect(performance.now() - started).toBeLessThan(5_000);
    // Reached through the ring within its bound (400 functions from each callback, 8 calls deep).
    expect(out!.endpoints[0]!.path).toBe('/api/r0');
  });
});

describe('return-value summaries within a budget (review 22)', () => {
  it('summaries that call each other a dozen times a level: the URL stays small, not twelve to the fifth', async () => {
    const uses = (f: string): string => Array.from({ length: 12 }, () => f).join(' + ');
    const lib = [
      `export const f0 = (a) => '/' + ${uses('a')};`,
      ...[1, 2, 3, 4].map((i) => `export const f${i} = (a) => '/' + ${uses(`f${i - 1}(a)`)};`),
    ].join('\n');
    const facts = await extractSource('s', [
      file('lib.js', lib),
      file('a.js', "import { f4 } from './lib';\nexport function g() { return fetch(f4('http://x/')); }\n"),
    ]);
    expect(facts.calls).toHaveLength(1);
    expect(JSON.stringify(facts.calls[0]!.url).length).toBeLessThan(4_096);
  }, 60_000);
});

describe('Vue script blocks found in linear time (review 23)', () => {
  it('a .vue file of unclosed <script tags is read at once; its closed block is still extracted', async () => {
    const block = '<script setup lang="ts">\nfetch(\'http://orders/api\');\n</script>\n';
    for (const junk of ['<script '.repeat(100_000), '<script>'.repeat(100_000)]) {
      const started = Date.now();
      const facts = await extractSource('s', [file('App.vue', `<template>\n<p/>\n</template>\n${block}${junk}`)]);
      // One regular expression rescanned the rest of the file from every opening tag: 800 KB took minutes.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(facts.calls.map((c) => c.loc.line)).toEqual([5]);
    }
  }, 60_000);
});

describe('shared interfaces and Go options within a budget (review 23)', () => {
  it('300 controllers implementing an interface of 300 routes: the instantiated endpoints stop at the budget', async () => {
    const n = 300;
    const head = ['package a;', 'import org.springframework.web.bind.annotation.*;'];
    const api = [...head, 'public interface Api {'];
    for (let i = 0; i < n; i++) api.push(`  @GetMapping("/a${i}") String a${i}();`);
    api.push('}');
    const controllers = [...head];
    for (let i = 0; i < n; i++) controllers.push(`@RestController class C${i} implements Api {}`);
    const facts = await extractSource('s', [file('Api.java', api.join('\n')), file('C.java', controllers.join('\n'))]);
    // Every use copied every route: N² endpoints (3,000 of each: 9 million, 72 s and 1.5 GB at link time).
    const [out] = applyApiInterfaces([facts]);
    expect(out!.endpoints).toHaveLength(facts.endpoints.length + MAX_APPLIED);
    expect(out!.endpoints.at(-1)).toMatchObject({ method: 'GET', framework: 'spring' });
  }, 60_000);

  it('a thousand configuring calls of a package with a thousand broker uses: the publishes stop at the budget', () => {
    const n = 1_000;
    const pkg = {
      ...emptyFacts('pkg'),
      goOptions: [{ pkg: 'p', name: 'Exchange', field: 'ex' }],
      goBrokerUses: Array.from({ length: n }, (_, i) => ({
        pkg: 'p',
        kind: 'publish' as const,
        exchange: { field: 'ex' },
        key: { lit: `k${i}` },
        loc: { file: 'p/p.go', line: i + 1 },
      })),
    };
    const sites = Array.from({ length: n }, (_, i) => ({
      pkg: 'p',
      values: [{ name: 'Exchange', value: 'orders' }],
      loc: { file: 'm.go', line: i + 1 },
    }));
    const [out] = applyGoOptions([{ ...emptyFacts('svc'), goOptionSites: sites }, pkg]);
    expect(out!.publishes).toHaveLength(MAX_APPLIED);
    expect(out!.publishes[0]).toMatchObject({ exchange: 'orders', key: 'k0', loc: { file: 'm.go', line: 1 } });
  });
});

describe('object summaries within a budget (ADR 0062)', () => {
  it('helpers that call each other twice a level, a field doubled 200 times, a class that creates itself: linked in bounded time', async () => {
    const helpers = Array.from(
      { length: 30 },
      (_, i) =>
        `    private static void H${i}(IConfiguration c, string s) { H${i + 1}(c, s); H${i + 1}(c, s + s); H0(c, s); }`,
    );
    const lib = [
      'public static class Setup',
      '{',
      '    private static string _x;',
      '    public static void AddBus(this IServiceCollection services, IConfiguration config)',
      '    {',
      '        H0(config, "Bus");',
      ...Array.from({ length: 200 }, () => '        _x = _x + _x + config.GetSection("Bus")["Exchange"];'),
      '        services.AddSingleton<IBus>(_ => new Bus(_x));',
      '    }',
      ...helpers,
      '    private static void H30(IConfiguration c, string s) { _x = c.GetSection(s)["Exchange"]; }',
      '}',
      'public class Bus : IBus',
      '{',
      '    private readonly string _ex;',
      '    public Bus(string ex) { _ex = ex; var again = new Bus(ex); }',
      '    public void Send(string key) { _channel.BasicPublish(_ex, key, null, body); }',
      '}',
    ].join('\n');
    const svc = ['services.AddBus(configuration);', ...Array.from({ length: 300 }, () => 'bus.Send("k");')].join('\n');
    const started = Date.now();
    const facts = [
      await extractSource('lib', [file('Setup.cs', lib)]),
      await extractSource('svc', [file('Program.cs', svc)]),
    ];
    const { link } = await import('../../src/domain/link');
    const out = link(facts);
    expect(Date.now() - started).toBeLessThan(20_000);
    // One publish per call site at most, its exchange unknown (the doubled value is cut to a hole).
    expect(out.gaps.length).toBeGreaterThan(0);
    expect(out.gaps.length).toBeLessThanOrEqual(301);
  }, 60_000);
});

describe('C# namespaces within a budget (review 24)', () => {
  it('a file of 2,000 top-level classes is extracted in linear time, each class in the file-scoped namespace', async () => {
    // Each class's namespace lookup listed every top-level node of the file: 2,000 classes took 60 s and ~1 GB.
    const classes = Array.from(
      { length: 2_000 },
      (_, i) => `public class C${i} { public void Send(string k) { _channel.BasicPublish("x", k, null, b); } }`,
    );
    const started = Date.now();
    const facts = await extractSource('lib', [file('Lib.cs', ['namespace Shop.Contracts;', ...classes].join('\n'))]);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(Object.keys(facts.typeNamespaces ?? {})).toHaveLength(2_000);
    expect(facts.typeNamespaces?.C1999).toBe('Shop.Contracts');
  }, 60_000);
});

describe('C# message hand-offs within a budget', () => {
  it('a method handing one variable on 3,000 times is extracted in linear time, each hand-off with its created types', async () => {
    // Each call with a variable argument walked the whole method, node by node, for the variable's assignments:
    // a method of N such calls took N walks of N statements.
    const calls = Array.from({ length: 3_000 }, () => '        _dispatcher.Dispatch(evt);');
    const text = [
      'public class Orders {',
      '    public void Run(bool shipped) {',
      '        var evt = new OrderPlaced();',
      '        if (shipped) evt = new OrderShipped();',
      ...calls,
      '    }',
      '}',
    ].join('\n');
    const started = Date.now();
    const facts = await extractSource('orders', [file('Orders.cs', text)]);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(facts.outboxSites).toHaveLength(400);
    expect(facts.outboxSites?.[399]?.types).toEqual(['OrderPlaced', 'OrderShipped']);
  }, 60_000);
});

describe('Laravel and Active Job text scans in linear time (review 29)', () => {
  it('Ruby: 100 KB of blanks after a constant; PHP: 20,000 `use` lines with no semicolon after them', async () => {
    const rb = [
      'class ChargeJob < ApplicationJob',
      '  def perform(id); end',
      'end',
      `Pad${' '.repeat(100_000)}`,
      'ChargeJob.perform_later(1)',
    ].join('\n');
    const php = [
      '<?php',
      'namespace App\\Http;',
      'use App\\Jobs\\SendMail;',
      'class C { public function go() { SendMail::dispatch(); } }',
      '?>',
      ...Array.from({ length: 20_000 }, (_, i) => `use the queue ${i}`),
    ].join('\n');
    const started = Date.now();
    const facts = await extractSource('s', [file('app/jobs/charge_job.rb', rb), file('app/Http/C.php', php)]);
    // ~20-40 s before the bounds (either scan alone over 15 s); ~2 s now, mostly other PHP rules.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(facts.publishes.map((p) => `${p.broker} ${p.key} ${p.loc.file}:${p.loc.line}`)).toEqual([
      'activejob ChargeJob app/jobs/charge_job.rb:5',
      'laravel App\\Jobs\\SendMail app/Http/C.php:4',
    ]);
  }, 120_000);
});
