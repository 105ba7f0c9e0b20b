import type { Db } from '../../db/index.ts'
import type { Logger } from '../log.ts'
import { attemptIds } from './attempt.ts'
import type { CurrentTiming } from './current-timing.ts'
import type { Lifecycle } from './lifecycle.ts'
import type { RunnerState } from './runner-state.ts'
import { recoverAbandoned } from './sql/recover-abandoned.ts'

/** One recovery pass over abandoned claims (this runner's own attempts excepted). */
export function createRecovery(deps: {
  db: Db
  log: Logger
  leaseMs: number
  state: RunnerState
  timing: CurrentTiming
  lifecycle: Lifecycle
  wake: () => void
}) {
  const { db, log, leaseMs, state, timing, lifecycle, wake } = deps
  return async function recover(): Promise<void> {
    const recovered = await recoverAbandoned(db, {
      leaseMs,
      staleAfterMs: timing.value.staleAfterMs,
      exclude: [...state.attempts.keys()],
    })
    for (const task of recovered) {
      log.warn('task recovered', { taskId: task.id, state: task.state, attempt: task.attemptCount })
      if (task.state === 'dead-letter') {
        await lifecycle.emit({ type: 'dead-letter', task, ...attemptIds(task) })
      }
    }
    if (recovered.some((t) => t.state === 'queued')) wake()
  }
}
