/**
 * The registry of runtimes a version definition may name. Each runtime brings a validator of its
 * configuration (pure: field path + reason), the secrets and egress URLs its configuration references (checked
 * at publish time against the subscription's secrets and the SSRF policy), and the traits the agent card
 * derives from (whether it streams, which input modes it accepts).
 *
 * Another runtime plugs in with one line: `registerRuntimeValidator('http', validateHttpConfig, { streaming: true })`.
 */

/** One problem of a definition: where (`runtimeConfig.tools[0].url`) and why. */
export interface DefinitionIssue {
  path: string;
  reason: string;
}

/** What the agent card can truthfully claim for a definition. */
export interface RuntimeTraits {
  /** The runtime sends output as it goes (token deltas, progress): `capabilities.streaming`. */
  streaming: boolean;
  /** Whether the runtime can use input of this media type (`text/plain`, `image/png`, `image/*`). */
  accepts(mode: string): boolean;
}

export interface RuntimeDefinition {
  readonly name: string;
  /** Shape of the runtime's configuration (no I/O). Paths are relative to `runtimeConfig`. */
  validate(config: Readonly<Record<string, unknown>>): DefinitionIssue[];
  /** Names of the secrets the configuration references; each must exist when the version is created. */
  secretRefs(config: Readonly<Record<string, unknown>>): { path: string; name: string }[];
  /** Destinations the runtime will call; each must pass the egress policy when the version is created. */
  egressUrls(config: Readonly<Record<string, unknown>>): { path: string; url: string }[];
  traits(config: Readonly<Record<string, unknown>>): RuntimeTraits;
}

const acceptsAll = (): boolean => true;

/**
 * Every string field whose name ends in `Secret` (`apiKeySecret`, `tokenSecret`) at any depth names a
 * secret: the default of runtimes that do not list their references themselves.
 */
export function secretFieldRefs(config: unknown, base = ''): { path: string; name: string }[] {
  const out: { path: string; name: string }[] = [];
  if (Array.isArray(config)) {
    config.forEach((v, i) => out.push(...secretFieldRefs(v, `${base}[${i}]`)));
  } else if (typeof config === 'object' && config !== null) {
    for (const [k, v] of Object.entries(config)) {
      const path = base ? `${base}.${k}` : k;
      if (/Secret$/.test(k) && typeof v === 'string') out.push({ path, name: v });
      else out.push(...secretFieldRefs(v, path));
    }
  }
  return out;
}

const registry = new Map<string, RuntimeDefinition>();

/** Adds (or replaces) a runtime definition. */
export function registerRuntime(def: RuntimeDefinition): void {
  registry.set(def.name, def);
}

/**
 * The one-line registration: a validator, and optionally the traits and references. Secret references
 * default to every `…Secret` field; egress URLs to none; traits to streaming, every input mode.
 */
export function registerRuntimeValidator(
  name: string,
  validate: (config: Readonly<Record<string, unknown>>) => DefinitionIssue[],
  options: {
    streaming?: boolean | ((config: Readonly<Record<string, unknown>>) => boolean);
    accepts?: (mode: string, config: Readonly<Record<string, unknown>>) => boolean;
    secretRefs?: RuntimeDefinition['secretRefs'];
    egressUrls?: RuntimeDefinition['egressUrls'];
  } = {},
): void {
  registerRuntime({
    name,
    validate,
    secretRefs: options.secretRefs ?? ((c) => secretFieldRefs(c)),
    egressUrls: options.egressUrls ?? (() => []),
    traits: (c) => ({
      streaming: typeof options.streaming === 'function' ? options.streaming(c) : (options.streaming ?? true),
      accepts: options.accepts ? (mode) => options.accepts!(mode, c) : acceptsAll,
    }),
  });
}

export function runtimeDefinition(name: string): RuntimeDefinition | undefined {
  return registry.get(name);
}

export function runtimeNames(): string[] {
  return [...registry.keys()].sort();
}

/** The card's traits of a served version; an unknown runtime (or none served) claims nothing it cannot keep. */
export function cardTraits(runtime: string, config: Readonly<Record<string, unknown>>): RuntimeTraits {
  const def = registry.get(runtime);
  if (!def) return { streaming: false, accepts: acceptsAll };
  return def.traits(config);
}

/**
 * The card's input modes: the agent's declared modes the served runtime accepts. A wildcard the runtime does
 * not accept as a whole (`image/*` for a text-only model) is dropped.
 */
export function cardInputModes(declared: readonly string[], traits: RuntimeTraits): string[] {
  return declared.filter((m) => traits.accepts(m));
}

/** Checks made with I/O when a version is created: secrets of the subscription, the egress policy. */
export interface DefinitionChecks {
  secretExists(name: string): Promise<boolean>;
  /** Undefined when the URL may be called; else the reason. */
  checkEgressUrl(url: string): Promise<string | undefined>;
}

/**
 * Every problem of a definition (unknown runtime, bad field, missing secret, forbidden destination), the
 * shape first: references and URLs are checked only when the shape is right.
 */
export async function validateDefinition(
  runtime: string,
  config: Readonly<Record<string, unknown>>,
  checks: DefinitionChecks,
): Promise<DefinitionIssue[]> {
  const def = registry.get(runtime);
  if (!def) return [{ path: 'runtime', reason: `unknown runtime "${runtime}" (one of: ${runtimeNames().join(', ')})` }];
  const issues = def.validate(config).map((i) => ({ path: prefixed(i.path), reason: i.reason }));
  if (issues.length > 0) return issues;
  for (const ref of def.secretRefs(config)) {
    if (!(await checks.secretExists(ref.name)))
      issues.push({ path: prefixed(ref.path), reason: `secret "${ref.name}" does not exist in this subscription` });
  }
  for (const u of def.egressUrls(config)) {
    const reason = await checks.checkEgressUrl(u.url);
    if (reason) issues.push({ path: prefixed(u.path), reason });
  }
  return issues;
}

const prefixed = (path: string): string => (path ? `runtimeConfig.${path}` : 'runtimeConfig');

/** `runtimeConfig.tools[0].url: must point to a public address; runtime: …` — one line for the error message. */
export function describeIssues(issues: readonly DefinitionIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.reason}`).join('; ');
}
