/** Times the phases of preparation, for the run-start event (the latency bench reads them). */
export function phaseClock(startedAt = Date.now()) {
  const phases: Record<string, number> = {}
  let last = performance.now() - (Date.now() - startedAt)
  return {
    lap(phase: string) {
      const now = performance.now()
      phases[phase] = Math.round((now - last) * 100) / 100
      last = now
    },
    report: () => ({ startedAt, phases }),
  }
}
