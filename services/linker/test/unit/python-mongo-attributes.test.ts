import { describe, expect, it } from 'vitest';
import { reportOf } from '../support/in-memory-report';

const lines = (...l: string[]): string => l.join('\n') + '\n';

describe('Python: pymongo/motor collections by attribute access', () => {
  it('client.<db>.<collection>.find_one(…) and db.<collection>.insert_one(…) touch that collection; a collection only one service touches, and attribute chains that are no database, are not shared', async () => {
    const r = await reportOf({
      orders: {
        'app/registry.py': lines(
          'from .engine import Engine',
          '',
          'async def url_of(name):',
          '    doc = await Engine.client.registry.service_urls.find_one({"_id": name})',
          '    return doc["url"]',
        ),
        'app/repo.py': lines(
          'class Repo:',
          '    def __init__(self, client):',
          '        self.client = client',
          '',
          '    async def add(self, order):',
          '        await self.client.api_db.orders.insert_one(order)',
        ),
      },
      payments: {
        'app/seed.py': lines(
          'from pymongo import MongoClient',
          '',
          'db = MongoClient("mongodb://mongo").registry',
          '',
          'def seed():',
          '    db.service_urls.insert_one({"_id": "payments", "url": "http://payments:8000"})',
        ),
        'app/repo.py': lines(
          'class Repo:',
          '    def __init__(self, api):',
          '        self.api = api',
          '',
          '    async def add(self, payment):',
          '        await self.api.payments.insert_one(payment)',
          '        await self.api.orders.find_one(payment)',
        ),
      },
    });
    expect(
      r.sharedData.map((d) => `${d.store}: ${d.touchedBy.map((e) => `${e.source} ${e.file}:${e.line}`).join(', ')}`),
    ).toEqual(['collection `service_urls`: orders app/registry.py:4, payments app/seed.py:6']);
  });
});
