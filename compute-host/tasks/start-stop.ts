import type { DatabaseHandle } from '../database/handle.ts'
import type { Abort } from './attempt.ts'
import type { Claimer } from './claimer.ts'
import type { CurrentTiming } from './current-timing.ts'
import type { Heartbeat } from './heartbeat.ts'
import type { RunnerState } from './runner-state.ts'
import { createSerialQueue } from './serial-queue.ts'
import { listenForTasks, type WakeSignal } from './wake-signal.ts'

/**
 * Start and stop are serialised. A stop requested during start lets that start's one recovery
 * pass finish, then nothing more runs.
 */
export function createStartStop(deps: {
  handle: Pick<DatabaseHandle, 'listen'>
  state: RunnerState
  timing: CurrentTiming
  wake: WakeSignal
  cancel: (taskId: string) => void
  heartbeat: Heartbeat
  recover: () => Promise<void>
  runLoop: () => Promise<void>
  claimer: Claimer
  abort: Abort
}) {
  const { handle, state, timing, wake, heartbeat, recover, claimer, abort } = deps
  const serial = createSerialQueue()
  let loop: Promise<void> | undefined
  let unlisten: Array<() => Promise<void>> = []

  async function stopListening() {
    await Promise.allSettled(unlisten.map((stop) => stop()))
    unlisten = []
  }

  return {
    start(): Promise<void> {
      state.stopRequested = false
      return serial.run(async () => {
        if (state.running) return
        try {
          await timing.refresh()
          // Subscribed before the first look for work, so no wake-up is missed.
          unlisten = await listenForTasks(handle, { wake: wake.kick, cancel: deps.cancel })
          heartbeat.start()
          state.databaseLostAt = 0
          // Startup recovery does not wait a lease for this runner's own database connection.
          await recover()
        } catch (error) {
          // A start that met a database outage leaves nothing behind, so it can be tried again
          // (the host's engines retry it) without a second subscription or a beat left running.
          await stopListening()
          heartbeat.stopWhenIdle()
          throw error
        }
        if (state.stopRequested) {
          await stopListening()
          return
        }
        state.running = true
        claimer.started()
        loop = deps.runLoop()
      })
    },

    /**
     * Stops claiming, aborts running attempts and waits up to the abort acknowledgement for them
     * to settle and be recorded. Attempts whose executor ignores abort keep their slot and their
     * heartbeat until they settle.
     */
    stop(): Promise<void> {
      state.stopRequested = true
      wake.kick()
      return serial.run(async () => {
        if (!state.running) return
        state.running = false
        await loop
        // A claim combined with completions may still be launching; after it, none claims more.
        await claimer.idle
        const inflight = [...state.attempts.values()]
        for (const attempt of inflight) abort(attempt, 'shutdown')
        let ackTimer: ReturnType<typeof setTimeout> | undefined
        await Promise.race([
          Promise.allSettled(inflight.map((a) => a.done)),
          new Promise((resolve) => (ackTimer = setTimeout(resolve, timing.value.abortAckMs))),
        ])
        clearTimeout(ackTimer)
        await stopListening()
        heartbeat.stopWhenIdle()
      })
    },
  }
}
