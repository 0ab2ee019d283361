import type { AgentCard } from '@a2a-js/sdk';
import type { controlV1 } from '@a2a-inbound/proto';

export type CardVersion = '0.3.0' | '0.2.6';

/** Every A2A version an agent operation may be shaped for: the two card versions and 1.0 (no card of its own). */
export type ProtocolVersion = CardVersion | '1.0';

export interface CardOptions {
  baseUrl: string;
  providerOrganization: string;
  providerUrl: string;
  /** Where gRPC clients dial the gateway's A2A 1.0 service (`host:port`); empty: no gRPC interface. */
  grpcUrl?: string;
}

/** A2A 1.0's AgentInterface (spec 4.4.6). */
export interface AgentInterface {
  url: string;
  protocolBinding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC';
  protocolVersion: string;
  tenant?: string;
}

/** The 0.3 card with the 1.0 `supportedInterfaces` beside it (readable by both generations' clients). */
export type DualAgentCard = AgentCard & { supportedInterfaces?: AgentInterface[] };

/** Whether the agent serves a version (setting `a2aVersions`; an empty list, as from an older tasks service, is all). */
export function servesVersion(agent: Pick<controlV1.AgentView, 'a2aVersions'>, v: ProtocolVersion): boolean {
  return agent.a2aVersions.length === 0 || agent.a2aVersions.includes(v);
}

/** The A2A 1.0 JSON-RPC endpoint; the HTTP+JSON binding is under it (`…/a2a/v1/rest/message:send`). */
export const v1Path = (agentId: string): string => `/agents/${encodeURIComponent(agentId)}/a2a/v1`;

/**
 * Every interface an agent serves, 1.0 first (the spec's preference order): JSON-RPC and HTTP+JSON under
 * the agent's path, gRPC on the gateway's one port with the agent as `tenant`, and the 0.3 JSON-RPC endpoint.
 */
export function supportedInterfaces(
  agent: Pick<controlV1.AgentView, 'agentId' | 'a2aVersions'>,
  o: Pick<CardOptions, 'baseUrl' | 'grpcUrl'>,
): AgentInterface[] {
  const agentId = agent.agentId;
  const out: AgentInterface[] = [];
  if (servesVersion(agent, '1.0')) {
    const v1 = `${o.baseUrl}${v1Path(agentId)}`;
    out.push(
      { url: v1, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${v1}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    );
    if (o.grpcUrl) out.push({ url: o.grpcUrl, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: agentId });
  }
  if (servesVersion(agent, '0.3.0'))
    out.push({
      url: `${o.baseUrl}${endpointPath(agentId, '0.3.0')}`,
      protocolBinding: 'JSONRPC',
      protocolVersion: '0.3',
    });
  return out;
}

export const endpointPath = (agentId: string, v: CardVersion): string =>
  `/agents/${encodeURIComponent(agentId)}/a2a/${v === '0.3.0' ? 'v0.3' : 'v0.2'}`;

export const cardPath = (agentId: string, v: CardVersion): string =>
  `/agents/${encodeURIComponent(agentId)}/.well-known/${v === '0.3.0' ? 'agent-card.json' : 'agent.json'}`;

/**
 * The agent card of one protocol version: `url` pinned to that version's endpoint, capabilities that are
 * true (streaming when the served version's runtime streams; pushNotifications only when an operator enabled it).
 */
export function buildCard(agent: controlV1.AgentView, v: CardVersion, o: CardOptions): DualAgentCard {
  const url = `${o.baseUrl}${endpointPath(agent.agentId, v)}`;
  const card: DualAgentCard = {
    protocolVersion: v,
    name: agent.name,
    description: agent.description,
    url,
    preferredTransport: 'JSONRPC',
    version: agent.servedVersion,
    provider: { organization: o.providerOrganization, url: o.providerUrl || o.baseUrl },
    capabilities: {
      streaming: agent.streaming,
      pushNotifications: agent.pushNotificationsEnabled,
      stateTransitionHistory: agent.stateTransitionHistory,
    },
    defaultInputModes: [...agent.defaultInputModes],
    defaultOutputModes: [...agent.defaultOutputModes],
    skills: agent.skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: [...s.tags],
      examples: [...s.examples],
    })),
    securitySchemes: {
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'API key with scope "a2a": Authorization: Bearer <API_KEY>',
      },
    },
    security: [{ apiKey: [] }],
    supportsAuthenticatedExtendedCard: false,
  };
  if (v === '0.3.0') {
    card.additionalInterfaces = [{ url, transport: 'JSONRPC' }];
    // A 1.0 client reads this list (and ignores the 0.3 fields); a 0.3 client reads `url` and ignores it.
    card.supportedInterfaces = supportedInterfaces(agent, o);
  }
  return card;
}

/** The deployment agent catalog (AI Catalog draft shape), 0.3.0 card inline per A2A-enabled agent. */
export function buildCatalog(catalog: controlV1.DeploymentCatalog, o: CardOptions): Record<string, unknown> {
  const entries = catalog.agents
    .filter((a) => a.a2aEnabled && a.type === 'AI Agent' && a.status === 'running')
    .sort((a, b) => a.agentId.localeCompare(b.agentId))
    .map((a) => ({
      identifier: `urn:a2a-inbound:agent:${a.agentId}`,
      displayName: a.name,
      type: 'application/a2a-agent-card+json',
      mediaType: 'application/a2a-agent-card+json',
      url: `${o.baseUrl}${cardPath(a.agentId, '0.3.0')}`,
      data: buildCard(a, '0.3.0', o),
      description: a.description,
      tags: [...new Set(a.skills.flatMap((s) => s.tags))].sort(),
      version: a.servedVersion,
      updatedAt: new Date(Number(a.updatedAtMs)).toISOString(),
      metadata: {
        'dev.a2a-inbound.agentId': a.agentId,
        'dev.a2a-inbound.cardUrl.v0_3': `${o.baseUrl}${cardPath(a.agentId, '0.3.0')}`,
        'dev.a2a-inbound.cardUrl.v0_2': `${o.baseUrl}${cardPath(a.agentId, '0.2.6')}`,
        'dev.a2a-inbound.endpoint': `${o.baseUrl}/agents/${encodeURIComponent(a.agentId)}/a2a`,
        'dev.a2a-inbound.defaultA2aVersion': a.defaultA2aVersion,
      },
    }));
  return {
    specVersion: '1.0',
    host: { displayName: catalog.name, identifier: `urn:a2a-inbound:deployment:${catalog.deploymentId}` },
    entries,
  };
}
