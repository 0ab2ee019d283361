import { silentLogger } from '@a2a-inbound/logger';
import { inMemoryEngines, startSystem, type System } from '@a2a-inbound/embedded';
import type { Clock } from '@a2a-inbound/ports';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** A clock the tests can move forward (key expiry) without sleeping. */
export class SkewClock implements Clock {
  skewMs = 0;
  now(): number {
    return Date.now() + this.skewMs;
  }
}

export interface Harness {
  system: System;
  base: string;
  clock: SkewClock;
  creds: { a2aKey: string; invokeKey: string; adminToken: string; operatorToken: string };
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const clock = new SkewClock();
  const system = await startSystem({
    env: { PORT: '0', HOST: '127.0.0.1', ...env },
    engines: inMemoryEngines(clock),
    log: silentLogger(),
  });
  const creds = system.tasks.seed!.credentials!;
  return { system, base: system.baseUrl, clock, creds };
}

export async function closeHarness(h: Harness | undefined): Promise<void> {
  if (!h) return;
  await h.system.close();
  for (const c of [
    h.system.engines.bus,
    h.system.engines.eventLog,
    h.system.engines.cache,
    h.system.engines.limiter,
    h.system.engines.blobs,
    h.system.engines.store,
  ])
    await c.close();
}

/** Raw HTTP with an optional bearer token and JSON body (a string body is sent as is). */
export async function http(
  base: string,
  method: string,
  path: string,
  init: { token?: string | undefined; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  if (init.body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

let n = 0;
export const uid = (prefix: string): string => `${prefix}-${Date.now().toString(36)}-${(n += 1)}`;
