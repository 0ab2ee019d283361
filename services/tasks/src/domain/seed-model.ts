import type { ControlPlane } from './control-plane';
import type { Secrets } from './secrets';
import { DEMO } from './seed';

/** A `model` agent on the operator's provider (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL). */
export interface ModelSeedSpec {
  baseUrl: string;
  model: string;
  apiKey: string | undefined;
}

export const SEED_MODEL_AGENT_ID = 'demo-model';
const SEED_KEY_SECRET = 'seed-model-api-key';

/**
 * Seeds (once) the demo deployment's `model` agent on the configured provider, its key stored as a secret.
 * Resolves the agent id, or undefined when the demo subscription is not there (SEED_DEMO=false).
 */
export async function seedModelAgent(
  control: ControlPlane,
  secrets: Secrets,
  spec: ModelSeedSpec,
): Promise<string | undefined> {
  const sub = DEMO.subscriptionId;
  if ((await control.catalog.listAgents(sub)).some((a) => a.id === SEED_MODEL_AGENT_ID)) return SEED_MODEL_AGENT_ID;
  if (!(await control.catalog.listDeployments(sub)).some((d) => d.id === DEMO.deploymentId)) return undefined;
  if (spec.apiKey) await secrets.put(sub, SEED_KEY_SECRET, spec.apiKey);
  await control.catalog.createAgent({
    id: SEED_MODEL_AGENT_ID,
    subscriptionId: sub,
    name: `Model Agent (${spec.model})`,
    description: `An AI Agent on ${spec.model} through an OpenAI-compatible provider.`,
    type: 'AI Agent',
    skills: [
      {
        id: 'chat',
        name: 'Chat',
        description: 'Answers questions and remembers the conversation (contextId).',
        tags: ['model', 'chat'],
        examples: ['What can you do?'],
      },
    ],
  });
  await control.catalog.publishVersion(sub, SEED_MODEL_AGENT_ID, {
    version: '1.0.0',
    runtime: 'model',
    runtimeConfig: {
      baseUrl: spec.baseUrl,
      model: spec.model,
      ...(spec.apiKey ? { apiKeySecret: SEED_KEY_SECRET } : {}),
      instructions: 'You are a helpful assistant. Answer briefly.',
    },
  });
  await control.catalog.promoteVersion(sub, SEED_MODEL_AGENT_ID, '1.0.0');
  await control.catalog.addAgentToDeployment(sub, DEMO.deploymentId, SEED_MODEL_AGENT_ID, { a2aEnabled: true });
  return SEED_MODEL_AGENT_ID;
}
