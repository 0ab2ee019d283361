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
  readonly #warnings: string[] = [];
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
    if (!this.#problems.includes(message)) this.#problems.push(message);
  }

  /** Records something accepted that the service must log loudly at start (a production opt-out). */
  warning(message: string): void {
    this.#warnings.push(message);
  }

  /** The warnings recorded so far, for the service's config (its main logs them once the logger exists). */
  get warnings(): string[] {
    return [...this.#warnings];
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

/** The links a production process refuses in plaintext unless ALLOW_PLAINTEXT_LINKS names them. */
export const PLAINTEXT_LINKS = ['grpc', 'kafka', 'redis', 'mongo'] as const;
export type PlaintextLink = (typeof PLAINTEXT_LINKS)[number];

/** NODE_ENV=production, and the links the operator vouches for in plaintext (ALLOW_PLAINTEXT_LINKS). */
export interface PlaintextPolicy {
  production: boolean;
  allowed: ReadonlySet<PlaintextLink>;
}

export function readPlaintextPolicy(r: EnvReader): PlaintextPolicy {
  const production = r.optionalString('NODE_ENV') === 'production';
  const allowed = new Set<PlaintextLink>();
  for (const name of r.list('ALLOW_PLAINTEXT_LINKS', [])) {
    if ((PLAINTEXT_LINKS as readonly string[]).includes(name)) allowed.add(name as PlaintextLink);
    else r.problem(`ALLOW_PLAINTEXT_LINKS must list some of ${PLAINTEXT_LINKS.join(', ')}, got "${name}"`);
  }
  return { production, allowed };
}

/** The host of `host:port`, `[v6]:port`, a bare host or a URL's authority. */
export function hostOf(address: string): string {
  const a = address.trim();
  const v6 = /^\[([^\]]+)\]/.exec(a);
  if (v6) return v6[1]!.toLowerCase();
  const colons = a.split(':').length - 1;
  return (colons === 1 ? a.slice(0, a.indexOf(':')) : a).toLowerCase();
}

/** Loopback never leaves the machine (a sidecar proxy that encrypts, or one host): no TLS needed there. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Production refuses a plaintext link to (or listener on) any host that is not loopback, with a problem that
 * names the setting to fix; a link the operator listed in ALLOW_PLAINTEXT_LINKS is accepted and recorded as a
 * warning for the service to log at start.
 */
export function refusePlaintext(
  r: EnvReader,
  policy: PlaintextPolicy,
  link: PlaintextLink,
  hosts: readonly string[],
  fix: string,
): void {
  if (!policy.production) return;
  const remote = [...new Set(hosts.map(hostOf))].filter((h) => !isLoopbackHost(h));
  if (remote.length === 0) return;
  const what = `plaintext ${link} with ${remote.join(', ')}`;
  if (policy.allowed.has(link))
    r.warning(
      `NODE_ENV=production with ${what}, allowed by ALLOW_PLAINTEXT_LINKS=${link}: traffic and credentials on that link are not encrypted`,
    );
  else
    r.problem(
      `${fix} with NODE_ENV=production (${what}); ALLOW_PLAINTEXT_LINKS=${link} accepts it on a network you vouch for`,
    );
}

/** Hosts of a MongoDB connection string (`mongodb://user:pw@h1:27017,h2/db?…`) and whether it asks for TLS. */
export function mongoUrlTls(url: string): { hosts: string[]; tls: boolean } {
  const m = /^(mongodb(?:\+srv)?):\/\/(?:[^@/]*@)?([^/?]*)(?:[/?](.*))?$/i.exec(url.trim());
  if (!m) return { hosts: [url], tls: false };
  const srv = m[1]!.toLowerCase() === 'mongodb+srv';
  const query = new URLSearchParams((m[3] ?? '').replace(/^[^?]*\?/, ''));
  const flag = (query.get('tls') ?? query.get('ssl'))?.toLowerCase();
  // mongodb+srv:// turns TLS on unless the URL turns it off (MongoDB connection string specification).
  const tls = flag === undefined ? srv : flag === 'true';
  return { hosts: m[2]!.split(',').filter(Boolean), tls };
}

/** Hosts of a Redis URL and whether it is TLS (`rediss://`). */
export function redisUrlTls(url: string): { hosts: string[]; tls: boolean } {
  const m = /^(rediss?):\/\/(?:[^@/]*@)?([^/?]*)/i.exec(url.trim());
  if (!m) return { hosts: [url], tls: false };
  return { hosts: [m[2]!], tls: m[1]!.toLowerCase() === 'rediss' };
}

/**
 * GRPC_HEALTH_PORT: a plaintext port that serves only grpc.health.v1 (Kubernetes' native `grpc:` probes speak no
 * TLS); undefined = none. Only meaningful beside a TLS service port, so refused without GRPC_TLS_*.
 */
export function readGrpcHealthPort(r: EnvReader, tls: GrpcTlsSettings | undefined): number | undefined {
  const port = r.int('GRPC_HEALTH_PORT', -1, { min: -1, max: 65535 });
  if (port === -1) return undefined;
  if (!tls) r.problem('GRPC_HEALTH_PORT is for probes beside a TLS port: set GRPC_TLS_* too (or probe the gRPC port)');
  return port;
}

/**
 * Production refuses a gRPC listener or link in plaintext (no GRPC_TLS_* files) beyond loopback: `endpoints`
 * are the host this service listens on and the addresses it dials.
 */
export function refusePlaintextGrpc(
  r: EnvReader,
  tls: GrpcTlsSettings | undefined,
  endpoints: readonly string[],
): void {
  const policy = readPlaintextPolicy(r);
  if (tls) return;
  refusePlaintext(
    r,
    policy,
    'grpc',
    endpoints,
    'GRPC_TLS_CA_FILE, GRPC_TLS_CERT_FILE and GRPC_TLS_KEY_FILE (mutual TLS, ADR 0032) are required',
  );
}
