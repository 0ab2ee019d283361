/**
 * The service map's layout (issue 20, item 6): a small deterministic layered layout, no DOM, so it is unit
 * tested and the page only draws what it computes. Sources are placed in layers by longest path (cycles broken
 * by a depth-first walk in node order), the marker nodes (unresolved, external, gaps) in a last layer of their
 * own. Edge labels sit in the channel between two layers, never over a node: horizontal (wide screens) keeps
 * them apart vertically within a channel; vertical (two nodes a row on a phone, five in the wide column when
 * left to right would not fit) gives each label its own lines in the band between two layers. Text is cut to what the box holds; the full text is in the `<title>`.
 */

export interface MapNode {
  id: string;
  label: string;
  kind: 'source' | 'unresolved' | 'external' | 'gaps';
  unresolvedCalls: number;
  messagingGaps: number;
}
export interface MapEdge {
  from: string;
  to: string;
  kind: 'api' | 'message' | 'unresolved' | 'gap';
  label: string;
  details: string[];
}
export interface ServiceMap {
  nodes: MapNode[];
  edges: MapEdge[];
}

export type Orientation = 'horizontal' | 'vertical';

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
export interface PlacedNode extends Box {
  node: MapNode;
  /** The label as drawn (cut with … when too long). */
  text: string;
  /** `2 unresolved · 1 gap`, or empty. */
  badge: string;
}
export interface PlacedEdge {
  edge: MapEdge;
  /** SVG path data, from the caller's node through the label to the target's node. */
  path: string;
  /** The label's box and its lines (at most two, the last cut with … when the text is longer). */
  label: Box & { lines: string[] };
}
export interface Layout {
  orientation: Orientation;
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

/** Widths of text, generous for the console's sans-serif (DejaVu Sans is among the widest). */
export const NODE_FONT = 13;
export const LABEL_FONT = 12;
export const BADGE_FONT = 11;
const NODE_CHAR = 8;
const LABEL_CHAR = 7.4;
const BADGE_CHAR = 6.8;
const NODE_H = 48;
/** A label line's height, and what a label box adds around its lines. */
export const LABEL_LINE = 15;
const LABEL_PAD = 5;
const LABEL_LINES = 2;
const PAD = 10;

const GEOMETRY = {
  horizontal: { nodeW: 160, channel: 200, rowGap: 28 },
  vertical: { nodeW: 160, colGap: 12, layerGap: 28 },
} as const;

/** Widest drawing that fits the console's report column at 1280 px (80 rem less the applications list). */
export const WIDE_MAX = 900;
/** Nodes a row in the top-to-bottom drawing: a phone (390 px) takes two, the wide column five. */
export const NARROW_PER_ROW = 2;
export const WIDE_PER_ROW = 5;

/** Text cut to `max` characters, with an ellipsis when cut. */
export function fit(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(1, max - 1))}…`;
}

/** Text in at most `lines` lines of `max` characters. */
export function wrap(text: string, max: number, lines: number): string[] {
  const out: string[] = [];
  let rest = text.trim();
  while (rest && out.length < lines) {
    if (out.length === lines - 1 || rest.length <= max) {
      out.push(fit(rest, max));
      break;
    }
    // At the last space, else before the last `/` of a path, when that keeps half a line; else anywhere.
    const space = rest.lastIndexOf(' ', max);
    const slash = rest.lastIndexOf('/', max - 1);
    const at = space >= max / 2 ? space : slash >= max / 2 ? slash : max;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).trim();
  }
  return out;
}

export function badgeOf(n: MapNode): string {
  const parts: string[] = [];
  if (n.unresolvedCalls) parts.push(`${n.unresolvedCalls} unresolved`);
  if (n.messagingGaps) parts.push(`${n.messagingGaps} gap${n.messagingGaps === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

/** Layer of every node: longest path from a node nobody calls, markers last. */
export function layers(map: ServiceMap): Map<string, number> {
  const ids = map.nodes.filter((n) => n.kind === 'source').map((n) => n.id);
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  for (const e of map.edges)
    if (out.has(e.to) && out.has(e.from) && e.from !== e.to && !out.get(e.from)!.includes(e.to))
      out.get(e.from)!.push(e.to);
  // Depth-first in node order: an edge to a node still on the stack closes a cycle and is not followed.
  const state = new Map<string, 'open' | 'done'>();
  const finished: string[] = [];
  const forward = new Map<string, string[]>(ids.map((id) => [id, []]));
  const visit = (v: string): void => {
    state.set(v, 'open');
    for (const w of out.get(v)!) {
      if (state.get(w) === 'open') continue;
      forward.get(v)!.push(w);
      if (!state.has(w)) visit(w);
    }
    state.set(v, 'done');
    finished.push(v);
  };
  for (const id of ids) if (!state.has(id)) visit(id);
  const layer = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const v of finished.reverse())
    for (const w of forward.get(v)!) layer.set(w, Math.max(layer.get(w)!, layer.get(v)! + 1));
  const last = ids.length ? Math.max(...layer.values()) + 1 : 0;
  for (const n of map.nodes) if (n.kind !== 'source') layer.set(n.id, last);
  return layer;
}

