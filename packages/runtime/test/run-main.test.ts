import { describe, expect, it } from 'vitest';
import { runMain, type MainProcessIo } from '../src/index';

/** A stand-in process: records handlers, exit codes and stderr; `signal()` delivers a signal. */
function fakeProcess() {
  const handlers = new Map<string, (() => void)[]>();
  const exits: number[] = [];
  const stderr: string[] = [];
  let exited: () => void = () => undefined;
  const exitedOnce = new Promise<void>((resolve) => (exited = resolve));
  const io: MainProcessIo = {
    onSignal: (signal, handler) => handlers.set(signal, [...(handlers.get(signal) ?? []), handler]),
    exit: (code) => {
      exits.push(code);
      exited();
    },
    writeError: (text) => stderr.push(text),
  };
  const signal = (name: string): void => {
    for (const h of handlers.get(name) ?? []) h();
  };
  return { io, handlers, exits, stderr, signal, exitedOnce };
}

function recordingLog() {
  const lines: { level: string; obj: object; msg: string | undefined }[] = [];
  return {
    lines,
    info: (obj: object, msg?: string) => void lines.push({ level: 'info', obj, msg }),
    error: (obj: object, msg?: string) => void lines.push({ level: 'error', obj, msg }),
  };
}

describe('runMain: signals and graceful shutdown of every service', () => {
  it('on SIGTERM runs the shutdown steps in order, one after the other, logs the signal, then exits 0', async () => {
    const p = fakeProcess();
    const log = recordingLog();
    const order: string[] = [];
    const step = (name: string, ms: number) => async () => {
      order.push(`${name}:start`);
      await new Promise((r) => setTimeout(r, ms));
      order.push(`${name}:end`);
    };
    await runMain(
      'svc',
      async () => ({
        log,
        stopMessage: 'draining',
        shutdown: [step('app', 20), step('engines', 1), step('telemetry', 5)],
      }),
      p.io,
    );
    expect([...p.handlers.keys()].sort()).toEqual(['SIGINT', 'SIGTERM']);
    expect(p.exits).toEqual([]);
    p.signal('SIGTERM');
    await p.exitedOnce;
    expect(order).toEqual(['app:start', 'app:end', 'engines:start', 'engines:end', 'telemetry:start', 'telemetry:end']);
    expect(p.exits).toEqual([0]);
    expect(log.lines).toEqual([{ level: 'info', obj: { signal: 'SIGTERM' }, msg: 'draining' }]);
  });

  it('a second signal while stopping is ignored: the steps run once', async () => {
    const p = fakeProcess();
    let closes = 0;
    let release: () => void = () => undefined;
    const closing = new Promise<void>((r) => (release = r));
    await runMain(
      'svc',
      async () => ({
        shutdown: [
          async () => {
            closes++;
            await closing;
          },
        ],
      }),
      p.io,
    );
    p.signal('SIGINT');
    p.signal('SIGTERM');
    p.signal('SIGINT');
    release();
    await p.exitedOnce;
    expect(closes).toBe(1);
    expect(p.exits).toEqual([0]);
  });

  it('a failing step stops the shutdown there, logs "shutdown failed" and exits 1', async () => {
    const p = fakeProcess();
    const log = recordingLog();
    const ran: string[] = [];
    await runMain(
      'svc',
      async () => ({
        log,
        shutdown: [() => ran.push('app'), () => Promise.reject(new Error('engine gone')), () => ran.push('telemetry')],
      }),
      p.io,
    );
    p.signal('SIGINT');
    await p.exitedOnce;
    expect(ran).toEqual(['app']);
    expect(p.exits).toEqual([1]);
    expect(log.lines[0]).toEqual({ level: 'info', obj: { signal: 'SIGINT' }, msg: 'shutting down' });
    expect(log.lines[1]).toMatchObject({ level: 'error', msg: 'shutdown failed' });
  });

  it('a start that fails prints "<name> failed to start: <reason>" and exits 1 without installing handlers', async () => {
    const p = fakeProcess();
    await runMain(
      'gateway',
      async () => {
        throw new Error('invalid configuration: PORT must be an integer');
      },
      p.io,
    );
    expect(p.stderr).toEqual(['gateway failed to start: invalid configuration: PORT must be an integer\n']);
    expect(p.exits).toEqual([1]);
    expect(p.handlers.size).toBe(0);
  });

  it('onReady runs once the signal handlers are in place', async () => {
    const p = fakeProcess();
    let handlersAtReady = -1;
    await runMain('svc', async () => ({ shutdown: [], onReady: () => (handlersAtReady = p.handlers.size) }), p.io);
    expect(handlersAtReady).toBe(2);
  });
});
