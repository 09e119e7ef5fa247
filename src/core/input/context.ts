// What the core's reading of raw input needs: the store its checks read, who acts and when, and a memo so that a
// record a check loaded is not loaded again by the write. The HTTP edge's RequestContext is one (http/context.ts);
// other surfaces (the .ics import, the CLI, background work) make one from an Actor with `commandContext`.
import type { Actor } from '../../domain/actor.ts';
import type { Store } from '../../store/store.ts';

export interface CommandContext extends Actor {
  store: Store;
  /** Memo for one command: a record a check loaded is not loaded again by the write. */
  memo<T>(key: string, load: () => Promise<T>): Promise<T>;
}

/** A command's context for `actor`, with a memo of its own. */
export function commandContext(store: Store, actor: Actor): CommandContext {
  const cache = new Map<string, Promise<unknown>>();
  return {
    ...actor,
    store,
    memo<T>(key: string, load: () => Promise<T>): Promise<T> {
      let value = cache.get(key);
      if (value === undefined) {
        value = load();
        cache.set(key, value);
      }
      // A key names one record, always loaded by the same kind of loader: what is cached under it is a Promise<T>.
      return value as Promise<T>;
    },
  };
}
