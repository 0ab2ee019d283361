#!/usr/bin/env node
// Splits a Linux `perf` CPU profile of a Node process (every thread: the JIT's and GC's helper threads included,
// kernel time included, and only time on a CPU: unlike `--cpu-prof`, whose samples are the main thread's wall time)
// into categories: Node's HTTP/2 (its JS and nghttp2), HTTP/1.1 (JS and llhttp), grpc-js, the protobuf codec, our
// own code by package, streams, timers and ticks, V8's compiler and GC, the kernel. A sample counts for the innermost
// JavaScript frame of its stack (what that code spent, natives it called included), for the kernel when it was in a
// system call, else for its native frames. The bundle's frames (embedded/dist/main.js) are placed by its source map.
// Record (the server started with `node --perf-basic-prof --interpreted-frames-native-stack`):
//   perf record -e cpu-clock -F 2000 -g -p <pid> -o /tmp/x.data -- sleep 10 && perf script -i /tmp/x.data > /tmp/x.txt
// Then: node bench/perf-split.mjs /tmp/x.txt <requests served while recording> [top functions]
// `bench/get-compare.mjs` does all of it with COMPARE_PERF=1. Issue 21, ADR 0074.
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { pathToFileURL } from 'node:url';

const root = new URL('..', import.meta.url).pathname;

/**
 * JavaScript frames named again from the perf map file, the entry written last winning: V8 reuses the addresses of
 * collected code, the map keeps every entry ever written, and `perf script` may name a frame after code long gone
 * (module bodies run once at start, say).
 */
function latestNames(mapFile) {
  const entries = readFileSync(mapFile, 'utf8')
    .split('\n')
    .map((l, i) => {
      const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(l);
      return m && { start: BigInt(`0x${m[1]}`), end: BigInt(`0x${m[1]}`) + BigInt(`0x${m[2]}`), name: m[3], i };
    })
    .filter(Boolean)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  return (ip) => {
    let lo = 0;
    let hi = entries.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (entries[mid].start <= ip) lo = mid;
      else hi = mid - 1;
    }
    let best;
    for (let k = lo; k >= 0 && k > lo - 64; k--)
      if (entries[k].start <= ip && ip < entries[k].end && (!best || entries[k].i > best.i)) best = entries[k];
    return best?.name;
  };
}

