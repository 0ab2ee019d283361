import type { Message, Part } from '@a2a-js/sdk';
import { AppError, InvalidParamsError } from '@a2a-inbound/errors';
import { checkHttpsUrlShape, checkPublicHttpsUrl, type Resolver } from '@a2a-inbound/runtime';

/**
 * The rules of an A2A send (message/send, message/stream and their REST and gRPC forms), in one place for
 * every door a message comes in by: the gateway's public endpoints and a team's direct TasksService call.
 */

/** Limits of the spec (files) and our own sensible ones (text, parts, ids, nesting). */
export const LIMITS = {
  maxFileBytes: 20 * 1024 * 1024,
  maxFilesPerMessage: 10,
  maxParts: 100,
  maxTextChars: 1_000_000,
  maxIdChars: 256,
  maxDepth: 64,
  maxMetadataBytes: 64 * 1024,
} as const;

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The placeholder that replaces a file's bytes the gateway's body reader stored as they arrived. It starts with
 * a NUL character (the JSON escape `\u0000`), which is not base64: the same text sent inline is "not valid base64".
 */
export const SPILL_PREFIX = '\u0000a2a-inbound-spill:';

/** What became of one spilled file's bytes. */
export type SpillOutcome =
  { kind: 'stored'; blobId: string; size: number; sha256: string } | { kind: 'too-large' } | { kind: 'invalid' };

/** The spilled files of one body, by placeholder. */
export interface SpilledFileSource {
  take(placeholder: string): SpillOutcome | undefined;
}

/** Accepted file media types: images, audio, video, PDF, text, JSON, Office documents. */
export function isAcceptedMimeType(mimeType: string): boolean {
  const t = mimeType.split(';')[0]!.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/.test(t)) return false;
  const [type, sub] = t.split('/') as [string, string];
  if (['image', 'audio', 'video', 'text'].includes(type)) return true;
  if (t === 'application/pdf' || t === 'application/json' || sub.endsWith('+json')) return true;
  return (
    t === 'application/msword' ||
    t === 'application/vnd.ms-excel' ||
    t === 'application/vnd.ms-powerpoint' ||
    t === 'application/rtf' ||
    t.startsWith('application/vnd.openxmlformats-officedocument.') ||
    t.startsWith('application/vnd.oasis.opendocument.') ||
    t.startsWith('application/vnd.ms-excel.') ||
    t.startsWith('application/vnd.ms-powerpoint.') ||
    t.startsWith('application/vnd.ms-word.')
  );
}

// Linear on purpose: a quantified group over a 27 MB string overflows the regexp stack.
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (s: string): boolean => s.length % 4 === 0 && BASE64_CHARS.test(s);

export interface DecodedFile {
  partIndex: number;
  name: string;
  mimeType: string;
  /** The decoded bytes, or `blob` when they were streamed into the blob store as they arrived. */
  data?: Buffer;
  blob?: { id: string; size: number; sha256: string };
}

export interface ValidatedSend {
  /** The message with `bytes` removed from file parts (the bytes travel beside it). */
  message: Message;
  files: DecodedFile[];
  historyLength: number | undefined;
  blocking: boolean | undefined;
  /**
   * A 1.0 push config sent with the message (a PushNotificationConfig: url, token, id, authentication), checked
   * by the operation as a created one is, then stored with the task (ADR 0071). 0.3's inline config is refused.
   */
  pushConfig?: Record<string, unknown>;
}

function optionalId(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > LIMITS.maxIdChars) {
    throw new InvalidParamsError(`${field} must be a non-empty string of at most ${LIMITS.maxIdChars} characters`);
  }
  return v;
}

function metadataOf(v: unknown, field: string): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) throw new InvalidParamsError(`${field} must be an object`);
  if (JSON.stringify(v).length > LIMITS.maxMetadataBytes)
    throw new InvalidParamsError(`${field} is larger than ${LIMITS.maxMetadataBytes} bytes`);
  return v;
}

/**
 * `historyLength`: a non-negative integer (anything else is -32602). A length beyond what is kept simply
 * returns the whole history, as a client asking for "up to n" expects; it is capped before it reaches gRPC.
 */
export function historyLengthOf(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new InvalidParamsError(`${field} must be a non-negative integer`);
  return Math.min(v, 100_000);
}

