/**
 * A bound on the work of one expansion. Rules can match rarely or never (FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30), and
 * finding that out means walking the calendar: every day (or skipped stretch, or occurrence) examined costs one unit,
 * and running out stops the expansion instead of letting one request spend seconds of CPU.
 *
 * Three allowances: the main one for the walk up to the horizon (running out there is an error: the series cannot be
 * expanded); past the horizon, a smaller look-ahead for open-ended rules, only to tell whether the series continues,
 * and one for finite rules (COUNT or UNTIL) walked to their end (running out past the horizon just means "it may go
 * on": a finite rule that stopped matching before its COUNT cannot be told from one that matches again centuries
 * later without walking there). The main and look-ahead defaults keep the worst case at about 50 ms of CPU (measured
 * when they were chosen), the finite one adds at most as much again;
 * test/domain/recurrence/expansion.test.ts ("bounded work") counts the steps a walk takes against them.
 */
export const DEFAULT_EXPANSION_BUDGET = 100_000;
export const DEFAULT_LOOKAHEAD_BUDGET = 25_000;
/** Enough for 1000 occurrences (RECURRENCE_MAX_OCCURRENCES' default) of a rule that matches every month or more often. */
export const DEFAULT_FINITE_BUDGET = 100_000;

export class BudgetExhausted extends Error {
  /** The wall-clock time (floating seconds) the walk had reached. */
  readonly reached: number;
  /** Whether it ran out past the horizon (the series may go on) rather than before it (an error). */
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
  finite: number;
  /** Walking past this wall-clock time (floating seconds) spends the look-ahead or the finite allowance. */
  lookaheadFrom: number;
  /** Whether the rule being walked is finite and walked to its end: past the horizon it spends the finite allowance. */
  walkingFinite = false;
  readonly work: ExpansionWork;

  constructor(
    main: number,
    lookahead: number,
    finite: number,
    lookaheadFrom: number,
    work: ExpansionWork = { examined: 0 },
  ) {
    this.main = main;
    this.lookahead = lookahead;
    this.finite = finite;
    this.lookaheadFrom = lookaheadFrom;
    this.work = work;
  }

  /** Counts one step of the walk (see {@link ExpansionWork}). */
  examine(): void {
    this.work.examined += 1;
  }

  /** Spends `units` at wall-clock time `reached`; throws BudgetExhausted when that allowance is gone. */
  spend(units: number, reached: number): void {
    if (reached <= this.lookaheadFrom) {
      this.main -= units;
      if (this.main < 0) throw new BudgetExhausted(reached, false);
    } else if (this.walkingFinite) {
      this.finite -= units;
      if (this.finite < 0) throw new BudgetExhausted(reached, true);
    } else {
      this.lookahead -= units;
      if (this.lookahead < 0) throw new BudgetExhausted(reached, true);
    }
  }
}
