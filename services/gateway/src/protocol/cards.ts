import type { AgentCard } from '@a2a-js/sdk';
import type { controlV1 } from '@a2a-inbound/proto';

export type CardVersion = '0.3.0' | '0.2.6';

export interface CardOptions {
  baseUrl: string;
  providerOrganization: string;
  providerUrl: string;
}

export const endpointPath = (agentId: string, v: CardVersion): string =>
  `/agents/${encodeURIComponent(agentId)}/a2a/${v === '0.3.0' ? 'v0.3' : 'v0.2'}`;

export const cardPath = (agentId: string, v: CardVersion): string =>
  `/agents/${encodeURIComponent(agentId)}/.well-known/${v === '0.3.0' ? 'agent-card.json' : 'agent.json'}`;

/**
 * The agent card of one protocol version: `url` pinned to that version's endpoint, capabilities that are
 * true (streaming when the served version's runtime streams; pushNotifications only when an operator enabled it).
 */
export function buildCard(agent: controlV1.AgentView, v: CardVersion, o: CardOptions): AgentCard {
  const url = `${o.baseUrl}${endpointPath(agent.agentId, v)}`;
  const card: AgentCard = {
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
  if (v === '0.3.0') card.additionalInterfaces = [{ url, transport: 'JSONRPC' }];
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
