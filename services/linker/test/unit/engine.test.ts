import { describe, expect, it } from 'vitest';
import { gaps, reportOf, rows, unresolved } from '../support/in-memory-report';

/**
 * Issue 20: capabilities of the shared engine (framework knowledge as table rows, one evaluator), each
 * with a small application written here the way such code is written, and the exact report expected.
 */
const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('file-system routes (table FS_ROUTES)', () => {
  it('Next.js pages/api handlers by switch (method) and method comparisons, app-router exports, pages; only with next in package.json', async () => {
    const r = await reportOf({
      web: {
        'package.json': JSON.stringify({ dependencies: { next: '15.0.0', react: '19.0.0' } }),
        'pages/api/cart.ts': lines(
          'const handler = async ({ method }, res) => {',
          '  switch (method) {',
          "    case 'GET': {",
          '      return res.json([]);',
          '    }',
          "    case 'POST': {",
          '      return res.json({});',
          '    }',
          '  }',
          '};',
          'export default handler;',
        ),
        'pages/api/products/[productId]/index.ts': lines(
          'export default async function handler(req, res) {',
          "  if (req.method === 'GET') return res.json({});",
          '}',
        ),
        'app/api/orders/[id]/route.ts': lines(
          'export async function GET(request) { return Response.json({}); }',
          'export const DELETE = async () => new Response(null);',
        ),
        'pages/index.tsx': lines('export default function Home() { return null; }'),
        'pages/_app.tsx': lines('export default function App() { return null; }'),
      },
      spa: {
        'package.json': JSON.stringify({ dependencies: { react: '19.0.0' } }),
        'src/pages/api/users.ts': lines('export default function Users() { return null; }'),
      },
      tools: {
        'client.py': lines(
          'import os, httpx',
          'BASE = os.getenv("SHOP_ENDPOINT", "localhost:8080")',
          'def cart():',
          '    return httpx.get(f"http://{BASE}/api/cart")',
          'def add():',
          '    return httpx.post(f"http://{BASE}/api/cart", json={})',
          'def product(pid):',
          '    return httpx.get(f"http://{BASE}/api/products/{pid}")',
          'def order(oid):',
          '    return httpx.delete(f"http://{BASE}/api/orders/{oid}")',
          'def home():',
          '    return httpx.get(f"http://{BASE}/")',
          'def users():',
          '    return httpx.get(f"http://{BASE}/api/users")',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'tools client.py:4 | GET localhost/api/cart | web pages/api/cart.ts:3 GET /api/cart (Next.js API route)',
      'tools client.py:6 | POST localhost/api/cart | web pages/api/cart.ts:6 POST /api/cart (Next.js API route)',
      'tools client.py:8 | GET localhost/api/products/{} | web pages/api/products/[productId]/index.ts:2 GET /api/products/[productId] (Next.js API route)',
      'tools client.py:10 | DELETE localhost/api/orders/{} | web app/api/orders/[id]/route.ts:2 DELETE /api/orders/[id] (Next.js route handler)',
      'tools client.py:12 | GET localhost/ | web pages/index.tsx:1 GET / (Next.js page)',
    ]);
    // The SPA's src/pages/api/users.ts is a component (no next dependency): nothing serves /api/users.
    expect(unresolved(r).map((u) => u.split(' — ')[0])).toEqual(['tools client.py:14 GET localhost/api/users']);
  });

  it('SvelteKit +server.ts exports and Nuxt server/api files with a method suffix', async () => {
    const r = await reportOf({
      kit: {
        'package.json': JSON.stringify({ devDependencies: { '@sveltejs/kit': '2.0.0' } }),
        'src/routes/api/items/[id]/+server.ts': lines(
          'export async function PUT({ params }) { return new Response(); }',
        ),
      },
      nuxt: {
        'package.json': JSON.stringify({ dependencies: { nuxt: '3.0.0' } }),
        'server/api/stock/[sku].get.ts': lines('export default defineEventHandler(() => ({}));'),
      },
      caller: {
        'main.go': lines(
          'package main',
          'import ("net/http"; "os")',
          'func main() {',
          '\treq, _ := http.NewRequest("PUT", os.Getenv("KIT_URL")+"/api/items/7", nil)',
          '\thttp.DefaultClient.Do(req)',
          '\thttp.Get(os.Getenv("NUXT_URL") + "/api/stock/abc")',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'caller main.go:4 | PUT /api/items/7 | kit src/routes/api/items/[id]/+server.ts:1 PUT /api/items/[id] (SvelteKit endpoint)',
      'caller main.go:6 | GET /api/stock/abc | nuxt server/api/stock/[sku].get.ts:1 GET /api/stock/[sku] (Nuxt server route)',
    ]);
  });
});

describe('Envoy front proxy (static_resources routes as gateway routes)', () => {
  it('prefix routes with prefix_rewrite, a catch-all last, cluster addresses from ${X} defaulting to the cluster name', async () => {
    const r = await reportOf({
      proxy: {
        'envoy.yaml': lines(
          'static_resources:',
          '  listeners:',
          '    - filter_chains:',
          '        - filters:',
          '            - typed_config:',
          '                route_config:',
          '                  virtual_hosts:',
          '                    - name: front',
          '                      routes:',
          '                        - match: { prefix: "/images/" }',
          '                          route: { cluster: images, prefix_rewrite: "/" }',
          '                        - match: { prefix: "/" }',
          '                          route: { cluster: web }',
          '  clusters:',
          '    - name: web',
          '      load_assignment:',
          '        endpoints:',
          '          - lb_endpoints:',
          '              - endpoint:',
          '                  address:',
          '                    socket_address: { address: "${WEB_HOST}", port_value: 8080 }',
          '    - name: images',
          '      load_assignment:',
          '        endpoints:',
          '          - lb_endpoints:',
          '              - endpoint:',
          '                  address:',
          '                    socket_address: { address: img, port_value: 80 }',
        ),
      },
      web: { 'server.js': lines('const app = require("express")();', 'app.get("/api/cart", h);') },
      img: { 'app.py': lines('@app.route("/products/<name>")', 'def pic(name):', '    return ""') },
      loadgen: {
        'script.js': lines(
          "import http from 'k6/http';",
          "const BASE = __ENV.TARGET_URL || 'http://proxy:8080';",
          'export default function () {',
          '  http.get(`${BASE}/api/cart`);',
          '  http.get(`${BASE}/images/products/telescope.jpg`);',
          '}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'loadgen script.js:4 | GET proxy/api/cart | web server.js:2 GET /api/cart (express)',
      'loadgen script.js:5 | GET proxy/images/products/telescope.jpg | img app.py:1 GET /products/<name> (flask)',
    ]);
    expect(gaps(r)).toEqual([]);
  });
});
