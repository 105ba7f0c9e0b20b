import type { Db } from '../../db/index.ts'
import * as Settings from '../../runtime/settings/index.ts'
import type { RunnerTiming } from './runner.ts'

/** The runner's timing from the persisted background-task settings. */
export async function taskTiming(db: Db): Promise<RunnerTiming> {
  const settings = await Settings.agentRuntime.get(db)
  return {
    concurrency: settings.taskConcurrency,
    pollIntervalMs: settings.taskPollIntervalMs,
    timeoutMs: settings.taskTimeoutMs,
    abortAckMs: settings.taskAbortAckMs,
    staleAfterMs: settings.taskStaleAfterMs,
  }
}
