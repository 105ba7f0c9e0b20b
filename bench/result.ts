/**
 * One line of the benchmark table. `ratio` is ours over the baseline measured in the same run
 * (median of per-round ratios) unless `unit` says the figure is an absolute one.
 * `met` is whether the goal was reached, decided by the bench that knows the goal's direction.
 */
export type BenchResult = {
  name: string
  goal: string
  ratio: number
  unit?: 'ms' | 'KB' | 'MB' | 's' | '%'
  met: boolean
  detail: string
}

/** Options every bench receives: quick mode only proves the bench runs (CI). */
export type BenchMode = { quick: boolean }
