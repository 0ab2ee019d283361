import { describe, expect, it } from 'vitest';
import { RouteIndex, matchScore, segments } from '../../src/domain/routes';

/** The route index must offer exactly the templates `matchScore` accepts, in their order (ties go to the first). */
describe('RouteIndex (linking without visiting every template for every call)', () => {
  const templates = [
    '/api/orders/{id}',
    '/api/orders/{id:int}',
    '/api/orders/mine',
    '/api/**',
    '/**',
    '/api/v{version}/items',
    '/api/orders/{id}/lines/{line}',
    '/health',
    '/api/orders',
  ].map(segments);
  const calls = [
    '/api/orders/42',
    '/api/orders/mine',
    '/api/orders/${x}',
    '/api/v2/items',
    '/api/orders/7/lines/1',
    '/health',
    '/nothing/here',
    '/',
    '/api/orders',
  ].map((c) => segments(c.replace('${x}', '\u0000')));

  it('offers every template matchScore accepts, in template order, and prunes the other literal branches', () => {
    const index = new RouteIndex(templates);
    for (const call of calls) {
      const brute = templates.flatMap((t, i) => (matchScore(call, t) === undefined ? [] : [i]));
      const offered = index.candidates(call).filter((i) => matchScore(call, templates[i]!) !== undefined);
      expect(offered).toEqual(brute);
    }
    // A literal call does not visit templates of another literal branch.
    expect(index.candidates(segments('/health'))).toEqual([4, 7]);
  });
});
