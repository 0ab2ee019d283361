import { describe, expect, it } from 'vitest';
import { reportOf, rows } from '../support/in-memory-report';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;

describe('httpx imported by name (issue 20)', () => {
  it('`from httpx import AsyncClient` in `async with … as client`, the URL a keyword argument: a call of the service', async () => {
    const r = await reportOf({
      orders: {
        'src/pay.py': lines(
          'from httpx import AsyncClient',
          '',
          'async def pay(body):',
          '    async with AsyncClient(verify=False) as client:',
          "        url = 'http://payments:8001/v1/payments'",
          '        resp = await client.post(timeout=5, data=body, url=url)',
          '    return resp',
        ),
      },
      payments: {
        'src/api.py': lines(
          'from fastapi import APIRouter',
          "ROUTER = APIRouter(prefix='/v1/payments')",
          '',
          "@ROUTER.post('')",
          'async def create(body: dict):',
          '    return body',
        ),
      },
    });
    expect(rows(r)).toEqual([
      'orders src/pay.py:6 | POST payments/v1/payments | payments src/api.py:4 POST /v1/payments (fastapi)',
    ]);
  });
});
