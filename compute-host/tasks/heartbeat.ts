import type { Db } from '../../db/index.ts'
import type { Logger } from '../log.ts'
import type { Abort } from './attempt.ts'
import type { RunnerState } from './runner-state.ts'
import { heartbeat } from './sql/heartbeat.ts'

/**
 * Renews the lease of every claim this runner holds, three times a lease; a claim not renewed for
 * `leaseMs` is abandoned and any runner recovers it. The beat runs while any attempt holds a slot,
 * after a stop too: an executor that ignores abort keeps its row, so no recovery anywhere can
 * start it a second time. The answer carries news: a row marked `cancelling` aborts its attempt,
 * and a claim missing from it was recovered elsewhere.
 */
export function createHeartbeat(deps: {
  db: Db
  runnerId: string
  log: Logger
  leaseMs: number
  state: RunnerState
  abort: Abort
}) {
  const { db, runnerId, log, leaseMs, state, abort } = deps
  let timer: ReturnType<typeof setInterval> | undefined

  async function beat() {
    const held = [...state.attempts.keys()]
    if (held.length === 0) return
    try {
      const states = await heartbeat(db, runnerId, held)
      const alive = new Set(states.map((s) => s.id))
      for (const s of states) {
        if (s.state === 'cancelling') {
          const attempt = state.attempts.get(s.id)
          if (attempt) abort(attempt, 'cancelled')
        }
      }
      for (const id of held) {
        // Recovered elsewhere while this runner was cut off: stop working on it.
        const attempt = state.attempts.get(id)
        if (attempt && !alive.has(id)) abort(attempt, 'shutdown')
      }
    } catch (error) {
      state.databaseLostAt = Date.now()
      log.error('task heartbeat failed', { error })
    }
  }

  return {
    start(): void {
      timer ??= setInterval(() => void beat(), Math.max(50, Math.floor(leaseMs / 3)))
      timer.unref?.()
    },
    /** Stops the beat once no attempt holds a slot. */
    stopWhenIdle(): void {
      if (state.attempts.size === 0 && timer) {
        clearInterval(timer)
        timer = undefined
      }
    },
  }
}

export type Heartbeat = ReturnType<typeof createHeartbeat>
