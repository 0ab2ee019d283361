import { html, nothing, svg, type TemplateResult } from 'lit';
import {
  type Layout,
  type ServiceMap,
  BADGE_FONT,
  LABEL_FONT,
  LABEL_LINE,
  NODE_FONT,
  describeNode,
  layoutMap,
  wideLayout,
} from './map-layout';

/** Half the label box's padding: its lines start below it. */
const LABEL_PAD_TOP = 2.5;

const KIND_WORDS = { api: 'API', message: 'message flow', unresolved: 'unresolved', gap: 'messaging gap' } as const;

function drawn(map: ServiceMap, l: Layout, view: string, prefix: string, application: string): TemplateResult {
  const name = (id: string): string => map.nodes.find((n) => n.id === id)?.label ?? id;
  const links = map.edges.filter((e) => e.kind === 'api' || e.kind === 'message').length;
  return html`<svg
    class="service-map"
    data-view=${view}
    data-orientation=${l.orientation}
    width=${l.width}
    height=${l.height}
    viewBox=${`0 0 ${l.width} ${l.height}`}
    role="group"
    aria-labelledby=${`${prefix}-title ${prefix}-desc`}
  >
    ${svg`<title id=${`${prefix}-title`}>Service map of ${application}</title>
      <desc id=${`${prefix}-desc`}>${map.nodes.filter((n) => n.kind === 'source').length} sources and ${links} connections; dashed lines lead to unresolved calls, external hosts and messaging gaps.</desc>
      <defs>
        <marker id=${`${prefix}-arrow`} viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0 0 L10 5 L0 10 z" class="arrow"></path>
        </marker>
      </defs>
      ${l.edges.map(
        (
          pe,
        ) => svg`<g class=${`edge ${pe.edge.kind}`} data-from=${name(pe.edge.from)} data-to=${name(pe.edge.to)} data-kind=${pe.edge.kind} data-label=${pe.edge.label}>
          <title>${name(pe.edge.from)} → ${name(pe.edge.to)} (${KIND_WORDS[pe.edge.kind]}): ${pe.edge.details.join('; ')}</title>
          <path class="line" d=${pe.path} marker-end=${`url(#${prefix}-arrow)`}></path>
          <rect class="label" x=${pe.label.x} y=${pe.label.y} width=${pe.label.w} height=${pe.label.h} rx="3"></rect>
          <text font-size=${LABEL_FONT}>${pe.label.lines.map(
            (t, i) =>
              svg`<tspan x=${pe.label.x + pe.label.w / 2} y=${pe.label.y + LABEL_PAD_TOP + (i + 0.5) * LABEL_LINE}>${t}</tspan>`,
          )}</text>
        </g>`,
      )}
      ${l.nodes.map(
        (
          pn,
        ) => svg`<g class=${`node ${pn.node.kind}`} data-node=${pn.node.label} tabindex="0" role="img" aria-label=${describeNode(map, pn.node)}>
          <rect x=${pn.x} y=${pn.y} width=${pn.w} height=${pn.h} rx="6"></rect>
          <text class="name" x=${pn.x + pn.w / 2} y=${pn.y + (pn.badge ? 18 : pn.h / 2)} font-size=${NODE_FONT}>${pn.text}</text>
          ${pn.badge ? svg`<text class="badge" x=${pn.x + pn.w / 2} y=${pn.y + 35} font-size=${BADGE_FONT}>${pn.badge}</text>` : nothing}
        </g>`,
      )}`}
  </svg>`;
}

/**
 * The service map as inline SVG, twice: wide (left to right, or five nodes a row when that is too wide) and
 * narrow (top to bottom, two nodes a row); the stylesheet shows one by the width of the screen. Each sits in a
 * scrollable region that takes keyboard focus like the links table; each node takes focus and reads out its
 * connections.
 */
export function serviceMapView(map: ServiceMap, application: string): TemplateResult {
  const view = (name: 'wide' | 'narrow', l: Layout) =>
    html`<div class=${`scroll map-box map-${name}`} tabindex="0" role="region" aria-label=${`Service map (${name})`}>
      ${drawn(map, l, name, `map-${name}`, application)}
    </div>`;
  return html`<figure class="map">
    ${view('wide', wideLayout(map))} ${view('narrow', layoutMap(map, 'vertical'))}
    <figcaption class="muted">
      Solid arrows: API calls (method and path, or how many); thick arrows: message flows (exchange / routing key →
      queue, or the topic); dashed: unresolved calls, external hosts and infrastructure, messaging gaps. Focus a source
      to hear its connections.
    </figcaption>
  </figure>`;
}
