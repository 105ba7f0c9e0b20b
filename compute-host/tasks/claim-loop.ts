import { setTimeout as sleep } from 'node:timers/promises'
import type { Logger } from '../log.ts'
import type { Claimer } from './claimer.ts'
import type { CurrentTiming } from './current-timing.ts'
import type { RunnerState } from './runner-state.ts'
import type { WakeSignal } from './wake-signal.ts'

/**
 * The loop of a started runner: refresh the timing, recover abandoned claims once a poll interval,
 * fill the free slots, then wait for a wake-up or the poll interval. A claim that filled every
 * slot it had looks again at once. After losing the database the runner waits a full lease before
 * recovering others' claims, giving their owners time to renew.
 */
export function createClaimLoop(deps: {
  log: Logger
  leaseMs: number
  state: RunnerState
  timing: CurrentTiming
  wake: WakeSignal
  recover: () => Promise<void>
  claimer: Claimer
}) {
  const { log, leaseMs, state, timing, wake, recover, claimer } = deps
  return async function runLoop(): Promise<void> {
    let lastRecovery = Date.now()
    while (!state.stopRequested) {
      wake.clear()
      try {
        await timing.refresh()
        if (
          Date.now() - lastRecovery >= timing.value.pollIntervalMs &&
          Date.now() - state.databaseLostAt > leaseMs
        ) {
          lastRecovery = Date.now()
          await recover()
        }
        if (timing.value.concurrency - state.attempts.size > 0 && !state.stopRequested) {
          const { claimed, room } = await claimer.claimFreeSlots()
          if (room > 0 && claimed.length === room) continue
        }
      } catch (error) {
        state.databaseLostAt = Date.now()
        log.error('task runner cannot reach the database; retrying', { error })
        await sleep(Math.min(1_000, timing.value.pollIntervalMs))
        continue
      }
      await wake.wait(timing.value.pollIntervalMs)
    }
  }
}
