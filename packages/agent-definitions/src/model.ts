import type { DefinitionIssue, RuntimeDefinition } from './registry';
import { urlTemplateProblem } from './url-template';

/** An HTTP tool of a `model` version: the model calls it with JSON arguments (validated by `parameters`). */
export interface HttpToolDefinition {
  type: 'http';
  /** Function name the model sees: [A-Za-z0-9_-]{1,64}. */
  name: string;
  description: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `https://api.example.com/weather/{city}?units={units}`: placeholders are filled from the arguments. */
  url: string;
  /** JSON Schema (type object) of the arguments. */
  parameters: Record<string, unknown>;
  /** Header values by secret reference (`{"X-Api-Key": "weather-key"}` → the secret's value). */
  headerSecrets: Record<string, string>;
  timeoutMs: number;
  maxResponseBytes: number;
  /** The run stops at `input-required` before the call; the user approves or rejects on the same task. */
  requiresApproval: boolean;
}

/**
 * An MCP tool server of a `model` version (Streamable HTTP): the runner connects at run start, lists its tools
 * and offers them to the model as `<name>__<tool>`.
 */
export interface McpServerDefinition {
  /** Namespace of its tools ([A-Za-z0-9_-]{1,24}, no `__`): the model sees `<name>__<tool>`. */
  name: string;
  /** The Streamable HTTP endpoint (`https://tools.example.com/mcp`): a fixed URL, through the egress policy. */
  url: string;
  /** Header values by secret reference (`{"Authorization": "mcp-token"}` → the secret's value). */
  headerSecrets: Record<string, string>;
  /** Only these tools of the server (by the server's names) are offered; undefined: every tool. */
  allowTools: string[] | undefined;
  /** Tools that need the user's approval before each call: `true` for all, or the server's tool names. */
  approval: boolean | string[];
  /** Connecting and listing, and each tool call. */
  timeoutMs: number;
  /** A tool result longer than this is cut (and the model is told). */
  maxResultBytes: number;
}

/** The configuration of the `model` runtime: an OpenAI-compatible Chat Completions provider. */
export interface ModelConfig {
  /** `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1` (Ollama, on the operator allow-list). */
  baseUrl: string;
  model: string;
  /** Secret holding the provider key (sent as `Authorization: Bearer …`); none for keyless local servers. */
  apiKeySecret: string | undefined;
  instructions: string;
  /** Earlier messages of the conversation (contextId) sent along: the memory window. */
  memoryMessages: number;
  /** Model calls of one run at most (each tool round is one). */
  maxSteps: number;
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
  /** One provider request (connect to the last byte). */
  requestTimeoutMs: number;
  /** Retries of a 429 or 5xx answer (with backoff). */
  maxRetries: number;
  stream: boolean;
  /** The model takes images (as data URLs): the card lists image input modes. */
  vision: boolean;
  tools: HttpToolDefinition[];
  mcpServers: McpServerDefinition[];
}

export const MODEL_LIMITS = {
  memoryMessages: { default: 20, max: 200 },
  maxSteps: { default: 6, max: 32 },
  requestTimeoutMs: { default: 60_000, min: 1_000, max: 600_000 },
  maxRetries: { default: 2, max: 6 },
  tools: { max: 32 },
  toolTimeoutMs: { default: 10_000, min: 100, max: 120_000 },
  toolMaxResponseBytes: { default: 256 * 1024, max: 4 * 1024 * 1024 },
  instructions: { maxChars: 32_000 },
  mcpServers: { max: 8 },
  /** Tools offered to the model from all MCP servers of a version at most (with 32 HTTP tools: 128, a common provider limit). */
  mcpTools: { max: 96 },
  mcpTimeoutMs: { default: 30_000, min: 100, max: 300_000 },
  mcpMaxResultBytes: { default: 256 * 1024, max: 4 * 1024 * 1024 },
} as const;

