import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { Attempt } from './attempt.ts'
import type { Heartbeat } from './heartbeat.ts'
import type { RunnerState } from './runner-state.ts'
import type { Settled } from './sql/finish.ts'

/**
 * Starts a claimed attempt in a slot. The slot is held until the executor has settled and the
 * attempt's end is written; an executor that ignores abort keeps it.
 */
export function createLauncher(deps: {
  state: RunnerState
  execute: (attempt: Attempt) => Promise<Settled>
  end: (task: TaskRow, settled: Settled) => Promise<void>
  heartbeat: Heartbeat
  wake: () => void
}) {
  const { state, execute, end, heartbeat, wake } = deps
  return function launch(task: TaskRow): void {
    const controller = new AbortController()
    const attempt: Attempt = { task, controller, settled: false, done: Promise.resolve() }
    state.attempts.set(task.id, attempt)
    attempt.done = (async () => end(task, await execute(attempt)))().finally(() => {
      // A claim taken again after a lost one may have started a newer attempt under this id.
      if (state.attempts.get(task.id) === attempt) state.attempts.delete(task.id)
      // The last straggler of a stopped runner takes the heartbeat with it.
      if (!state.running) heartbeat.stopWhenIdle()
      wake()
    })
  }
}
