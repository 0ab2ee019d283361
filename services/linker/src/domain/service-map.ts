import type { LinkResult, UnresolvedCall } from './link';

/**
 * The service map (issue 20, item 6): the report's links as a graph the console draws as SVG and the Markdown
 * report as Mermaid. Sources are nodes; API links and message flows are edges aggregated per (caller, target,
 * kind); unresolved calls and messaging gaps are dashed edges to one of three marker nodes, and counted on
 * their source's node. Every list is sorted, so a report always has the same map.
 */
export type MapNodeKind = 'source' | 'unresolved' | 'external' | 'gaps';
export type MapEdgeKind = 'api' | 'message' | 'unresolved' | 'gap';

export interface MapNode {
  /** `s1`…`sN` for the sources in name order, else the marker's kind: safe in Mermaid and SVG ids. */
  readonly id: string;
  readonly label: string;
  readonly kind: MapNodeKind;
  readonly unresolvedCalls: number;
  readonly messagingGaps: number;
}

export interface MapEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: MapEdgeKind;
  /** The one route or binding, or a count when there are several. */
  readonly label: string;
  /** Every distinct route, binding or finding behind the edge. */
  readonly details: readonly string[];
}

export interface ServiceMap {
  readonly nodes: readonly MapNode[];
  readonly edges: readonly MapEdge[];
}

const MARKERS: Record<Exclude<MapNodeKind, 'source'>, string> = {
  unresolved: 'unresolved calls',
  external: 'external / infra',
  gaps: 'messaging gaps',
};

/** Calls to something outside the attached repositories, as opposed to ones the linker could not place. */
const outside = (u: UnresolvedCall): boolean => u.reason === 'external host' || u.reason === 'infrastructure';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function buildServiceMap(sources: readonly string[], result: LinkResult): ServiceMap {
  const names = [...sources].sort();
  const id = new Map(names.map((n, i) => [n, `s${i + 1}`]));
  const unresolved = new Map<string, number>();
  const gaps = new Map<string, number>();
  for (const u of result.unresolved) unresolved.set(u.caller.source, (unresolved.get(u.caller.source) ?? 0) + 1);
  for (const g of result.gaps) gaps.set(g.at.source, (gaps.get(g.at.source) ?? 0) + 1);

  // (from, to, kind) → the rows behind the edge.
  const groups = new Map<string, { from: string; to: string; kind: MapEdgeKind; details: string[] }>();
  const add = (from: string, to: string, kind: MapEdgeKind, detail: string): void => {
    const key = `${from}|${to}|${kind}`;
    const g = groups.get(key) ?? { from, to, kind, details: [] };
    g.details.push(detail);
    groups.set(key, g);
  };
  for (const l of result.links) {
    const from = id.get(l.caller.source);
    const to = id.get(l.servedBy.source);
    if (from && to) add(from, to, l.kind, l.edge);
  }
  for (const u of result.unresolved) {
    const from = id.get(u.caller.source);
    if (from) add(from, outside(u) ? 'external' : 'unresolved', 'unresolved', `${u.reason}: ${u.calls}`);
  }
  for (const g of result.gaps) {
    const from = id.get(g.at.source);
    if (from) add(from, 'gaps', 'gap', `${g.side}: ${g.what}`);
  }

  const edges: MapEdge[] = [...groups.values()].map((g) => {
    const distinct = [...new Set(g.details)].sort();
    const count = g.details.length;
    const label =
      g.kind === 'api'
        ? distinct.length === 1
          ? distinct[0]!
          : plural(count, 'API call')
        : g.kind === 'message'
          ? distinct.length === 1
            ? distinct[0]!
            : plural(distinct.length, 'binding')
          : g.kind === 'unresolved'
            ? count === 1
              ? g.details[0]!
              : plural(count, g.to === 'external' ? 'external call' : 'unresolved call')
            : count === 1
              ? g.details[0]!.replaceAll('`', '')
              : plural(count, 'gap');
    return { from: g.from, to: g.to, kind: g.kind, label, details: distinct };
  });
  const order = (e: MapEdge): string => `${e.from.padStart(8)}|${e.to.padStart(10)}|${e.kind}`;
  edges.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));

  const nodes: MapNode[] = names.map((n) => ({
    id: id.get(n)!,
    label: n,
    kind: 'source',
    unresolvedCalls: unresolved.get(n) ?? 0,
    messagingGaps: gaps.get(n) ?? 0,
  }));
  for (const kind of ['unresolved', 'external', 'gaps'] as const)
    if (edges.some((e) => e.to === kind))
      nodes.push({ id: kind, label: MARKERS[kind], kind, unresolvedCalls: 0, messagingGaps: 0 });
  return { nodes, edges };
}

/**
 * Mermaid text, always quoted in `"…"`: a double quote would end it, `<`, `>` and `&` would be read as HTML
 * (Mermaid renders labels as HTML and drops unknown tags: `<int:id>` would vanish), `|` ends an edge label, a
 * leading backtick starts Markdown, and `#` starts Mermaid's own entity codes, `#NNN;`, which escape them all.
 */
export function mermaidText(s: string): string {
  return s.replace(/\s+/g, ' ').replace(/["#<>&|`]/g, (c) => `#${c.charCodeAt(0)};`);
}

/** The map as a Mermaid `flowchart LR` block (without the Markdown fence). */
export function renderMermaid(map: ServiceMap): string {
  const out = ['flowchart LR'];
  for (const n of map.nodes) {
    const badges = [
      n.unresolvedCalls ? plural(n.unresolvedCalls, 'unresolved call') : '',
      n.messagingGaps ? plural(n.messagingGaps, 'messaging gap') : '',
    ].filter(Boolean);
    const text = mermaidText(badges.length ? `${n.label} (${badges.join(', ')})` : n.label);
    // Sources are boxes; the markers are hexagons, apart from the services.
    out.push(n.kind === 'source' ? `  ${n.id}["${text}"]` : `  ${n.id}{{"${text}"}}`);
  }
  for (const e of map.edges) {
    const arrow = e.kind === 'api' ? '-->' : e.kind === 'message' ? '==>' : '-.->';
    out.push(`  ${e.from} ${arrow}|"${mermaidText(e.label)}"| ${e.to}`);
  }
  return out.join('\n');
}
