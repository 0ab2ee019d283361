import type { Message } from '@a2a-js/sdk';
import { cardInputModes, cardTraits } from '@a2a-inbound/agent-definitions';
import { parseAuthenticationJson } from '@a2a-inbound/a2a-wire';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import type { Logger } from '@a2a-inbound/logger';
import { controlV1, tasksV1 } from '@a2a-inbound/proto';
import { grpc, serverStream, unary } from '@a2a-inbound/runtime';
import type { AgentView, ControlPlane } from '../domain/control-plane';
import { Management } from '../domain/management';
import type { RunHistory } from '../domain/run-history';
import type { PushConfigInput } from '../domain/model';
import type { CallerContext, TaskService } from '../domain/task-service';
import { sha256Hex } from '../domain/hashing';
import { cardKeysOut, managementRpcs } from './management-grpc';
import type { CardKeys } from '../domain/card-keys';

function caller(c: tasksV1.Caller | undefined): CallerContext {
  if (!c?.subscriptionId || !c.agentId) throw new InvalidParamsError('caller is required');
  return {
    subscriptionId: c.subscriptionId,
    deploymentId: c.deploymentId,
    agentId: c.agentId,
    keyId: c.keyId,
    protocolVersion: c.protocolVersion,
  };
}

function parseMessage(json: string): Message {
  try {
    return JSON.parse(json) as Message;
  } catch {
    throw new InvalidParamsError('message is not valid JSON');
  }
}

export function tasksGrpcService(tasks: TaskService, log: Logger, runs: RunHistory): tasksV1.TasksServiceServer {
  const opts = (r: tasksV1.SendMessageRequest) => ({
    historyLength: r.historyLength,
    blocking: r.blocking,
    files: r.files.map((f) => ({
      partIndex: f.partIndex,
      name: f.name,
      mimeType: f.mimeType,
      data: f.data,
      ...(f.blobId ? { blob: { id: f.blobId, size: Number(f.size), sha256: f.sha256 } } : {}),
    })),
    ...(r.pushConfig ? { pushConfig: pushConfigInput(r.pushConfig) } : {}),
  });
  return {
    sendMessage: unary(async (r: tasksV1.SendMessageRequest, call) => {
      // Response headers once accepted: the gateway bounds how long a send may queue, not how long it blocks.
      const task = await tasks.send(caller(r.caller), parseMessage(r.messageJson), {
        ...opts(r),
        accepted: () => call.sendMetadata(new grpc.Metadata()),
        gaveUp: () => call.cancelled, // a deadline or the gateway's cancel (it answered OVERLOADED)
      });
      return { taskJson: JSON.stringify(task) };
    }, log),
    // A StreamItem has the fields of a TaskStreamEvent: written as is (a mapping generator would be one more
    // layer for every open stream to keep).
    sendMessageStream: serverStream(
      (r: tasksV1.SendMessageRequest, signal, call) =>
        tasks.sendStream(
          caller(r.caller),
          parseMessage(r.messageJson),
          {
            ...opts(r),
            gaveUp: () => signal.aborted,
            accepted: () => call.sendMetadata(new grpc.Metadata()),
          },
          signal,
        ),
      log,
    ),
    getTask: unary(
      async (r: tasksV1.GetTaskRequest) => ({
        taskJson: JSON.stringify(await tasks.get(caller(r.caller), r.taskId, r.historyLength)),
      }),
      log,
    ),
    cancelTask: unary(
      async (r: tasksV1.CancelTaskRequest) => ({
        taskJson: JSON.stringify(await tasks.cancel(caller(r.caller), r.taskId)),
      }),
      log,
    ),
    resubscribe: serverStream(
      (r: tasksV1.ResubscribeRequest, signal, call) =>
        tasks.resubscribe(
          caller(r.caller),
          r.taskId,
          r.afterSeq,
          signal,
          () => call.sendMetadata(new grpc.Metadata()),
          r.snapshotFirst,
        ),
      log,
    ),
    setPushConfig: unary(async (r: tasksV1.SetPushConfigRequest) => {
      if (!r.config) throw new InvalidParamsError('pushNotificationConfig is required');
      return pushView(await tasks.setPushConfig(caller(r.caller), r.taskId, pushConfigInput(r.config)));
    }, log),
    getPushConfig: unary(
      async (r: tasksV1.PushConfigRequest) =>
        pushView(await tasks.getPushConfig(caller(r.caller), r.taskId, r.configId)),
      log,
    ),
    listPushConfigs: unary(
      async (r: tasksV1.PushConfigRequest) => ({
        configs: (await tasks.listPushConfigs(caller(r.caller), r.taskId)).map(pushView),
      }),
      log,
    ),
    deletePushConfig: unary(async (r: tasksV1.PushConfigRequest) => {
      await tasks.deletePushConfig(caller(r.caller), r.taskId, r.configId);
      return {};
    }, log),
    getPushDelivery: unary(async (r: tasksV1.GetPushDeliveryRequest) => {
      const d = await tasks.pushDelivery(r.taskId, r.agentId || undefined);
      return {
        taskJson: d.task ? JSON.stringify(d.task) : '',
        pushNotificationsEnabled: d.enabled,
        targets: d.targets.map((t) => ({
          configId: t.configId,
          url: t.url,
          token: t.token,
          authenticationJson: t.authentication ? JSON.stringify(t.authentication) : '',
          protocolVersion: t.protocolVersion ?? '',
        })),
      };
    }, log),
    listTasks: unary(async (r: tasksV1.ListTasksRequest) => {
      const c = caller(r.caller);
      const list = await runs.list(c.subscriptionId, c.agentId, {
        limit: r.limit,
        createdBeforeMs: Number(r.createdBeforeMs),
        createdBeforeTaskId: r.createdBeforeTaskId,
        contextId: r.contextId,
      });
      return { tasks: list };
    }, log),
  };
}