/** Nodes of each layer, ordered by the mean position of their callers in earlier layers (ties: node order). */
function ordered(map: ServiceMap, layer: Map<string, number>): string[][] {
  const index = new Map(map.nodes.map((n, i) => [n.id, i]));
  const count = Math.max(-1, ...layer.values()) + 1;
  const rows: string[][] = Array.from({ length: count }, () => []);
  for (const n of map.nodes) rows[layer.get(n.id)!]!.push(n.id);
  const pos = new Map<string, number>();
  rows.forEach((row, k) => {
    const bary = (id: string): number => {
      const from = map.edges.filter((e) => e.to === id && layer.get(e.from)! < k).map((e) => pos.get(e.from)!);
      return from.length ? from.reduce((a, b) => a + b, 0) / from.length : index.get(id)! / map.nodes.length;
    };
    const key = new Map(row.map((id) => [id, bary(id)]));
    row.sort((a, b) => key.get(a)! - key.get(b)! || index.get(a)! - index.get(b)!);
    row.forEach((id, i) => pos.set(id, row.length > 1 ? i / (row.length - 1) : 0.5));
  });
  return rows;
}

const f = (n: number): string => String(Math.round(n * 10) / 10);

/**
 * The wide drawing: left to right when that fits the report column, else top to bottom five nodes a row (a
 * long chain of services would otherwise only be seen by scrolling sideways).
 */
export function wideLayout(map: ServiceMap): Layout {
  const h = layoutMap(map, 'horizontal');
  return h.width <= WIDE_MAX ? h : layoutMap(map, 'vertical', WIDE_PER_ROW);
}

