/**
 * One line of the benchmark table. `ratio` is ours over the baseline measured in the same run
 * (median of per-round ratios) unless `unit` says the figure is an absolute one.
 * `met` is whether the goal was reached, decided by the bench that knows the goal's direction.
 */
export type BenchResult = {
  name: string
  goal: string
  ratio: number
  unit?: 'ms' | 'KB' | 'MB' | 's' | '%' | '/s'
  met: boolean
  detail: string
}

/** Options every bench receives: quick mode only proves the bench runs (CI). */
export type BenchMode = { quick: boolean }

/**
 * Thrown by a bench that cannot run here (a database without pgvector, say): the run reports
 * it as skipped, with the reason and how to install what is missing, and goes on with the rest.
 */
export class BenchSkipped extends Error {
  readonly install: string

  constructor(reason: string, install: string) {
    super(reason)
    this.name = 'BenchSkipped'
    this.install = install
  }
}
