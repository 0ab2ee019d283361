import type { Logger } from '@a2a-inbound/logger';

/** One step of a graceful shutdown (close the app, then the engines, then flush telemetry…); awaited. */
export type ShutdownStep = () => unknown;

/** What a service's `main` hands to {@link runMain} once it is started. */
export interface RunningProcess {
  /** Where the shutdown is logged (the signal's name is added); nothing is logged without it. */
  readonly log?: Pick<Logger, 'info' | 'error'>;
  /** The line logged when a signal starts the shutdown (default `shutting down`). */
  readonly stopMessage?: string;
  /** Run one after the other on SIGTERM or SIGINT: exit 0 once all are done, exit 1 at the first that fails. */
  readonly shutdown: readonly ShutdownStep[];
  /** Runs once the signal handlers are in place (a banner a client may react to by stopping us). */
  readonly onReady?: () => void;
}

/** The process seen by {@link runMain}; tests pass a stand-in. */
export interface MainProcessIo {
  onSignal(signal: NodeJS.Signals, handler: () => void): void;
  exit(code: number): void;
  writeError(text: string): void;
}

export const SHUTDOWN_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

const nodeProcess: MainProcessIo = {
  onSignal: (signal, handler) => void process.on(signal, handler),
  exit: (code) => process.exit(code),
  writeError: (text) => void process.stderr.write(text),
};

/**
 * The process entry of every service: starts it, then on the first SIGTERM or SIGINT runs its shutdown
 * steps in order and exits (a second signal while stopping is ignored). A start that fails prints
 * `<name> failed to start: <reason>` on stderr and exits 1. Resolves once started (or failed).
 */
export async function runMain(
  name: string,
  start: () => Promise<RunningProcess>,
  io: MainProcessIo = nodeProcess,
): Promise<void> {
  let running: RunningProcess;
  try {
    running = await start();
  } catch (err) {
    io.writeError(`${name} failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
    io.exit(1);
    return;
  }
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return;
    stopping = true;
    running.log?.info({ signal }, running.stopMessage ?? 'shutting down');
    try {
      for (const step of running.shutdown) await step();
    } catch (err) {
      running.log?.error({ err }, 'shutdown failed');
      io.exit(1);
      return;
    }
    io.exit(0);
  };
  for (const signal of SHUTDOWN_SIGNALS) io.onSignal(signal, () => void stop(signal));
  running.onReady?.();
}

/**
 * Logs, at start, each plaintext link that production accepted only because ALLOW_PLAINTEXT_LINKS names it
 * (ADR 0035): loud on purpose, at `warn`, once per link, with the setting that allowed it.
 */
export function warnAcceptedPlaintext(log: Pick<Logger, 'warn'>, ...warnings: (readonly string[])[]): void {
  for (const warning of warnings.flat())
    log.warn({ setting: 'ALLOW_PLAINTEXT_LINKS', plaintext: true }, `UNENCRYPTED LINK IN PRODUCTION: ${warning}`);
}
