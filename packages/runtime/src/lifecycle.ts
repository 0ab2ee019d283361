import type { Logger } from '@a2a-inbound/logger';

export interface Closeable {
  close(): Promise<void>;
}

/** Closes what was added in reverse order, once (a second close waits for the first). */
export class Lifecycle {
  readonly #closers: { name: string; close: () => Promise<void> }[] = [];
  #closing: Promise<void> | undefined;

  add<T extends Closeable>(name: string, resource: T): T {
    this.#closers.push({ name, close: () => resource.close() });
    return resource;
  }

  onClose(name: string, close: () => Promise<void>): void {
    this.#closers.push({ name, close });
  }

  get isClosing(): boolean {
    return this.#closing !== undefined;
  }

  close(log?: Logger): Promise<void> {
    this.#closing ??= (async () => {
      for (const { name, close } of [...this.#closers].reverse()) {
        try {
          await close();
        } catch (err) {
          log?.error({ err, resource: name }, 'close failed');
        }
      }
    })();
    return this.#closing;
  }
}
