import { AppError } from '@a2a-inbound/errors';
import type { Collection, Versioned } from './document-store';

/**
 * Compare-and-set loop: reads the document, applies `mutate`, writes at the read version and retries on
 * a version conflict. `mutate` returns the new document, or undefined to leave it unchanged.
 */
export async function updateWithRetry<T extends object>(
  collection: Collection<T>,
  id: string,
  mutate: (current: Versioned<T>) => T | undefined | Promise<T | undefined>,
  attempts = 20,
): Promise<Versioned<T> | undefined> {
  for (let i = 0; i < attempts; i++) {
    const current = await collection.get(id);
    if (!current) return undefined;
    const next = await mutate(current);
    if (next === undefined) return current;
    try {
      return await collection.replace(id, current.version, next);
    } catch (err) {
      if (err instanceof AppError && err.code === 'VERSION_CONFLICT') continue;
      throw err;
    }
  }
  throw new AppError('VERSION_CONFLICT', `${collection.name}/${id}: too many concurrent writers`);
}
