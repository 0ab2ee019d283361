import { checkFileUris, checkPushConfigFields, isObject, LIMITS, validateSendParams } from '@a2a-inbound/a2a-wire';
import { InvalidParamsError } from '@a2a-inbound/errors';
import type { tasksV1 } from '@a2a-inbound/proto';
import type { Resolver } from '@a2a-inbound/runtime';

/**
 * A team's SendMessage / SendMessageStream, checked by the rules the gateway applies before it forwards a send
 * (the shared validator of `@a2a-inbound/a2a-wire`), then rewritten into the request the gateway would have
 * made: the message without bytes, the decoded files beside it. The gateway's own sends are not checked twice.
 *
 * A team may give a file's bytes inline (base64 in the part, as over A2A) or in `files` (raw, for the part
 * `part_index`, whose `bytes` are then empty). `blob_id` is the gateway's: a team cannot name a stored blob.
 */
export async function checkTeamSend(
  req: tasksV1.SendMessageRequest,
  agent: { pushNotificationsEnabled: boolean },
  resolver: Resolver,
): Promise<void> {
  let message: unknown;
  try {
    message = JSON.parse(req.messageJson);
  } catch {
    throw new InvalidParamsError('message is not valid JSON');
  }
  if (req.files.length > LIMITS.maxFilesPerMessage)
    throw new InvalidParamsError(`a message may carry at most ${LIMITS.maxFilesPerMessage} files`);
  const uploads = new Map<number, Buffer>();
  if (req.files.length > 0) message = withUploadParts(message, req.files, uploads);
  const v = validateSendParams(
    { message, configuration: { historyLength: req.historyLength, blocking: req.blocking } },
    agent,
  );
  await checkFileUris(v, resolver);
  // A config sent with the message meets SetPushConfig's rules (a token of the team's own included).
  if (req.pushConfig) await checkPushConfigFields(req.pushConfig, resolver);
  req.messageJson = JSON.stringify(v.message);
  req.historyLength = v.historyLength;
  req.blocking = v.blocking;
  req.files = v.files.map((f) => ({
    partIndex: f.partIndex,
    name: f.name,
    mimeType: f.mimeType,
    data: uploads.get(f.partIndex) ?? f.data ?? Buffer.alloc(0),
    blobId: '',
    size: 0,
    sha256: '',
  }));
}

/**
 * Each upload's part as the validator sees a file with bytes (empty ones: its raw bytes need no base64 check and
 * are not copied through base64), so that one validator decides on every file part however its bytes came; the
 * size rule is applied to the raw bytes here. `uploads` receives the bytes by part index.
 */
function withUploadParts(
  message: unknown,
  files: readonly tasksV1.FileUpload[],
  uploads: Map<number, Buffer>,
): unknown {
  if (!isObject(message) || !Array.isArray(message.parts)) return message; // the validator says what is wrong
  const parts: unknown[] = [...(message.parts as unknown[])];
  for (const f of files) {
    const at = `message.parts[${f.partIndex}]`;
    if (f.blobId) throw new InvalidParamsError(`files: blob_id is reserved to the gateway; send the file's bytes`);
    // The size rule on the raw bytes, with the message the gateway gives for decoded ones.
    if (f.data.length > LIMITS.maxFileBytes) throw new InvalidParamsError(`${at}.file is larger than 20 MB`);
    const part = parts[f.partIndex];
    const file = isObject(part) && part.kind === 'file' && isObject(part.file) ? part.file : undefined;
    if (!file || file.uri !== undefined || (file.bytes !== undefined && file.bytes !== ''))
      throw new InvalidParamsError(`file upload for part ${f.partIndex} does not match a file part without bytes`);
    if (f.mimeType && file.mimeType !== undefined && file.mimeType !== f.mimeType)
      throw new InvalidParamsError(`file upload for part ${f.partIndex} has another mimeType than the part`);
    parts[f.partIndex] = {
      ...(part as Record<string, unknown>),
      file: {
        ...(f.name ? { name: f.name } : {}),
        ...(f.mimeType ? { mimeType: f.mimeType } : {}),
        ...file,
        bytes: '',
      },
    };
    uploads.set(f.partIndex, f.data);
  }
  return { ...message, parts };
}
