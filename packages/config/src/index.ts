/**
 * Config: read once from the environment, validate everything, report every problem together.
 * Libraries never read process.env; a service's `config.ts` calls these with the env it was given.
 */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

export class EnvReader {
  readonly #problems: string[] = [];
  constructor(private readonly env: Env) {}

  string(name: string, fallback?: string): string {
    const v = this.env[name];
    if (v === undefined || v === '') {
      if (fallback === undefined) {
        this.#problems.push(`${name} is required`);
        return '';
      }
      return fallback;
    }
    return v;
  }

  optionalString(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n)) {
      this.#problems.push(`${name} must be an integer, got "${raw}"`);
      return fallback;
    }
    if (range.min !== undefined && n < range.min) this.#problems.push(`${name} must be >= ${range.min}, got ${n}`);
    if (range.max !== undefined && n > range.max) this.#problems.push(`${name} must be <= ${range.max}, got ${n}`);
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
    if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
    this.#problems.push(`${name} must be a boolean (true/false), got "${raw}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    this.#problems.push(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return fallback;
  }

  list(name: string, fallback: readonly string[]): string[] {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return [...fallback];
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }

  /** Records a problem found by the caller's own cross-field checks. */
  problem(message: string): void {
    this.#problems.push(message);
  }

  /** Throws ConfigError listing every problem, if any. */
  done(): void {
    if (this.#problems.length > 0) throw new ConfigError(this.#problems);
  }
}

/** Mutual TLS files of a service's gRPC links (ADR 0032); undefined when none is configured (plaintext). */
export interface GrpcTlsSettings {
  caFile: string;
  certFile: string;
  keyFile: string;
  reloadMs: number;
}

/**
 * GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE (all three or none; PEM), re-read every
 * GRPC_TLS_RELOAD_MS.
 */
export function readGrpcTls(r: EnvReader): GrpcTlsSettings | undefined {
  const caFile = r.optionalString('GRPC_TLS_CA_FILE');
  const certFile = r.optionalString('GRPC_TLS_CERT_FILE');
  const keyFile = r.optionalString('GRPC_TLS_KEY_FILE');
  const reloadMs = r.int('GRPC_TLS_RELOAD_MS', 60_000, { min: 100, max: 86_400_000 });
  const set = [caFile, certFile, keyFile].filter((v) => v !== undefined).length;
  if (set === 0) return undefined;
  if (set !== 3 || !caFile || !certFile || !keyFile) {
    r.problem('GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE are set together');
    return undefined;
  }
  return { caFile, certFile, keyFile, reloadMs };
}
