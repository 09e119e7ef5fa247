/**
 * The commit a write transaction's work ends in. On SQLite the writes that arrive together share one transaction and
 * its commit, each under a savepoint of its own (sqlite/group-commit.ts); on PostgreSQL each write commits alone.
 * Whatever must follow a write's commit registers here, so that it runs once the commit that holds the write happened.
 */
export interface Commit {
  /**
   * Runs `hook` right after the commit that holds this write, before any caller of its writes goes on; never when
   * this write was undone. Hooks run in the order of their writes, then in the order registered.
   */
  afterCommit(hook: () => void): void;
  /** The same object for every write one commit holds: what a caller gathers what it learns of them by. */
  readonly key: object;
}

/** A {@link Commit} that its transaction runner runs once the commit succeeded (and drops when it did not). */
export class CommitHooks implements Commit {
  readonly key: object;
  readonly #hooks: Array<() => void> = [];

  /** `key`: the commit this write's hooks join, when it is one of several (by default its own). */
  constructor(key?: object) {
    this.key = key ?? this;
  }

  afterCommit(hook: () => void): void {
    this.#hooks.push(hook);
  }

  /** Takes the hooks of a write that `write` gathered, after those taken so far (the write's part was kept). */
  adopt(write: CommitHooks): void {
    this.#hooks.push(...write.#hooks);
  }

  /** Runs the hooks in order; one that throws is reported as a process warning and the others still run. */
  run(): void {
    for (const hook of this.#hooks) {
      try {
        hook();
      } catch (error) {
        process.emitWarning(error instanceof Error ? error : new Error(String(error)), { code: 'AFTER_COMMIT_HOOK' });
      }
    }
  }
}
