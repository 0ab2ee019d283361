/**
 * Keys in the order they were last put at the end, with the oldest found in constant time (amortized), for the
 * in-memory engines' eviction (ADR 0075).
 *
 * Not a `Set` or `Map` walked from its start: V8 leaves a deleted entry as a hole in the table's insertion order
 * until the table is rebuilt, and an iterator skips the holes one by one. Evicting the first entry again and again
 * (one delete per insert at a bound) piles the holes up at the front, so each "first entry" costs a walk over every
 * key evicted since the last rebuild: about 14 µs per insert at 20,000 kept (1.5 µs at 1,000). Here the slots of an
 * array are skipped once each (the head only moves forward) and the array is compacted when half of it is holes.
 */
export class EvictionOrder {
  /** Keys in order from `#head`; `undefined`: a slot left by a key moved to the end or deleted. */
  #slots: (string | undefined)[] = [];
  #head = 0;
  /** Each key's slot. */
  readonly #at = new Map<string, number>();

  get size(): number {
    return this.#at.size;
  }

  has(key: string): boolean {
    return this.#at.has(key);
  }

  /** Puts `key` at the end (the last to go), moving it there when it is in already. */
  toEnd(key: string): void {
    const at = this.#at.get(key);
    if (at !== undefined) this.#slots[at] = undefined;
    this.#at.set(key, this.#slots.length);
    this.#slots.push(key);
    this.#compactIfSparse();
  }

  delete(key: string): boolean {
    const at = this.#at.get(key);
    if (at === undefined) return false;
    this.#slots[at] = undefined;
    this.#at.delete(key);
    this.#compactIfSparse();
    return true;
  }

  /** The key put at the end longest ago for which `eligible` holds (it is asked from the oldest on). */
  oldest(eligible: (key: string) => boolean = () => true): string | undefined {
    while (this.#head < this.#slots.length && this.#slots[this.#head] === undefined) this.#head += 1;
    for (let i = this.#head; i < this.#slots.length; i++) {
      const key = this.#slots[i];
      if (key !== undefined && eligible(key)) return key;
    }
    return undefined;
  }

  /** Every key (in no particular order); deleting while iterating is allowed. */
  keys(): IterableIterator<string> {
    return this.#at.keys();
  }

  /** Rebuilt without holes once they are more than half the slots: O(1) amortized per `toEnd`/`delete`. */
  #compactIfSparse(): void {
    if (this.#slots.length <= 2 * this.#at.size + 64) return;
    const slots: string[] = [];
    for (let i = this.#head; i < this.#slots.length; i++) {
      const key = this.#slots[i];
      if (key === undefined) continue;
      this.#at.set(key, slots.length);
      slots.push(key);
    }
    this.#slots = slots;
    this.#head = 0;
  }
}
