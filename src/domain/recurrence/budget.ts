/**
 * A bound on the work of one expansion. Rules can match rarely or never (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30), and
 * finding that out means walking the calendar: every day (or skipped stretch, or occurrence) examined costs one unit,
 * and running out stops the expansion instead of letting one request spend seconds of CPU.
 *
 * Two allowances: the main one for the walk up to the horizon (running out there is an error: the series cannot be
 * expanded), and a smaller look-ahead past the horizon, only to tell whether the series continues (running out there
 * just means "it may"). The defaults keep the worst case at about 50 ms of CPU (measured when they were chosen);
 * test/domain/recurrence/expansion.test.ts ("bounded work") counts the steps a walk takes against them.
 */
export const DEFAULT_EXPANSION_BUDGET = 100_000;
export const DEFAULT_LOOKAHEAD_BUDGET = 25_000;

export class BudgetExhausted extends Error {
  /** The wall-clock time (floating seconds) the walk had reached. */
  readonly reached: number;
  readonly lookahead: boolean;

  constructor(reached: number, lookahead: boolean) {
    super('recurrence expansion budget exhausted');
    this.reached = reached;
    this.lookahead = lookahead;
  }
}

/**
 * The steps a walk took: each day tested against a rule's filters and each candidate start looked at, counted apart
 * from the allowances, so that tests can check that every loop pays for its steps (the count stays within them).
 */
export interface ExpansionWork {
  examined: number;
}

export class Budget {
  main: number;
  lookahead: number;
  /** Walking past this wall-clock time (floating seconds) spends the look-ahead allowance. */
  lookaheadFrom: number;
  readonly work: ExpansionWork;

  constructor(main: number, lookahead: number, lookaheadFrom: number, work: ExpansionWork = { examined: 0 }) {
    this.main = main;
    this.lookahead = lookahead;
    this.lookaheadFrom = lookaheadFrom;
    this.work = work;
  }

  /** Counts one step of the walk (see {@link ExpansionWork}). */
  examine(): void {
    this.work.examined += 1;
  }

  /** Spends `units` at wall-clock time `reached`; throws BudgetExhausted when that allowance is gone. */
  spend(units: number, reached: number): void {
    if (reached > this.lookaheadFrom) {
      this.lookahead -= units;
      if (this.lookahead < 0) throw new BudgetExhausted(reached, true);
    } else {
      this.main -= units;
      if (this.main < 0) throw new BudgetExhausted(reached, false);
    }
  }
}
