import { createHash } from 'node:crypto';
import type { CreditBucketDoc } from './control-model';

/**
 * A credit bucket's debit notes (ADR 0076): what each recent charge paid from this bucket, so that a refund gives
 * back exactly that (once: the note goes in the same compare-and-set as the credits) and a take-over after a crash
 * pays only what is missing. One string, oldest first: entries `<note>:<amount>` separated by single spaces,
 * where `<note>` is `debitNote(chargeId)`, 12 characters whatever the length of the message id the charge is for.
 * Before ADR 0076 the ring was an array of `{chargeId, amount}` objects (`debits`): it is read as notes, and the
 * bucket's next write keeps only the string.
 */

/** Debits remembered per bucket: a refund or a resumed charge finds what was paid within this window. */
export const DEBIT_RING = 128;

const NOTE_LENGTH = 12;

/**
 * A charge's note: the first 72 bits of the SHA-256 of its id, base64url (no space or colon in it). Two charges of
 * one subscription share a note with odds of about n²/2⁷³ for the n = 2,048 notes its 16 buckets hold together.
 */
export function debitNote(chargeId: string): string {
  return createHash('sha256').update(chargeId).digest('base64url').slice(0, NOTE_LENGTH);
}

/** The bucket's ring as a string of notes, the pre-ADR 0076 `debits` array (if any) folded in first. */
export function ringOf(doc: CreditBucketDoc): string {
  const legacy = doc.debits;
  const ring = doc.ring ?? '';
  if (!legacy || legacy.length === 0) return ring;
  const old = legacy.map((d) => `${debitNote(d.chargeId)}:${d.amount}`).join(' ');
  return ring === '' ? old : `${old} ${ring}`;
}

/** What the ring notes as paid under `note` (every entry of it summed). */
export function paidIn(ring: string, note: string): number {
  if (!ring.includes(note)) return 0;
  let paid = 0;
  for (const entry of ring.split(' ')) if (isEntryOf(entry, note)) paid += Number(entry.slice(NOTE_LENGTH + 1));
  return paid;
}

/**
 * The ring with `take` more under `note`: its earlier entries folded into one at the end, the oldest others
 * dropped beyond `DEBIT_RING`. The common case (a new note) appends and cuts the head without splitting.
 */
export function withDebit(ring: string, note: string, take: number): string {
  let rest = ring;
  let amount = take;
  if (ring.includes(note)) {
    const kept: string[] = [];
    for (const entry of ring.split(' ')) {
      if (isEntryOf(entry, note)) amount += Number(entry.slice(NOTE_LENGTH + 1));
      else if (entry !== '') kept.push(entry);
    }
    rest = kept.join(' ');
  }
  const next = rest === '' ? `${note}:${amount}` : `${rest} ${note}:${amount}`;
  let entries = 1;
  for (let i = next.indexOf(' '); i !== -1; i = next.indexOf(' ', i + 1)) entries += 1;
  if (entries <= DEBIT_RING) return next;
  let cut = -1;
  for (let k = entries - DEBIT_RING; k > 0; k--) cut = next.indexOf(' ', cut + 1);
  return next.slice(cut + 1);
}

/** The ring without any entry under `note`. */
export function withoutDebit(ring: string, note: string): string {
  if (!ring.includes(note)) return ring;
  return ring
    .split(' ')
    .filter((entry) => entry !== '' && !isEntryOf(entry, note))
    .join(' ');
}

/** The bucket as the next write stores it: `credits` and `ring`, without the pre-ADR 0076 `debits`. */
export function bucketWith(doc: CreditBucketDoc, credits: number, ring: string): CreditBucketDoc {
  return { subscriptionId: doc.subscriptionId, credits, ring, grants: doc.grants };
}

function isEntryOf(entry: string, note: string): boolean {
  return entry.length > NOTE_LENGTH && entry.charCodeAt(NOTE_LENGTH) === 58 /* : */ && entry.startsWith(note);
}
