import type { TaskObserver } from '../tasks/lifecycle.ts'
import type { RunObserver } from './run-events.ts'

/**
 * The host's observers: of every run (chat turn or task attempt, through the run path) and of
 * every task's lifecycle (through the task runner). The composition root registers the
 * production ones (logging, tracing); hooks, channels and evolution register theirs the same way,
 * and `add…` returns the way to take one out again (a test, a reloaded hook set).
 */
export type ObserverRegistry = {
  /** Live lists: what is added later is heard from the next event on. */
  readonly run: readonly RunObserver[]
  readonly task: TaskObserver[]
  addRunObserver(observer: RunObserver): () => void
  addTaskObserver(observer: TaskObserver): () => void
}

export function createObserverRegistry(): ObserverRegistry {
  const run: RunObserver[] = []
  const task: TaskObserver[] = []
  const adder =
    <T>(list: T[]) =>
    (observer: T) => {
      list.push(observer)
      return () => {
        const at = list.indexOf(observer)
        if (at >= 0) list.splice(at, 1)
      }
    }
  return { run, task, addRunObserver: adder(run), addTaskObserver: adder(task) }
}
