/**
 * The statistics every benchmark (and the fault suite's recorded figures) reports with, in one
 * place so a "p99" or a "median" means the same thing in every row of docs/benchmarks.md.
 */

/** The middle value; the mean of the two middle ones for an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * Nearest-rank percentile: the smallest value with at least `p` % of the values at or below it,
 * so it is always a measured value (p100 is the maximum). NaN for no values.
 */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}