/** Separator of an MCP tool's name for the model: `<server>__<tool>`. */
export const MCP_TOOL_SEPARATOR = '__';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const KNOWN_FIELDS = new Set([
  'baseUrl',
  'model',
  'apiKeySecret',
  'instructions',
  'memoryMessages',
  'maxSteps',
  'temperature',
  'maxOutputTokens',
  'requestTimeoutMs',
  'maxRetries',
  'stream',
  'vision',
  'tools',
  'mcpServers',
]);
const MCP_FIELDS = new Set(['name', 'url', 'headerSecrets', 'allowTools', 'approval', 'timeoutMs', 'maxResultBytes']);
const TOOL_FIELDS = new Set([
  'type',
  'name',
  'description',
  'method',
  'url',
  'parameters',
  'headerSecrets',
  'timeoutMs',
  'maxResponseBytes',
  'requiresApproval',
]);
const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Checker {
  readonly issues: DefinitionIssue[] = [];
  constructor(readonly o: Obj) {}
  bad(path: string, reason: string): void {
    this.issues.push({ path, reason });
  }
  str(key: string, path: string, opts: { required?: boolean; max?: number } = {}): string | undefined {
    const v = this.o[key];
    if (v === undefined) {
      if (opts.required) this.bad(path, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || (opts.required && v.trim() === '')) {
      this.bad(path, 'must be a non-empty string');
      return undefined;
    }
    if (opts.max !== undefined && v.length > opts.max) this.bad(path, `must be at most ${opts.max} characters`);
    return v;
  }
  int(key: string, path: string, min: number, max: number): number | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.bad(path, `must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return v;
  }
  num(key: string, path: string, min: number, max: number): number | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
      this.bad(path, `must be a number from ${min} to ${max}`);
      return undefined;
    }
    return v;
  }
  bool(key: string, path: string): boolean | undefined {
    const v = this.o[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') {
      this.bad(path, 'must be true or false');
      return undefined;
    }
    return v;
  }
  unknownFields(known: ReadonlySet<string>, base: string): void {
    for (const k of Object.keys(this.o))
      if (!known.has(k)) this.bad(base ? `${base}.${k}` : k, `unknown field (known: ${[...known].join(', ')})`);
  }
}

function validateTool(t: unknown, base: string, names: Set<string>): DefinitionIssue[] {
  if (!isObj(t)) return [{ path: base, reason: 'must be an object' }];
  const c = new Checker(t);
  c.unknownFields(TOOL_FIELDS, base);
  if (t.type !== 'http') c.bad(`${base}.type`, 'must be "http"');
  const name = c.str('name', `${base}.name`, { required: true });
  if (name !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) c.bad(`${base}.name`, 'must match [A-Za-z0-9_-]{1,64}');
    else if (names.has(name)) c.bad(`${base}.name`, `duplicate tool name "${name}"`);
    names.add(name);
  }
  c.str('description', `${base}.description`, { max: 2_000 });
  const method = t.method === undefined ? 'GET' : t.method;
  if (typeof method !== 'string' || !(METHODS as readonly string[]).includes(method))
    c.bad(`${base}.method`, `must be one of ${METHODS.join(', ')}`);
  const url = c.str('url', `${base}.url`, { required: true, max: 2_048 });
  const urlProblem = url === undefined ? undefined : urlTemplateProblem(url);
  if (urlProblem) c.bad(`${base}.url`, urlProblem);
  const p = t.parameters;
  if (p !== undefined) {
    if (!isObj(p) || p.type !== 'object') c.bad(`${base}.parameters`, 'must be a JSON Schema of type "object"');
    else if (p.properties !== undefined && !isObj(p.properties))
      c.bad(`${base}.parameters.properties`, 'must be an object');
  }
  if (url !== undefined && isObj(p) && isObj(p.properties)) {
    for (const m of url.matchAll(/\{([^}]*)\}/g))
      if (!(m[1]! in p.properties)) c.bad(`${base}.url`, `placeholder {${m[1]}} is not a property of parameters`);
  } else if (url !== undefined && /\{[^}]*\}/.test(url)) {
    c.bad(`${base}.url`, 'placeholders need parameters with those properties');
  }
  validateHeaderSecrets(c, t.headerSecrets, `${base}.headerSecrets`);
  const L = MODEL_LIMITS;
  c.int('timeoutMs', `${base}.timeoutMs`, L.toolTimeoutMs.min, L.toolTimeoutMs.max);
  c.int('maxResponseBytes', `${base}.maxResponseBytes`, 1, L.toolMaxResponseBytes.max);
  c.bool('requiresApproval', `${base}.requiresApproval`);
  return c.issues;
}

function validateHeaderSecrets(c: Checker, hs: unknown, base: string): void {
  if (hs === undefined) return;
  if (!isObj(hs)) return c.bad(base, 'must be an object of header name → secret name');
  for (const [h, s] of Object.entries(hs)) {
    if (!/^[A-Za-z0-9-]{1,64}$/.test(h)) c.bad(`${base}.${h}`, 'is not a valid header name');
    if (typeof s !== 'string' || !SECRET_NAME.test(s)) c.bad(`${base}.${h}`, 'must name a secret');
  }
}

function validateToolNames(c: Checker, v: unknown, path: string): void {
  if (!Array.isArray(v) || v.length > 256 || !v.every((n) => typeof n === 'string' && n.length > 0 && n.length <= 128))
    c.bad(path, 'must be an array of tool names');
}

function validateMcpServer(s: unknown, base: string, names: Set<string>): DefinitionIssue[] {
  if (!isObj(s)) return [{ path: base, reason: 'must be an object' }];
  const c = new Checker(s);
  const L = MODEL_LIMITS;
  c.unknownFields(MCP_FIELDS, base);
  const name = c.str('name', `${base}.name`, { required: true });
  if (name !== undefined) {
    if (!/^[A-Za-z0-9_-]{1,24}$/.test(name) || name.includes(MCP_TOOL_SEPARATOR) || name.endsWith('_'))
      c.bad(`${base}.name`, 'must match [A-Za-z0-9_-]{1,24}, without "__" and not ending in "_"');
    else if (names.has(name)) c.bad(`${base}.name`, `duplicate MCP server name "${name}"`);
    names.add(name);
  }
  const url = c.str('url', `${base}.url`, { required: true, max: 2_048 });
  if (url !== undefined) {
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      c.bad(`${base}.url`, 'must be an http or https URL');
    else if (/[{}]/.test(url)) c.bad(`${base}.url`, 'must be a fixed URL (no placeholders)');
  }
  validateHeaderSecrets(c, s.headerSecrets, `${base}.headerSecrets`);
  if (s.allowTools !== undefined) validateToolNames(c, s.allowTools, `${base}.allowTools`);
  if (s.approval !== undefined && typeof s.approval !== 'boolean') validateToolNames(c, s.approval, `${base}.approval`);
  c.int('timeoutMs', `${base}.timeoutMs`, L.mcpTimeoutMs.min, L.mcpTimeoutMs.max);
  c.int('maxResultBytes', `${base}.maxResultBytes`, 1, L.mcpMaxResultBytes.max);
  return c.issues;
}

export function validateModelConfig(config: Obj): DefinitionIssue[] {
  const c = new Checker(config);
  const L = MODEL_LIMITS;
  c.unknownFields(KNOWN_FIELDS, '');
  const baseUrl = c.str('baseUrl', 'baseUrl', { required: true, max: 2_048 });
  if (baseUrl !== undefined) {
    try {
      const u = new URL(baseUrl);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') c.bad('baseUrl', 'must be an http or https URL');
    } catch {
      c.bad('baseUrl', 'must be an http or https URL');
    }
  }
  c.str('model', 'model', { required: true, max: 256 });
  const key = c.str('apiKeySecret', 'apiKeySecret');
  if (key !== undefined && !SECRET_NAME.test(key)) c.bad('apiKeySecret', 'must name a secret');
  c.str('instructions', 'instructions', { max: L.instructions.maxChars });
  c.int('memoryMessages', 'memoryMessages', 0, L.memoryMessages.max);
  c.int('maxSteps', 'maxSteps', 1, L.maxSteps.max);
  c.num('temperature', 'temperature', 0, 2);
  c.int('maxOutputTokens', 'maxOutputTokens', 1, 1_000_000);
  c.int('requestTimeoutMs', 'requestTimeoutMs', L.requestTimeoutMs.min, L.requestTimeoutMs.max);
  c.int('maxRetries', 'maxRetries', 0, L.maxRetries.max);
  c.bool('stream', 'stream');
  c.bool('vision', 'vision');
  const tools = config.tools;
  if (tools !== undefined) {
    if (!Array.isArray(tools)) c.bad('tools', 'must be an array');
    else if (tools.length > L.tools.max) c.bad('tools', `at most ${L.tools.max} tools`);
    else {
      const names = new Set<string>();
      tools.forEach((t, i) => c.issues.push(...validateTool(t, `tools[${i}]`, names)));
    }
  }
  const servers = config.mcpServers;
  if (servers !== undefined) {
    if (!Array.isArray(servers)) c.bad('mcpServers', 'must be an array');
    else if (servers.length > L.mcpServers.max) c.bad('mcpServers', `at most ${L.mcpServers.max} MCP servers`);
    else {
      const names = new Set<string>();
      servers.forEach((s, i) => c.issues.push(...validateMcpServer(s, `mcpServers[${i}]`, names)));
      // An HTTP tool named like an MCP tool would be ambiguous to the model.
      if (Array.isArray(tools))
        tools.forEach((t, i) => {
          const n = isObj(t) && typeof t.name === 'string' ? t.name : '';
          const ns = n.split(MCP_TOOL_SEPARATOR)[0]!;
          if (n.includes(MCP_TOOL_SEPARATOR) && names.has(ns))
            c.bad(`tools[${i}].name`, `"${ns}${MCP_TOOL_SEPARATOR}" is the namespace of the MCP server "${ns}"`);
        });
    }
  }
  return c.issues;
}

/** The configuration with its defaults; call on a configuration `validateModelConfig` accepted. */
export function parseModelConfig(config: Obj): ModelConfig {
  const L = MODEL_LIMITS;
  const tools = Array.isArray(config.tools) ? (config.tools as Obj[]) : [];
  const servers = Array.isArray(config.mcpServers) ? (config.mcpServers as Obj[]) : [];
  return {
    baseUrl: String(config.baseUrl).replace(/\/+$/, ''),
    model: String(config.model),
    apiKeySecret: typeof config.apiKeySecret === 'string' ? config.apiKeySecret : undefined,
    instructions: typeof config.instructions === 'string' ? config.instructions : '',
    memoryMessages: typeof config.memoryMessages === 'number' ? config.memoryMessages : L.memoryMessages.default,
    maxSteps: typeof config.maxSteps === 'number' ? config.maxSteps : L.maxSteps.default,
    temperature: typeof config.temperature === 'number' ? config.temperature : undefined,
    maxOutputTokens: typeof config.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined,
    requestTimeoutMs:
      typeof config.requestTimeoutMs === 'number' ? config.requestTimeoutMs : L.requestTimeoutMs.default,
    maxRetries: typeof config.maxRetries === 'number' ? config.maxRetries : L.maxRetries.default,
    stream: config.stream !== false,
    vision: config.vision === true,
    tools: tools.map((t) => ({
      type: 'http' as const,
      name: String(t.name),
      description: typeof t.description === 'string' ? t.description : '',
      method: (typeof t.method === 'string' ? t.method : 'GET') as HttpToolDefinition['method'],
      url: String(t.url),
      parameters: isObj(t.parameters) ? { ...t.parameters } : { type: 'object', properties: {} },
      headerSecrets: isObj(t.headerSecrets) ? { ...(t.headerSecrets as Record<string, string>) } : {},
      timeoutMs: typeof t.timeoutMs === 'number' ? t.timeoutMs : L.toolTimeoutMs.default,
      maxResponseBytes: typeof t.maxResponseBytes === 'number' ? t.maxResponseBytes : L.toolMaxResponseBytes.default,
      requiresApproval: t.requiresApproval === true,
    })),
    mcpServers: servers.map((s) => ({
      name: String(s.name),
      url: String(s.url),
      headerSecrets: isObj(s.headerSecrets) ? { ...(s.headerSecrets as Record<string, string>) } : {},
      allowTools: Array.isArray(s.allowTools) ? s.allowTools.map(String) : undefined,
      approval: Array.isArray(s.approval) ? s.approval.map(String) : s.approval === true,
      timeoutMs: typeof s.timeoutMs === 'number' ? s.timeoutMs : L.mcpTimeoutMs.default,
      maxResultBytes: typeof s.maxResultBytes === 'number' ? s.maxResultBytes : L.mcpMaxResultBytes.default,
    })),
  };
}

/** Media types the model runtime makes use of: text (inline), JSON, and images when the model has vision. */
export function modelAccepts(mode: string, config: Obj): boolean {
  const m = mode.toLowerCase();
  if (m.startsWith('text/') || m === 'application/json') return true;
  return m.startsWith('image/') && config.vision === true;
}

export const modelRuntimeDefinition: RuntimeDefinition = {
  name: 'model',
  validate: validateModelConfig,
  secretRefs: (config) => {
    const c = parseModelConfig(config);
    const refs: { path: string; name: string }[] = [];
    if (c.apiKeySecret) refs.push({ path: 'apiKeySecret', name: c.apiKeySecret });
    c.tools.forEach((t, i) => {
      for (const [h, s] of Object.entries(t.headerSecrets))
        refs.push({ path: `tools[${i}].headerSecrets.${h}`, name: s });
    });
    c.mcpServers.forEach((m, i) => {
      for (const [h, s] of Object.entries(m.headerSecrets))
        refs.push({ path: `mcpServers[${i}].headerSecrets.${h}`, name: s });
    });
    return refs;
  },
  egressUrls: (config) => {
    const c = parseModelConfig(config);
    return [
      { path: 'baseUrl', url: c.baseUrl },
      ...c.tools.map((t, i) => ({ path: `tools[${i}].url`, url: t.url })),
      ...c.mcpServers.map((m, i) => ({ path: `mcpServers[${i}].url`, url: m.url })),
    ];
  },
  traits: (config) => ({ streaming: config.stream !== false, accepts: (mode) => modelAccepts(mode, config) }),
};
