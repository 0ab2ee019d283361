import { describe, expect, it } from 'vitest';
import type { LinkResult } from '../../src/domain/link';
import { buildReport, renderMarkdown } from '../../src/domain/report';
import { buildServiceMap, mermaidText, renderMermaid } from '../../src/domain/service-map';
import { extractFixture } from './helpers';

const at = (source: string, line = 1) => ({ source, file: 'a.ts', line });

describe('service map (issue 20, item 6)', () => {
  it('messaging fixture: sources as nodes, one edge per (caller, target, kind) labelled with the binding the broker sees', async () => {
    const r = buildReport(await extractFixture('messaging'), { application: 'messaging' });
    const map = r.map!;
    expect(map.nodes.map((n) => [n.id, n.label, n.kind, n.messagingGaps])).toEqual([
      ['s1', 'audit-go', 'source', 0],
      ['s2', 'billing-cs', 'source', 0],
      ['s3', 'dashboard-js', 'source', 0],
      ['s4', 'notifier-py', 'source', 1],
      ['s5', 'orders-js', 'source', 1],
      ['s6', 'shipping-java', 'source', 1],
      ['gaps', 'messaging gaps', 'gaps', 0],
    ]);
    expect(map.edges.map((e) => `${e.from} ${e.kind} ${e.to}: ${e.label}`)).toEqual([
      's1 message s6: payments / payment.done → shipping.payments',
      's2 message s6: payments / payment.done → shipping.payments',
      's4 gap gaps: consumer: consume queue sms',
      's5 message s1: audit → audit.archive',
      's5 message s2: orders / order.* → billing.orders',
      's5 message s3: orders / order.# → dashboard.orders',
      's5 message s4: 2 bindings',
      's5 message s6: orders / order.cancelled → shipping.cancellations',
      's5 gap gaps: publisher: publish `inventory` / `stock.low`'.replaceAll('`', ''),
      's6 gap gaps: publisher: publish to queue `shipping.status` (default exchange)'.replaceAll('`', ''),
    ]);
    // Two bindings between one pair: the label counts them, the details name both.
    expect(map.edges.find((e) => e.from === 's5' && e.to === 's4')!.details).toEqual([
      '(default) → emails',
      'audit → audit-log',
    ]);
    // Every table row is behind one edge.
    expect(r.table.length).toBe(10);
  });

  it('API edges: the method and path when one, a count when several; unresolved calls go to a marker, infrastructure and external hosts to another', () => {
    const api = (from: string, to: string, edge: string, line: number) => ({
      kind: 'api' as const,
      caller: at(from, line),
      calls: edge,
      servedBy: at(to),
      served: edge,
      match: 'route',
      edge,
    });
    const result: LinkResult = {
      links: [
        api('web', 'orders', 'GET /api/orders/{id}', 1),
        api('web', 'orders', 'GET /api/orders/{id}', 2),
        api('web', 'users', 'GET /users', 3),
        api('web', 'users', 'POST /users', 4),
      ],
      bindings: [],
      unresolved: [
        { caller: at('web', 9), calls: 'GET {}/x', reason: 'dynamic URL', detail: '', candidates: [] },
        { caller: at('orders', 5), calls: 'SMTP mailhog:1025', reason: 'infrastructure', detail: '', candidates: [] },
        {
          caller: at('orders', 6),
          calls: 'GET https://api.stripe.com/v1',
          reason: 'external host',
          detail: '',
          candidates: [],
        },
      ],
      gaps: [],
      shared: [],
    };
    const map = buildServiceMap(['web', 'orders', 'users'], result);
    expect(map.nodes.map((n) => `${n.id}=${n.label}(${n.unresolvedCalls})`)).toEqual([
      's1=orders(2)',
      's2=users(0)',
      's3=web(1)',
      'unresolved=unresolved calls(0)',
      'external=external / infra(0)',
    ]);
    expect(map.edges.map((e) => `${e.from}-${e.kind}->${e.to}: ${e.label}`)).toEqual([
      's1-unresolved->external: 2 external calls',
      's3-api->s1: GET /api/orders/{id}',
      's3-api->s2: 2 API calls',
      's3-unresolved->unresolved: dynamic URL: GET {}/x',
    ]);
    expect(renderMermaid(map)).toBe(
      [
        'flowchart LR',
        '  s1["orders (2 unresolved calls)"]',
        '  s2["users"]',
        '  s3["web (1 unresolved call)"]',
        '  unresolved{{"unresolved calls"}}',
        '  external{{"external / infra"}}',
        '  s1 -.->|"2 external calls"| external',
        '  s3 -->|"GET /api/orders/{id}"| s1',
        '  s3 -->|"2 API calls"| s2',
        '  s3 -.->|"dynamic URL: GET {}/x"| unresolved',
      ].join('\n'),
    );
  });

  it('escapes Mermaid labels: quotes, HTML, pipes, backticks and # become entity codes; ids never carry a name', () => {
    expect(mermaidText('say "hi" <b>x</b> a|b #1 & `x`\nnext')).toBe(
      'say #34;hi#34; #60;b#62;x#60;/b#62; a#124;b #35;1 #38; #96;x#96; next',
    );
    const map = buildServiceMap(['we"ird <svc>', 'end'], {
      links: [
        {
          kind: 'api',
          caller: at('we"ird <svc>'),
          calls: 'GET /a',
          servedBy: at('end'),
          served: 'GET /a|<b>',
          match: 'm',
          edge: 'GET /a|<b>',
        },
      ],
      bindings: [],
      unresolved: [],
      gaps: [],
      shared: [],
    });
    expect(renderMermaid(map)).toBe(
      ['flowchart LR', '  s1["end"]', '  s2["we#34;ird #60;svc#62;"]', '  s2 -->|"GET /a#124;#60;b#62;"| s1'].join(
        '\n',
      ),
    );
  });

  it('the Markdown report carries the map as a mermaid flowchart LR block before the links table', async () => {
    const md = renderMarkdown(buildReport(await extractFixture('messaging'), { application: 'messaging' }));
    const block = /## Service map\n\n```mermaid\n(flowchart LR\n[\s\S]*?)\n```\n\n## Links/.exec(md);
    expect(block).not.toBeNull();
    expect(block![1]).toContain('  s5 ==>|"orders / order.#35; → dashboard.orders"| s3');
    expect(block![1]).toContain('  gaps{{"messaging gaps"}}');
    // No cross-boundary edge at all: no map (the empty state says it).
    const none = renderMarkdown(buildReport(await extractFixture('independent'), { application: 'independent' }));
    expect(none).not.toContain('```mermaid');
  });
});
