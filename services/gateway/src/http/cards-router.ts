import { createHash } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import { AppError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import type { controlV1 } from '@a2a-inbound/proto';
import type { Lookups } from '../clients';
import { buildCard, buildCatalog, type CardOptions, type CardVersion } from '../protocol/cards';
import { jwksOf, type CardSigner } from '../protocol/card-signing';
import { restErrorHandler } from './errors';

export interface CardsRouterDeps {
  lookups: Lookups;
  log: Logger;
  baseUrl(req: Request): string;
  /** Where gRPC clients dial the A2A 1.0 service for this request's host; empty = not served. */
  grpcAddress?(req: Request): string;
  providerOrganization: string;
  providerUrl: string;
  /** Signs the public 0.3/1.0 cards (ADR 0034); the 0.2 card stays as it was. */
  signer: CardSigner;
}

/**
 * Public, cacheable, cross-origin JSON: ETag (304 on If-None-Match) and Cache-Control; `lastModifiedMs`, when
 * known, as `Last-Modified` (A2A 1.0, 8.6.1: a MAY). The ETag stays the validator: it covers what the time does
 * not (the host's base URL, a rotated signing key), so If-Modified-Since is not evaluated.
 */
function sendPublicJson(
  req: Request,
  res: Response,
  body: unknown,
  contentType = 'application/json',
  lastModifiedMs = 0,
): void {
  const text = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;
  res.setHeader('ETag', etag);
  if (lastModifiedMs > 0) res.setHeader('Last-Modified', new Date(lastModifiedMs).toUTCString());
  res.setHeader('Cache-Control', 'public, max-age=0, must-revalidate');
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'ETag, Link');
  res.setHeader('Vary', 'Origin');
  const inm = req.headers['if-none-match'];
  if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}`)) {
    res.status(304).end();
    return;
  }
  res.status(200).type(contentType).send(text);
}

export function createCardsRouter(deps: CardsRouterDeps): Router {
  const router = Router();
  const opts = (req: Request): CardOptions => ({
    baseUrl: deps.baseUrl(req),
    providerOrganization: deps.providerOrganization,
    providerUrl: deps.providerUrl,
    grpcUrl: deps.grpcAddress?.(req) ?? '',
  });

  async function servableAgent(agentId: string): Promise<controlV1.AgentView> {
    let agent: controlV1.AgentView;
    try {
      agent = await deps.lookups.agent(agentId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw new AppError('NOT_FOUND', 'Agent not found');
      throw err;
    }
    if (agent.status !== 'running') throw new AppError('NOT_FOUND', 'Agent not found');
    if (!agent.a2aEnabled || agent.type !== 'AI Agent')
      throw new AppError('A2A_NOT_ENABLED', 'A2A is not enabled for this agent');
    return agent;
  }

  const card =
    (version: CardVersion, agentIdOf: (req: Request) => Promise<string>) =>
    async (req: Request, res: Response): Promise<void> => {
      const agent = await servableAgent(await agentIdOf(req));
      const o = opts(req);
      res.setHeader(
        'Link',
        `<${o.baseUrl}/deployments/${encodeURIComponent(agent.deploymentId)}/.well-known/ai-catalog.json>; rel="ai-catalog"`,
      );
      const built = buildCard(agent, version, o);
      // 0.2 had no signatures; the 0.3 card (with 1.0's supportedInterfaces) is signed.
      const body = version === '0.3.0' ? await deps.signer.signed(built, agent.deploymentId, o.baseUrl) : built;
      // The agent's last change (settings, versions, the served one among them): what the card is built from.
      sendPublicJson(req, res, body, 'application/json', Number(agent.updatedAtMs));
    };

  const byPath = async (req: Request): Promise<string> => String(req.params.agentId);
  const byDefault = async (): Promise<string> => {
    const id = await deps.lookups.defaultAgentId();
    if (!id) throw new AppError('NOT_FOUND', 'No default agent is configured for this host');
    return id;
  };

  router.options(/.*\.json$/, (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'If-None-Match, Content-Type');
    res.setHeader('Access-Control-Max-Age', '86400');
    res.status(204).end();
  });
  router.get('/agents/:agentId/.well-known/agent-card.json', card('0.3.0', byPath));
  router.get('/agents/:agentId/.well-known/agent.json', card('0.2.6', byPath));
  router.get('/.well-known/agent-card.json', card('0.3.0', byDefault));
  router.get('/.well-known/agent.json', card('0.2.6', byDefault));

  const catalog = async (req: Request, res: Response): Promise<void> => {
    let cat: controlV1.DeploymentCatalog;
    try {
      cat = await deps.lookups.catalog(String(req.params.deploymentId));
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw new AppError('NOT_FOUND', 'Deployment not found');
      throw err;
    }
    const o = opts(req);
    const body = buildCatalog(cat, o) as { entries: { data: object }[] };
    // Each inline card as its own card URL serves it: signed (cached per card, so a catalog costs no ES256).
    for (const e of body.entries) e.data = await deps.signer.signed(e.data, cat.deploymentId, o.baseUrl);
    sendPublicJson(req, res, body, 'application/ai-catalog+json');
  };
  // The JWKS the cards' `jku` names: public keys only, the signing key first, retired keys while retained.
  router.get('/deployments/:deploymentId/.well-known/jwks.json', async (req: Request, res: Response) => {
    let keys: controlV1.CardSigningKeys;
    try {
      keys = await deps.lookups.cardKeys(String(req.params.deploymentId));
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw new AppError('NOT_FOUND', 'Deployment not found');
      throw err;
    }
    sendPublicJson(req, res, jwksOf(keys.keys), 'application/jwk-set+json');
  });
  router.get('/deployments/:deploymentId/.well-known/agent-catalog.json', catalog);
  router.get('/deployments/:deploymentId/.well-known/ai-catalog.json', catalog);
  router.use(restErrorHandler(deps.log));
  return router;
}
