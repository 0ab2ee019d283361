import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// The console's service-map layout (pure: no DOM), on the linker's fixture reports.
import {
  type Box,
  type Layout,
  type ServiceMap,
  WIDE_MAX,
  layers,
  layoutMap,
  overlaps,
  wideLayout,
  wrap,
} from '../../console/src/map-layout';

const FIXTURES = join(__dirname, '../../services/linker/test/fixtures');
const mapOf = (app: string): ServiceMap =>
  (JSON.parse(readFileSync(join(FIXTURES, app, 'expected-report.json'), 'utf8')) as { map: ServiceMap }).map;

/** What a phone leaves the console's main column at 390 px (1 rem padding each side). */
const PHONE_WIDTH = 390 - 32;

describe('service map layout', () => {
  for (const app of ['messaging', 'extras', 'http-polyglot', 'kafka', 'routing-rules', 'no-bindings']) {
    for (const o of ['horizontal', 'vertical', 'wide'] as const) {
      it(`${app} (${o}): every node and edge placed once, labels apart from nodes and from each other, inside the drawing`, () => {
        const map = mapOf(app);
        const draw = (m: ServiceMap): Layout => (o === 'wide' ? wideLayout(m) : layoutMap(m, o));
        const l = draw(map);
        expect(l.nodes.map((n) => n.node.id)).toEqual(map.nodes.map((n) => n.id));
        expect(l.edges.map((e) => `${e.edge.from}>${e.edge.to}:${e.edge.kind}`)).toEqual(
          map.edges.map((e) => `${e.from}>${e.to}:${e.kind}`),
        );
        const inside = (b: Box): boolean => b.x >= 0 && b.y >= 0 && b.x + b.w <= l.width && b.y + b.h <= l.height;
        const boxes: [string, Box][] = [
          ...l.nodes.map((n): [string, Box] => [`node ${n.node.label}`, n]),
          ...l.edges.map((e): [string, Box] => [`label ${e.edge.from}>${e.edge.to}`, e.label]),
        ];
        const clashes: string[] = [];
        boxes.forEach(([a, p], i) => {
          if (!inside(p)) clashes.push(`${a} outside`);
          for (const [b, q] of boxes.slice(i + 1)) if (overlaps(p, q)) clashes.push(`${a} / ${b}`);
        });
        expect(clashes).toEqual([]);
        // Every edge's path starts on its caller's node and ends on its target's.
        for (const e of l.edges) {
          const nums = e.path.match(/-?[\d.]+/g)!.map(Number);
          const [x0, y0] = nums;
          const [x1, y1] = nums.slice(-2);
          const a = l.nodes.find((n) => n.node.id === e.edge.from)!;
          const b = l.nodes.find((n) => n.node.id === e.edge.to)!;
          const on = (n: Box, x: number, y: number): boolean =>
            x >= n.x - 0.1 && x <= n.x + n.w + 0.1 && y >= n.y - 0.1 && y <= n.y + n.h + 0.1;
          expect(on(a, x0!, y0!) && on(b, x1!, y1!), e.path).toBe(true);
        }
        if (o === 'vertical') expect(l.width).toBeLessThanOrEqual(PHONE_WIDTH);
        if (o === 'wide') expect(l.width).toBeLessThanOrEqual(WIDE_MAX);
        // Deterministic: the same map, the same drawing.
        expect(draw(JSON.parse(JSON.stringify(map)) as ServiceMap)).toEqual(l);
      });
    }
  }

  it('layers by longest path from the callers nobody calls, cycles broken, markers last', () => {
    const map = mapOf('messaging');
    const layer = layers(map);
    const by = (label: string): number => layer.get(map.nodes.find((n) => n.label === label)!.id)!;
    // orders-js publishes to everyone; audit-go and billing-cs feed shipping-java.
    expect(by('orders-js')).toBe(0);
    expect([by('audit-go'), by('billing-cs'), by('dashboard-js'), by('notifier-py')]).toEqual([1, 1, 1, 1]);
    expect(by('shipping-java')).toBe(2);
    expect(by('messaging gaps')).toBe(3);
    // extras has a cycle (gateway-ts → items-go → legacy-py → gateway-ts): every node still has one layer.
    const extras = mapOf('extras');
    const l = layers(extras);
    expect(extras.nodes.every((n) => Number.isInteger(l.get(n.id)))).toBe(true);
  });

  it('the wide drawing goes left to right when that fits the report column, else top to bottom five a row', () => {
    const two: ServiceMap = {
      nodes: [
        { id: 's1', label: 'web', kind: 'source', unresolvedCalls: 0, messagingGaps: 0 },
        { id: 's2', label: 'orders', kind: 'source', unresolvedCalls: 0, messagingGaps: 0 },
      ],
      edges: [{ from: 's1', to: 's2', kind: 'api', label: 'GET /orders', details: ['GET /orders'] }],
    };
    expect(wideLayout(two).orientation).toBe('horizontal');
    // messaging: orders-js → four consumers → shipping-java → the gaps marker is four layers deep.
    const deep = wideLayout(mapOf('messaging'));
    expect(deep.orientation).toBe('vertical');
    const rowOf = new Map<number, string[]>();
    for (const n of deep.nodes) rowOf.set(n.y, [...(rowOf.get(n.y) ?? []), n.node.label]);
    expect([...rowOf.entries()].sort((a, b) => a[0] - b[0]).map(([, row]) => row)).toEqual([
      ['orders-js'],
      ['audit-go', 'billing-cs', 'dashboard-js', 'notifier-py'],
      ['shipping-java'],
      ['messaging gaps'],
    ]);
  });

  it('cuts long names and labels to their box, and keeps the whole text for the title', () => {
    const long = 'a-service-with-a-very-long-repository-name-indeed';
    const map: ServiceMap = {
      nodes: [
        { id: 's1', label: long, kind: 'source', unresolvedCalls: 3, messagingGaps: 1 },
        { id: 's2', label: 'b', kind: 'source', unresolvedCalls: 0, messagingGaps: 0 },
      ],
      edges: [
        {
          from: 's1',
          to: 's2',
          kind: 'api',
          label: 'GET /api/v1/a/really/long/path/that/never/ends/{id}/and/more',
          details: [],
        },
      ],
    };
    for (const o of ['horizontal', 'vertical'] as const) {
      const l = layoutMap(map, o);
      expect(l.nodes[0]!.text.endsWith('…')).toBe(true);
      expect(l.nodes[0]!.badge).toBe('3 unresolved · 1 gap');
      const label = l.edges[0]!.label;
      // Two lines at most, broken at a space; the second cut when the text needs more.
      expect(label.lines.length).toBe(2);
      expect(label.lines[0]!.startsWith('GET /api/v1/')).toBe(true);
      for (const line of label.lines) expect(line.length * 7.4).toBeLessThanOrEqual(label.w);
    }
  });

  it('wraps a label at spaces into two lines, cutting only what does not fit', () => {
    expect(wrap('orders / order.cancelled → shipping.cancellations', 28, 2)).toEqual([
      'orders / order.cancelled →',
      'shipping.cancellations',
    ]);
    expect(wrap('short', 28, 2)).toEqual(['short']);
    expect(wrap('publisher: publish to queue shipping.status (default exchange)', 28, 2)).toEqual([
      'publisher: publish to queue',
      'shipping.status (default ex…',
    ]);
    expect(wrap('x'.repeat(40), 28, 2)).toEqual(['x'.repeat(28), 'x'.repeat(12)]);
  });
});