export function layoutMap(map: ServiceMap, orientation: Orientation, perRow = NARROW_PER_ROW): Layout {
  const layer = layers(map);
  const rows = ordered(map, layer);
  const byId = new Map(map.nodes.map((n) => [n.id, n]));
  const placed = new Map<string, PlacedNode>();
  const edges: PlacedEdge[] = [];
  const place = (id: string, x: number, y: number, w: number): void => {
    const node = byId.get(id)!;
    const text = fit(node.label, Math.floor((w - 16) / NODE_CHAR));
    placed.set(id, { node, x, y, w, h: NODE_H, text, badge: fit(badgeOf(node), Math.floor((w - 12) / BADGE_CHAR)) });
  };
  // Where an edge's label goes: the channel after the earlier of its two layers.
  const channelOf = (e: MapEdge): number => Math.min(layer.get(e.from)!, layer.get(e.to)!);
  const labelBox = (e: MapEdge, maxW: number): { lines: string[]; w: number; h: number } => {
    const lines = wrap(e.label, Math.floor((maxW - 12) / LABEL_CHAR), LABEL_LINES);
    const longest = Math.max(...lines.map((t) => t.length));
    return {
      lines,
      w: Math.min(maxW, Math.ceil(longest * LABEL_CHAR + 12)),
      h: lines.length * LABEL_LINE + LABEL_PAD,
    };
  };
  let width: number;
  let height: number;

  if (orientation === 'horizontal') {
    const g = GEOMETRY.horizontal;
    const colX = (k: number): number => PAD + k * (g.nodeW + g.channel);
    rows.forEach((row, k) => row.forEach((id, i) => place(id, colX(k), PAD + i * (NODE_H + g.rowGap), g.nodeW)));
    height = Math.max(...[...placed.values()].map((p) => p.y + p.h), 0) + PAD;
    for (let c = 0; c < rows.length - 1; c++) {
      const inChannel = map.edges.filter((e) => channelOf(e) === c);
      const wanted = inChannel.map((e) => {
        const a = placed.get(e.from)!;
        const b = placed.get(e.to)!;
        return { e, mid: (a.y + b.y + NODE_H) / 2 };
      });
      wanted.sort((p, q) => p.mid - q.mid);
      let bottom = PAD - 6;
      for (const { e, mid } of wanted) {
        const { lines, w, h } = labelBox(e, g.channel - 20);
        const y = Math.max(mid - h / 2, bottom + 6);
        bottom = y + h;
        const x = colX(c) + g.nodeW + (g.channel - w) / 2;
        edges.push({ edge: e, path: '', label: { x, y, w, h, lines } });
      }
      height = Math.max(height, bottom + PAD);
    }
    width = colX(Math.max(rows.length - 1, 0)) + g.nodeW + PAD;
    for (const pe of edges) {
      const a = placed.get(pe.edge.from)!;
      const b = placed.get(pe.edge.to)!;
      const l = pe.label;
      const ly = l.y + l.h / 2;
      // Forward: out of the caller's right side, in at the target's left; backward the other way round.
      pe.path =
        b.x > a.x
          ? `M${f(a.x + a.w)} ${f(a.y + NODE_H / 2)} L${f(l.x)} ${f(ly)} L${f(l.x + l.w)} ${f(ly)} L${f(b.x)} ${f(b.y + NODE_H / 2)}`
          : `M${f(a.x)} ${f(a.y + NODE_H / 2)} L${f(l.x + l.w)} ${f(ly)} L${f(l.x)} ${f(ly)} L${f(b.x + b.w)} ${f(b.y + NODE_H / 2)}`;
    }
  } else {
    const g = GEOMETRY.vertical;
    width = PAD * 2 + perRow * g.nodeW + (perRow - 1) * g.colGap;
    let y = PAD;
    const bands: { top: number; edges: { e: MapEdge; box: ReturnType<typeof labelBox> }[] }[] = [];
    rows.forEach((row, k) => {
      for (let i = 0; i < row.length; i += perRow) {
        const line = row.slice(i, i + perRow);
        // A lone node (or the last of an odd layer) is centred.
        const x0 = PAD + ((perRow - line.length) * (g.nodeW + g.colGap)) / 2;
        line.forEach((id, j) => place(id, x0 + j * (g.nodeW + g.colGap), y, g.nodeW));
        y += NODE_H + (i + perRow < row.length ? g.colGap : 0);
      }
      if (k < rows.length - 1) {
        const inBand = map.edges
          .filter((e) => channelOf(e) === k)
          .map((e) => ({ e, box: labelBox(e, width - 2 * PAD) }));
        bands.push({ top: y, edges: inBand });
        y += g.layerGap + inBand.reduce((sum, { box }) => sum + box.h + 6, 0);
      }
    });
    height = y + PAD;
    for (const band of bands) {
      let ly = band.top + g.layerGap / 2;
      for (const { e, box } of band.edges) {
        const a = placed.get(e.from)!;
        const b = placed.get(e.to)!;
        const { lines, w, h } = box;
        const mid = (a.x + a.w / 2 + b.x + b.w / 2) / 2;
        const x = Math.min(Math.max(PAD, mid - w / 2), width - PAD - w);
        const label = { x, y: ly, w, h, lines };
        const down = b.y > a.y;
        const from = `M${f(a.x + a.w / 2)} ${f(down ? a.y + NODE_H : a.y)}`;
        const to = `L${f(b.x + b.w / 2)} ${f(down ? b.y : b.y + NODE_H)}`;
        const path = down
          ? `${from} L${f(x + w / 2)} ${f(ly)} L${f(x + w / 2)} ${f(ly + h)} ${to}`
          : `${from} L${f(x + w / 2)} ${f(ly + h)} L${f(x + w / 2)} ${f(ly)} ${to}`;
        edges.push({ edge: e, path, label });
        ly += h + 6;
      }
    }
  }
  const order = new Map(map.edges.map((e, i) => [e, i]));
  edges.sort((p, q) => order.get(p.edge)! - order.get(q.edge)!);
  return {
    orientation,
    width: Math.ceil(width),
    height: Math.ceil(height),
    nodes: map.nodes.map((n) => placed.get(n.id)!),
    edges,
  };
}

export const overlaps = (a: Box, b: Box): boolean =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** What a screen reader hears on a node: its name, what it calls and publishes, and its findings. */
export function describeNode(map: ServiceMap, n: MapNode): string {
  const name = (id: string): string => map.nodes.find((x) => x.id === id)?.label ?? id;
  const out = map.edges.filter((e) => e.from === n.id && (e.kind === 'api' || e.kind === 'message'));
  const into = map.edges.filter((e) => e.to === n.id && (e.kind === 'api' || e.kind === 'message'));
  const parts = [n.kind === 'source' ? `${n.label}` : `${n.label} (marker)`];
  for (const e of out) parts.push(`${e.kind === 'api' ? 'calls' : 'sends to'} ${name(e.to)}: ${e.label}`);
  for (const e of into) parts.push(`${e.kind === 'api' ? 'called by' : 'receives from'} ${name(e.from)}: ${e.label}`);
  const badge = badgeOf(n);
  if (badge) parts.push(badge);
  if (n.kind !== 'source') {
    const from = map.edges.filter((e) => e.to === n.id).map((e) => `${name(e.from)} (${e.label})`);
    parts.push(`from ${from.join(', ')}`);
  }
  return parts.join('; ');
}
