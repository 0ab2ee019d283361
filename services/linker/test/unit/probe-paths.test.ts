import { describe, expect, it } from 'vitest';
import { reportOf, rows, unresolved } from '../support/in-memory-report';

const lines = (...l: string[]): string => l.join('\n') + '\n';

const health = lines(
  'from fastapi import APIRouter',
  "ROUTER = APIRouter(prefix='/health')",
  "@ROUTER.get('')",
  'async def health():',
  "    return {'ok': True}",
);

describe('a health probe under a host only known at run time (issue 20)', () => {
  it('links by path uniqueness only when the path says which service it is, never for /health', async () => {
    const r = await reportOf({
      orders: {
        'src/health_route.py': health,
        'src/probe.py': lines(
          'import httpx',
          '',
          'async def status(cache, name):',
          '    root = await cache.get(name)',
          '    async with httpx.AsyncClient() as client:',
          "        await client.get(f'{root}/health')",
          "        return await client.post(f'{root}/v1/payments')",
        ),
      },
      payments: {
        'src/health_route.py': health,
        'src/api.py': lines(
          'from fastapi import APIRouter',
          "ROUTER = APIRouter(prefix='/v1/payments')",
          "@ROUTER.post('')",
          'async def create():',
          '    return {}',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/probe.py:7 | POST /v1/payments | payments src/api.py:3 POST /v1/payments (fastapi)',
    ]);
    expect(unresolved(r).filter((u) => u.includes('src/probe.py:6'))).toHaveLength(1);
    expect(unresolved(r).find((u) => u.includes('src/probe.py:6'))).toContain('health/readiness probe');
  });
});
