import pino from 'pino';

export type Logger = pino.Logger;

/** Paths never written to logs: keys, tokens, passwords and file bytes. */
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  '*.*.token',
  'password',
  '*.password',
  'secret',
  '*.secret',
  // Sealed secrets of run requests (agent definitions' secret references).
  'sealedSecrets',
  '*.sealedSecrets',
  'bytes',
  '*.bytes',
  '*.*.bytes',
  'data',
  'file.bytes',
  // Push-notification configs: the token echoed in every delivery, and the receiver's credentials.
  '*.*.*.token',
  'pushNotificationConfig.token',
  '*.pushNotificationConfig.token',
  '*.*.pushNotificationConfig.token',
  'configs[*].token',
  '*.configs[*].token',
  'authentication.credentials',
  '*.authentication.credentials',
  '*.*.authentication.credentials',
  '*.*.*.authentication.credentials',
];

export interface LoggerOptions {
  readonly service: string;
  readonly level?: string;
  /** Where to write (default stdout); tests pass a stream to read the lines back. */
  readonly destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    // Synchronous writes: every line reaches stdout even when the process exits right after (shutdown logs).
    options.destination ?? pino.destination({ sync: true }),
  );
}

/** A logger that drops everything (tests that do not read logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