/** A PushConfig of a request → the domain's input (the gateway or the team policy checked it). */
function pushConfigInput(c: tasksV1.PushConfig): PushConfigInput {
  const auth = c.authenticationJson ? parseAuthenticationJson(c.authenticationJson) : undefined;
  return {
    id: c.id,
    url: c.url,
    token: c.token,
    ...(auth ? { authentication: auth } : {}),
    ...(c.protocolVersion ? { protocolVersion: c.protocolVersion } : {}),
  };
}

/** The token is write-only: never returned. */
function pushView(d: {
  taskId: string;
  configId: string;
  url: string;
  authentication?: Record<string, unknown>;
  protocolVersion?: string;
}): tasksV1.PushConfigResponse {
  return {
    taskId: d.taskId,
    config: {
      id: d.configId,
      url: d.url,
      token: '',
      authenticationJson: d.authentication ? JSON.stringify(d.authentication) : '',
      protocolVersion: d.protocolVersion ?? '',
    },
  };
}

export function toAgentViewProto(a: AgentView): controlV1.AgentView {
  // The card claims what the served version's runtime does: streaming, the input modes it can use.
  const traits = cardTraits(a.runtime, a.runtimeConfig);
  return {
    agentId: a.agentId,
    deploymentId: a.deploymentId,
    subscriptionId: a.subscriptionId,
    name: a.name,
    description: a.description,
    type: a.type,
    status: a.status,
    a2aEnabled: a.a2aEnabled,
    defaultA2aVersion: a.defaultA2aVersion,
    a2aVersions: a.a2aVersions,
    blockingBudgetMs: a.blockingBudgetMs,
    rateLimitPerMinute: a.rateLimitPerMinute,
    pushNotificationsEnabled: a.pushNotificationsEnabled,
    servedVersion: a.servedVersion,
    versionStrategy: a.versionStrategy,
    pinnedVersion: a.pinnedVersion,
    skills: a.skills,
    defaultInputModes: cardInputModes(a.defaultInputModes, traits),
    defaultOutputModes: a.defaultOutputModes,
    runtime: a.runtime,
    updatedAtMs: a.updatedAtMs,
    schedule: a.schedule,
    providerOrganization: 'a2a-inbound',
    providerUrl: '',
    // History is kept and returned on request (historyLength), so the capability is true.
    stateTransitionHistory: true,
    streaming: a.streaming ?? traits.streaming,
  };
}

export function controlGrpcService(
  control: ControlPlane,
  log: Logger,
  management: Management = new Management(control),
  cardKeys?: CardKeys,
): controlV1.ControlPlaneServiceServer {
  const signing = (): CardKeys => {
    if (!cardKeys) throw new AppError('FAILED_PRECONDITION', 'agent-card signing is not configured here');
    return cardKeys;
  };
  /** Keys are made on first use: only for a deployment that exists (a public JWKS URL names any id). */
  const existing = async (deploymentId: string): Promise<string> =>
    (await control.catalog.ofDeployment(deploymentId)).deployment.id;
  return {
    authenticateKey: unary(
      async (r: controlV1.AuthenticateKeyRequest) => control.accounts.authenticateKey(r.keyHash),
      log,
    ),
    authenticateUser: unary(async (r: controlV1.AuthenticateUserRequest) => {
      const u = await control.accounts.authenticateUser(r.tokenHash);
      return {
        userId: u.id,
        subscriptionId: u.doc.subscriptionId,
        role: u.doc.role,
        email: u.doc.email,
        tokenHash: u.doc.tokenHash,
      };
    }, log),
    resolveAgent: unary(
      async (r: controlV1.ResolveAgentRequest) => toAgentViewProto(await control.catalog.resolveAgent(r.agentId)),
      log,
    ),
    getDeploymentCatalog: unary(async (r: controlV1.DeploymentCatalogRequest) => {
      const { deployment, agents } = await control.catalog.ofDeployment(r.deploymentId);
      return {
        deploymentId: deployment.id,
        name: deployment.doc.name,
        defaultAgentId: deployment.doc.defaultAgentId ?? '',
        agents: agents.map(toAgentViewProto),
        updatedAtMs: Math.max(deployment.doc.updatedAtMs, ...agents.map((a) => a.updatedAtMs)),
      };
    }, log),
    getDefaultAgent: unary(async () => ({ agentId: await control.catalog.defaultAgentId() }), log),
    getCardSigningKeys: unary(
      async (r: controlV1.CardSigningKeysRequest) =>
        cardKeysOut(await signing().published(await existing(r.deploymentId))),
      log,
    ),
    signAgentCard: unary(
      async (r: controlV1.SignAgentCardRequest) => signing().sign(await existing(r.deploymentId), r.jku, r.payloads),
      log,
    ),
    ...managementRpcs(management, toAgentViewProto, log),
  };
}

export { sha256Hex };
