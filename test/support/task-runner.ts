/**
 * A task runner on a test database with a scripted executor: the prompt says what an attempt
 * does (`ok`, `fail:<class>`, `hang` until aborted, `ignore` abort until released, `record:N`).
 */
import { eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { DEFAULT_WORKSPACE_ID } from '../../db/data-migrations/0002-register-default-workspace.ts'
import { tasks } from '../../db/schema/index.ts'
import type { DatabaseHandle } from '../../compute-host/database/handle.ts'
import { createLogger } from '../../compute-host/log.ts'
import { TaskFailure, type ErrorClass } from '../../compute-host/tasks/failure-policy.ts'
import type { TaskLifecycleEvent } from '../../compute-host/tasks/lifecycle.ts'
import {
  createTaskRunner,
  type RunnerOptions,
  type RunnerTiming,
  type TaskExecutor,
} from '../../compute-host/tasks/runner.ts'
import { createRedactor } from '../../runtime/redaction.ts'
import { enqueue, type NewTask, type TaskRow } from '../../runtime/tasks/index.ts'

export const FAST_TIMING: RunnerTiming = {
  concurrency: 4,
  pollIntervalMs: 200,
  timeoutMs: 10_000,
  abortAckMs: 300,
  staleAfterMs: 60 * 60_000,
}

export function scriptedExecutor(hooks: { released?: Promise<void> } = {}) {
  const executions: string[] = []
  const execute: TaskExecutor = async (task, context) => {
    executions.push(task.id)
    const [verb, arg] = task.prompt.split(':')
    if (verb === 'fail') throw new TaskFailure(arg as ErrorClass, `scripted ${arg} failure`)
    if (verb === 'hang') {
      await new Promise((_, reject) =>
        context.signal.addEventListener('abort', () => reject(context.signal.reason)),
      )
    }
    if (verb === 'ignore') await hooks.released
    if (verb === 'record') {
      for (let i = 0; i < Number(arg); i++) {
        void context.record({ step: i, text: `iteration ${i} SECRET-VALUE-123456` })
      }
    }
    if (verb === 'sleep') await new Promise((r) => setTimeout(r, Number(arg)))
    return { result: `done ${task.id}` }
  }
  return { execute, executions }
}

export function startRunner(
  handle: Pick<DatabaseHandle, 'db' | 'listen'>,
  options: Partial<Omit<RunnerOptions, 'timing'>> & { timing?: Partial<RunnerTiming> } = {},
) {
  const lines: string[] = []
  const events: TaskLifecycleEvent[] = []
  const timing = { ...FAST_TIMING, ...options.timing }
  const runner = createTaskRunner({
    handle,
    execute: options.execute ?? scriptedExecutor().execute,
    log: createLogger({ secrets: ['SECRET-VALUE-123456'], write: (l) => lines.push(l) }),
    redact: createRedactor(['SECRET-VALUE-123456']),
    leaseMs: 1_000,
    backoff: { baseMs: 50, capMs: 200 },
    ...options,
    timing: async () => timing,
    observers: [(e) => void events.push(e), ...(options.observers ?? [])],
  })
  return { runner, lines, events }
}

export function userTask(prompt: string, extra: Partial<NewTask> = {}): NewTask {
  return { source: 'user', workspaceId: DEFAULT_WORKSPACE_ID, title: prompt, prompt, ...extra }
}

export async function add(db: Db, prompt: string, extra: Partial<NewTask> = {}) {
  return enqueue(db, userTask(prompt, extra))
}

export async function row(db: Db, id: string): Promise<TaskRow> {
  const [found] = await db.select().from(tasks).where(eq(tasks.id, id))
  return found!
}

/** Polls until `check` holds (or fails the test after `ms`). */
export async function until(check: () => Promise<boolean> | boolean, ms = 10_000, what = '') {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`timed out waiting ${what}`)
}
