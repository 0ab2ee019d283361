import { describe, expect, it } from 'vitest';
import { DEBIT_RING, debitNote, paidIn, ringOf, withDebit, withoutDebit } from '../../src/domain/debit-ring';

describe('debit ring (ADR 0076)', () => {
  const a = debitNote('msg:a');
  const b = debitNote('msg:b');

  it('a note is 12 characters of base64url whatever the charge id, and differs between ids', () => {
    expect(a).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(debitNote(`msg:${'y'.repeat(5_000)}`)).toHaveLength(12);
    expect(a).not.toBe(b);
    expect(debitNote('msg:a')).toBe(a);
  });

  it('folds a repeated note into one entry at the end and sums it', () => {
    let ring = withDebit('', a, 2);
    ring = withDebit(ring, b, 1);
    ring = withDebit(ring, a, 3);
    expect(ring).toBe(`${b}:1 ${a}:5`);
    expect(paidIn(ring, a)).toBe(5);
    expect(paidIn(ring, b)).toBe(1);
    expect(paidIn(ring, debitNote('msg:c'))).toBe(0);
  });

  it(`keeps the latest ${DEBIT_RING} entries, oldest dropped first`, () => {
    let ring = '';
    const notes = Array.from({ length: DEBIT_RING + 7 }, (_, i) => debitNote(`msg:${i}`));
    for (const n of notes) ring = withDebit(ring, n, 1);
    expect(ring.split(' ')).toEqual(notes.slice(-DEBIT_RING).map((n) => `${n}:1`));
    // Folding an old note moves it to the end without growing the ring.
    ring = withDebit(ring, notes.at(-DEBIT_RING)!, 1);
    expect(ring.split(' ')).toHaveLength(DEBIT_RING);
    expect(ring.endsWith(`${notes.at(-DEBIT_RING)}:2`)).toBe(true);
  });

  it('withoutDebit removes every entry of a note and nothing else', () => {
    const ring = `${a}:1 ${b}:4 ${a}:2`;
    expect(withoutDebit(ring, a)).toBe(`${b}:4`);
    expect(withoutDebit(ring, debitNote('msg:c'))).toBe(ring);
    expect(withoutDebit(`${a}:1`, a)).toBe('');
  });

  it('a note that appears inside an amount is not taken for an entry', () => {
    const digits = '123456789012';
    const ring = `${a}:${digits}1 ${b}:1`;
    expect(paidIn(ring, digits)).toBe(0);
    expect(withoutDebit(ring, digits)).toBe(ring);
  });

  it('reads the objects written before ADR 0076 as notes, oldest first, before the newer string', () => {
    const doc = {
      subscriptionId: 's',
      credits: 1,
      debits: [
        { chargeId: 'msg:a', amount: 1 },
        { chargeId: 'msg:b', amount: 2 },
      ],
      ring: `${debitNote('msg:c')}:3`,
      grants: [],
    };
    expect(ringOf(doc)).toBe(`${a}:1 ${b}:2 ${debitNote('msg:c')}:3`);
    expect(ringOf({ subscriptionId: 's', credits: 0, grants: [] })).toBe('');
  });
});