/** `perf script` text → { samples, hz-independent counts by category and by innermost JS function }. */
export function perfSplit(text, sampleUs) {
  const maps = new Map();
  const renamed = (frame) => {
    const m = /^([0-9a-f]+) .*\((\/tmp\/perf-\d+\.map)\)$/.exec(frame);
    if (!m) return frame;
    if (!maps.has(m[2])) maps.set(m[2], latestNames(m[2]));
    return maps.get(m[2])(BigInt(`0x${m[1]}`)) ?? frame;
  };
  let map;
  const bundleSource = (line, col) => {
    map ??= new SourceMap(JSON.parse(readFileSync(`${root}embedded/dist/main.js.map`, 'utf8')));
    return (map.findEntry(line - 1, col - 1)?.originalSource ?? 'bundle').replace(/^(\.\.\/)+/, '');
  };
  const jsFrame = (frame) => {
    const m = /JS:[*^~+]?(\S*) (\S+?):(\d+):(\d+)/.exec(frame);
    if (!m) return undefined;
    const [, fn, url, line, col] = m;
    const src = url.endsWith('embedded/dist/main.js') ? bundleSource(Number(line), Number(col)) : url;
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(src)?.[1];
    let category;
    if (src.startsWith('node:internal/http2')) category = 'Node http2 (JS)';
    else if (/^node:(_http|internal\/http)/.test(src)) category = 'Node http/1.1 (JS)';
    else if (pkg === '@grpc/grpc-js') category = 'grpc-js';
    else if (pkg === '@bufbuild/protobuf' || src.startsWith('proto/gen')) category = 'protobuf codec (ts-proto)';
    else if (pkg) category = `npm ${pkg}`;
    else if (/^node:(internal\/streams|internal\/stream_base|stream)/.test(src)) category = 'Node streams';
    else if (/^node:(events|internal\/event)/.test(src)) category = 'Node events';
    else if (/^node:(internal\/process|internal\/timers|timers|internal\/async)/.test(src))
      category = 'Node ticks, timers';
    else if (src.startsWith('node:')) category = `Node other (${src.replace(/^node:(internal\/)?/, '').split('/')[0]})`;
    else if (/^(services|packages)\//.test(src)) category = `ours: ${src.split('/').slice(0, 2).join('/')}`;
    else category = `other JS (${src})`;
    const where = src === url ? `${src.replace(/^.*\/node_modules\//, '')}:${line}` : src;
    return { category, name: `${fn || '(anonymous)'} ${where}` };
  };
  const nativeCategory = (frames) => {
    const s = frames.join('\n');
    if (/Heap::|Scavenge|MarkCompact|ConcurrentMarking|Sweeper|heap::/.test(s)) return 'V8 GC';
    if (/compiler::|Compiler::|Maglev|Turbofan|Sparkplug|CompileLazy/.test(s)) return 'V8 compiler (JIT)';
    if (/nghttp2|http2::/.test(s)) return 'Node http2 (nghttp2, C++)';
    if (/llhttp|node::.*Parser/.test(s)) return 'Node http/1.1 (llhttp, C++)';
    if (/uv__io_poll|epoll/.test(s)) return 'libuv poll';
    return `native ${(frames[0] ?? '?').replace(/^\S+\s+/, '').replace(/\+0x.*$/, '')}`;
  };
  const categories = new Map();
  const functions = new Map();
  let samples = 0;
  for (const block of text.split('\n\n')) {
    if (!block.includes('cpu-clock')) continue;
    const frames = block
      .split('\n')
      .slice(1)
      .map((l) => renamed(l.trim()))
      .filter(Boolean);
    samples += 1;
    let category;
    let name;
    if (/kernel/.test(frames[0] ?? '')) category = 'kernel (system calls, network)';
    else {
      const native = [];
      for (const f of frames) {
        const js = jsFrame(f);
        if (js) {
          ({ category, name } = js);
          break;
        }
        native.push(f);
      }
      // GC triggered under a JS frame is GC, not that frame's work; a sample with no JS frame is native work.
      if (!category || /Heap::|Scavenge|MarkCompact|heap::/.test(native.join('\n'))) category = nativeCategory(native);
    }
    categories.set(category, (categories.get(category) ?? 0) + 1);
    if (name) functions.set(name, (functions.get(name) ?? 0) + 1);
  }
  const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);
  return { samples, sampleUs, categories: sorted(categories), functions: sorted(functions) };
}

/** The split as lines: µs of CPU per request and share of the process's CPU, by category, then the top functions. */
export function perfSplitLines({ samples, sampleUs, categories, functions }, requests, top = 25) {
  const row = ([k, n]) =>
    `${((n * sampleUs) / requests).toFixed(1).padStart(7)} µs/req ${((100 * n) / samples).toFixed(1).padStart(5)} %  ${k}`;
  return [
    `${samples} samples, ${((samples * sampleUs) / 1000).toFixed(0)} ms of CPU, ${((samples * sampleUs) / requests).toFixed(1)} µs per request over ${requests}`,
    ...categories.filter(([, n]) => (100 * n) / samples >= 0.3).map(row),
    '  innermost JS function:',
    ...functions.slice(0, top).map(row),
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, requests, top] = process.argv.slice(2);
  if (!file || !requests) throw new Error('usage: perf-split.mjs <perf script output> <requests> [top] (2,000 Hz)');
  const hz = Number(process.env.PERF_HZ ?? 2000);
  const split = perfSplit(readFileSync(file, 'utf8'), 1e6 / hz);
  for (const l of perfSplitLines(split, Number(requests), Number(top ?? 25))) console.log(l);
}
