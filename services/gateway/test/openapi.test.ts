import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Router } from 'express';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { silentLogger } from '@a2a-inbound/logger';
import { InFlightLimit } from '@a2a-inbound/runtime';
import { LargeBodyGate } from '../src/http/spilled-body';
import type { GatewayClients, Lookups } from '../src/clients';
import { createConsole } from '../src/http/console';
import { createInvokeRouter } from '../src/http/invoke-router';
import { createLegacyRouter } from '../src/http/legacy-router';
import { createManagementRouter } from '../src/http/management-router';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const specPath = join(__dirname, '..', '..', '..', 'docs', 'openapi', 'management.yaml');
const spec = parse(readFileSync(specPath, 'utf8')) as {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: Record<string, Record<string, unknown>>;
};

/** The routers as the gateway builds them; nothing is called while routes are registered. */
function routers(): Router[] {
  const clients = { tasks: {}, control: {}, close: () => undefined } as unknown as GatewayClients;
  const common = { clients, lookups: {} as Lookups, log: silentLogger(), baseUrl: () => 'http://x' };
  const admission = {
    pending: new InFlightLimit(1, 'requests'),
    acceptTimeoutMs: 1000,
    largeBodies: new LargeBodyGate(1),
  };
  const agent = { ...common, admission, limiter: {} as never, clock: { now: () => 0 }, bodyLimitBytes: 1024 };
  return [
    createManagementRouter({ ...common, selfBaseUrl: () => 'http://x', providerOrganization: 'o', providerUrl: '' }),
    createLegacyRouter({ ...agent, sseHeartbeatMs: 1000, streams: new Set() }),
    createInvokeRouter({ ...agent, sseHeartbeatMs: 1000, streams: new Set() }),
    createConsole({
      dir: '/nonexistent',
      cache: {} as never,
      control: {} as never,
      log: silentLogger(),
      sessionTtlMs: 1000,
      publicBaseUrl: '',
      now: () => 0,
    }).router,
  ];
}

/** `METHOD /path/{param}` of every route the routers register (the catch-all 405 routes excluded). */
function registeredRoutes(): Set<string> {
  const out = new Set<string>();
  for (const r of routers()) {
    for (const layer of r.stack as unknown as {
      route?: { path: string | string[]; methods: Record<string, boolean> };
    }[]) {
      if (!layer.route) continue;
      const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (!on || method === '_all') continue;
        for (const p of paths) out.add(`${method.toUpperCase()} ${p.replace(/:(\w+)/g, '{$1}')}`);
      }
    }
  }
  return out;
}

function documentedRoutes(): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(spec.paths))
    for (const m of METHODS) if (item[m]) out.add(`${m.toUpperCase()} ${path}`);
  return out;
}

function resolve(ref: string): unknown {
  expect(ref.startsWith('#/')).toBe(true);
  let node: any = spec;
  for (const part of ref.slice(2).split('/')) node = node?.[part];
  return node;
}

describe('docs/openapi/management.yaml', () => {
  it('is OpenAPI 3.1 with every $ref resolvable', () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    const refs: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref' && typeof x === 'string') refs.push(x);
          else walk(x);
        }
      }
    };
    walk(spec);
    expect(refs.length).toBeGreaterThan(50);
    const unresolved = refs.filter((r) => resolve(r) === undefined);
    expect(unresolved).toEqual([]);
  });

  it('documents every registered route, and documents no route that is not registered', () => {
    const registered = registeredRoutes();
    const documented = documentedRoutes();
    expect(registered.size).toBeGreaterThanOrEqual(30);
    expect([...registered].filter((r) => !documented.has(r)).sort()).toEqual([]);
    expect([...documented].filter((r) => !registered.has(r)).sort()).toEqual([]);
  });

  it('gives every operation an id, a success answer, error answers and its path parameters', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(spec.paths)) {
      const pathParams = (item.parameters ?? []) as { $ref?: string; name?: string; in?: string }[];
      for (const m of METHODS) {
        const op = item[m];
        if (!op) continue;
        const where = `${m.toUpperCase()} ${path}`;
        expect(op.operationId, where).toEqual(expect.any(String));
        expect(ids.has(op.operationId), `${where}: duplicate operationId`).toBe(false);
        ids.add(op.operationId);
        const codes = Object.keys(op.responses ?? {});
        expect(
          codes.some((c) => /^2\d\d$/.test(c)),
          `${where}: success`,
        ).toBe(true);
        expect(
          codes.some((c) => /^4\d\d$/.test(c)),
          `${where}: errors`,
        ).toBe(true);
        if (!path.startsWith('/api/v1/me') && path !== '/console') expect(codes, `${where}: 401`).toContain('401');
        const params = [...pathParams, ...((op.parameters ?? []) as typeof pathParams)].map((p) =>
          p.$ref ? (resolve(p.$ref) as { name: string; in: string }) : p,
        );
        for (const name of [...path.matchAll(/\{(\w+)\}/g)].map((x) => x[1])) {
          expect(
            params.some((p) => p.in === 'path' && p.name === name),
            `${where}: path parameter ${name}`,
          ).toBe(true);
        }
      }
    }
  });

  it('marks the legacy endpoints deprecated with the Deprecation and Link headers, and the invoke endpoints with the invoke key', () => {
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const m of METHODS) {
        const op = item[m];
        if (!op) continue;
        if (path.includes('/tasks')) {
          expect(op.deprecated, path).toBe(true);
          expect(op.security).toEqual([{ a2aKey: [] }]);
          const ok = Object.entries(op.responses as Record<string, any>).find(([c]) => c.startsWith('2'))![1];
          expect(Object.keys(ok.headers ?? {})).toEqual(expect.arrayContaining(['Deprecation', 'Link']));
        } else if (/\/(runs?|conversations)\b/.test(path)) expect(op.security).toEqual([{ invokeKey: [] }]);
        else if (path.startsWith('/console'))
          expect([[], [{ consoleSession: [] }]]).toContainEqual(op.security); // sign-in and the static files: none
        else expect(op.security).toBeUndefined(); // the default: userToken
      }
    }
  });
});