/** Validates message/send and message/stream params (rules 1, 2, 7, 8, 9 and the Part table). */
export function validateSendParams(
  params: Record<string, unknown>,
  agent: { pushNotificationsEnabled?: boolean } = {},
  spilled?: SpilledFileSource,
): ValidatedSend {
  const m = params.message;
  if (m === undefined) throw new InvalidParamsError('message is required');
  if (!isObject(m)) throw new InvalidParamsError('message must be an object');
  if (m.kind !== undefined && m.kind !== 'message') throw new InvalidParamsError('message.kind must be "message"');
  if (m.role !== 'user') throw new InvalidParamsError('message.role must be "user"');
  const messageId = m.messageId;
  if (typeof messageId !== 'string' || messageId.length === 0)
    throw new InvalidParamsError('message.messageId is required');
  if (messageId.length > LIMITS.maxIdChars)
    throw new InvalidParamsError(`message.messageId is longer than ${LIMITS.maxIdChars} characters`);
  if (!Array.isArray(m.parts)) throw new InvalidParamsError('message.parts is required');
  if (m.parts.length === 0) throw new InvalidParamsError('message.parts must not be empty');
  if (m.parts.length > LIMITS.maxParts)
    throw new InvalidParamsError(`message.parts has more than ${LIMITS.maxParts} parts`);

  const parts: Part[] = [];
  const files: DecodedFile[] = [];
  let fileCount = 0;
  let textChars = 0;
  m.parts.forEach((raw: unknown, i: number) => {
    const at = `message.parts[${i}]`;
    if (!isObject(raw)) throw new InvalidParamsError(`${at} must be an object`);
    const metadata = metadataOf(raw.metadata, `${at}.metadata`);
    const withMeta = <P extends Part>(p: P): P => (metadata ? { ...p, metadata } : p);
    // Legacy text part (deprecated, still accepted): { type: "text", content }.
    if (raw.kind === undefined && raw.type === 'text') {
      if (typeof raw.content !== 'string') throw new InvalidParamsError(`${at}.content must be a string`);
      textChars += raw.content.length;
      parts.push(withMeta({ kind: 'text', text: raw.content }));
      return;
    }
    switch (raw.kind) {
      case 'text': {
        if (typeof raw.text !== 'string') throw new InvalidParamsError(`${at}.text must be a string`);
        textChars += raw.text.length;
        parts.push(withMeta({ kind: 'text', text: raw.text }));
        return;
      }
      case 'data': {
        if (!isObject(raw.data)) throw new InvalidParamsError(`${at}.data must be an object`);
        parts.push(withMeta({ kind: 'data', data: raw.data }));
        return;
      }
      case 'file': {
        fileCount += 1;
        if (fileCount > LIMITS.maxFilesPerMessage)
          throw new InvalidParamsError(`a message may carry at most ${LIMITS.maxFilesPerMessage} files`);
        const f = raw.file;
        if (!isObject(f)) throw new InvalidParamsError(`${at}.file must be an object`);
        if (typeof f.mimeType !== 'string' || f.mimeType.length === 0)
          throw new InvalidParamsError(`${at}.file.mimeType is required`);
        if (f.mimeType.length > 255) throw new InvalidParamsError(`${at}.file.mimeType is too long`);
        if (f.name !== undefined && (typeof f.name !== 'string' || f.name.length > 1024))
          throw new InvalidParamsError(`${at}.file.name must be a string`);
        const hasBytes = f.bytes !== undefined;
        const hasUri = f.uri !== undefined;
        if (hasBytes === hasUri) throw new InvalidParamsError(`${at}.file must have exactly one of bytes or uri`);
        if (!isAcceptedMimeType(f.mimeType)) {
          throw new AppError('CONTENT_TYPE_NOT_SUPPORTED', `File type ${f.mimeType} is not supported`, {
            details: { mimeType: f.mimeType, part: i },
          });
        }
        const name = typeof f.name === 'string' ? f.name : '';
        if (hasBytes) {
          if (typeof f.bytes !== 'string') throw new InvalidParamsError(`${at}.file.bytes must be a base64 string`);
          const b64 = f.bytes;
          const streamed = b64.startsWith(SPILL_PREFIX) ? spilled?.take(b64) : undefined;
          if (streamed) {
            // Decoded and stored while the body arrived (spill-scanner.ts): the same rules, checked there.
            if (streamed.kind === 'too-large') throw new InvalidParamsError(`${at}.file is larger than 20 MB`);
            if (streamed.kind === 'invalid') throw new InvalidParamsError(`${at}.file.bytes is not valid base64`);
            const blob = { id: streamed.blobId, size: streamed.size, sha256: streamed.sha256 };
            files.push({ partIndex: i, name, mimeType: f.mimeType, blob });
            parts.push(
              withMeta({ kind: 'file', file: { ...(name ? { name } : {}), mimeType: f.mimeType, bytes: '' } }),
            );
            return;
          }
          if (b64.length > Math.ceil((LIMITS.maxFileBytes * 4) / 3) + 4)
            throw new InvalidParamsError(`${at}.file is larger than 20 MB`);
          if (!isBase64(b64)) throw new InvalidParamsError(`${at}.file.bytes is not valid base64`);
          const data = Buffer.from(b64, 'base64');
          if (data.length > LIMITS.maxFileBytes) throw new InvalidParamsError(`${at}.file is larger than 20 MB`);
          files.push({ partIndex: i, name, mimeType: f.mimeType, data });
          parts.push(withMeta({ kind: 'file', file: { ...(name ? { name } : {}), mimeType: f.mimeType, bytes: '' } }));
        } else {
          if (typeof f.uri !== 'string') throw new InvalidParamsError(`${at}.file.uri must be a string`);
          const check = checkHttpsUrlShape(f.uri);
          if (!check.ok) throw new InvalidParamsError(`${at}.file.uri: ${check.reason}`);
          parts.push(withMeta({ kind: 'file', file: { ...(name ? { name } : {}), mimeType: f.mimeType, uri: f.uri } }));
        }
        return;
      }
      default:
        throw new InvalidParamsError(`${at}.kind must be "text", "file" or "data"`);
    }
  });
  if (textChars > LIMITS.maxTextChars)
    throw new InvalidParamsError(`message text is longer than ${LIMITS.maxTextChars} characters`);

  const message: Message = { kind: 'message', role: 'user', messageId, parts };
  const contextId = optionalId(m.contextId, 'message.contextId');
  const taskId = optionalId(m.taskId, 'message.taskId');
  if (contextId) message.contextId = contextId;
  if (taskId) message.taskId = taskId;
  const metadata = metadataOf(m.metadata, 'message.metadata');
  if (metadata) message.metadata = metadata;
  if (Array.isArray(m.referenceTaskIds))
    message.referenceTaskIds = m.referenceTaskIds.filter((x): x is string => typeof x === 'string').slice(0, 20);

  let historyLength: number | undefined;
  let blocking: boolean | undefined;
  const cfg = params.configuration;
  if (cfg !== undefined && cfg !== null) {
    if (!isObject(cfg)) throw new InvalidParamsError('configuration must be an object');
    historyLength = historyLengthOf(cfg.historyLength, 'configuration.historyLength');
    if (cfg.blocking !== undefined && cfg.blocking !== null) {
      if (typeof cfg.blocking !== 'boolean') throw new InvalidParamsError('configuration.blocking must be a boolean');
      blocking = cfg.blocking;
    }
    if (cfg.acceptedOutputModes !== undefined && !Array.isArray(cfg.acceptedOutputModes)) {
      throw new InvalidParamsError('configuration.acceptedOutputModes must be an array');
    }
    if (cfg.pushNotificationConfig !== undefined && cfg.pushNotificationConfig !== null) {
      // Inline push configs are not taken here: register with tasks/pushNotificationConfig/set instead.
      // -32003 only when push really is off for the agent (capabilities are truthful); otherwise -32602.
      if (agent.pushNotificationsEnabled) {
        throw new InvalidParamsError(
          'configuration.pushNotificationConfig is not accepted inline; register it with tasks/pushNotificationConfig/set',
        );
      }
      throw new AppError('PUSH_NOT_SUPPORTED', 'Push notifications are not enabled for this agent');
    }
  }
  return { message, files, historyLength, blocking };
}

/**
 * Rule 8: a `uri` file part must be https and resolve to a public address. The shape was checked by the
 * validator; here every host is resolved (the resolver is injectable) and private, loopback and metadata
 * addresses are refused with -32602. The service never downloads the file.
 */
export async function checkFileUris(v: Pick<ValidatedSend, 'message'>, resolver: Resolver): Promise<void> {
  for (const [i, part] of v.message.parts.entries()) {
    if (part.kind !== 'file' || !('uri' in part.file)) continue;
    const check = await checkPublicHttpsUrl(part.file.uri, resolver);
    if (!check.ok) throw new InvalidParamsError(`message.parts[${i}].file.uri: ${check.reason}`);
  }
}
