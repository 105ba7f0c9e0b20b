import { setImmediate as nextTurn } from 'node:timers/promises'

// Long enough to amortise the turn, short enough that the host's other requests barely notice.
const BURST_MS = 8

/**
 * Lets synchronous work share the event loop. After each file the work asks `due()`, which is
 * cheap and synchronous (no promise per file) and throws once `signal` has aborted (the caller
 * went away, or the brief ran out of time); once a burst has run BURST_MS it is due, and the
 * work awaits `rest()`, which gives the loop a turn.
 */
export function createPacer(signal: AbortSignal) {
  let burstStart = performance.now()
  return {
    due(): boolean {
      signal.throwIfAborted()
      return performance.now() - burstStart >= BURST_MS
    },
    async rest(): Promise<void> {
      await nextTurn()
      signal.throwIfAborted()
      burstStart = performance.now()
    },
  }
}

export type Pace = ReturnType<typeof createPacer>
