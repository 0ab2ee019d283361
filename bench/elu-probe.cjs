// Preloaded (`node -r`) into a single-process server by bench/run.mjs: on SIGUSR2 it prints the event-loop
// utilisation since the previous signal, so the bench can report it per case. Not part of any service.
const { performance } = require('node:perf_hooks');

let last = performance.eventLoopUtilization();
process.on('SIGUSR2', () => {
  const now = performance.eventLoopUtilization();
  const delta = performance.eventLoopUtilization(now, last);
  last = now;
  process.stderr.write(`ELU ${delta.utilization.toFixed(3)}\n`);
});
