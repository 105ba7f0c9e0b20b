/**
 * Task load for the process faults: real user tasks, each with a unique marker in its prompt,
 * answered by the scripted gateway after a hold, and the final accounting of what became of them.
 */
import { inArray, or } from '../../../../db/drizzle-orm.ts'
import { DEFAULT_WORKSPACE_ID } from '../../../../db/data-migrations/0002-register-default-workspace.ts'
import type { Db } from '../../../../db/index.ts'
import { tasks } from '../../../../db/schema/index.ts'
import * as Settings from '../../../../runtime/settings/index.ts'
import { enqueue, type TaskRow } from '../../../../runtime/tasks/index.ts'
import type { ScriptedGateway } from '../../../support/scripted-gateway.ts'
import type { HostProcess } from './host-process.ts'
import { MARKER } from './recording-proxy.ts'

export const MODEL = 'test/model'

/** The runner settings the hosts read (every second) from PostgreSQL. */
export async function configureTasks(db: Db, timing: { concurrency: number; pollMs: number }) {
  await Settings.agentRuntime.patch(db, {
    modelSource: 'configured',
    configuredModel: MODEL,
    taskConcurrency: timing.concurrency,
    taskPollIntervalMs: timing.pollMs,
  })
}

/** Every model request is answered after a random hold, so kills land inside requests. */
export function holdAnswers(gateway: ScriptedGateway, holdMs: { min: number; max: number }) {
  gateway.respondWith((request) => {
    const marker = JSON.stringify(request.body?.messages ?? []).match(MARKER)?.[1] ?? 'none'
    const delayMs = holdMs.min + Math.floor(Math.random() * (holdMs.max - holdMs.min))
    return { text: `done ${marker}`, delayMs }
  })
}

export const markerOf = (n: number) => `job-${String(n).padStart(5, '0')}`

/** Enqueues user tasks `from`..`from + count - 1`, as the API would (source `user`). */
export async function enqueueMarked(db: Db, from: number, count: number): Promise<TaskRow[]> {
  const rows: TaskRow[] = []
  for (let n = from; n < from + count; n++) {
    rows.push(
      await enqueue(db, {
        source: 'user',
        workspaceId: DEFAULT_WORKSPACE_ID,
        title: markerOf(n),
        prompt: `[${markerOf(n)}] Reply with the word done.`,
      }),
    )
  }
  return rows
}

const FINAL = new Set(['completed', 'failed', 'cancelled', 'dead-letter'])

export type Accounting = {
  completed: number
  /** Not completed (must be 0: with a gateway that always answers, every task completes). */
  lost: TaskRow[]
  /** Attempts beyond the first across all tasks: interrupted work that was replayed. */
  replays: number
  remediations: TaskRow[]
}

/**
 * What became of the tasks. With a gateway that always answers, every user task must complete:
 * an outage or a crash is transient, so interrupted and failed-for-now work waits and runs again
 * (docs/tasks.md). Anything else (still queued or running, failed, dead-lettered) counts as lost.
 */
export async function account(db: Db, ids: string[]): Promise<Accounting> {
  const rows = await db.select().from(tasks).where(inArray(tasks.id, ids))
  const remediations = await db.select().from(tasks).where(inArray(tasks.parentTaskId, ids))
  const lost = rows.filter((t) => t.state !== 'completed')
  if (rows.length !== ids.length) {
    const seen = new Set(rows.map((r) => r.id))
    for (const id of ids.filter((i) => !seen.has(i))) lost.push({ id } as TaskRow)
  }
  return {
    completed: rows.filter((t) => t.state === 'completed').length,
    lost,
    replays: rows.reduce((sum, t) => sum + Math.max(0, t.attemptCount - 1), 0),
    remediations,
  }
}

export const isFinal = (t: Pick<TaskRow, 'state'>) => FINAL.has(t.state)

/** Whether every task of the load, and every remediation task of theirs, has reached a final state. */
export async function everyTaskFinal(db: Db, ids: string[]): Promise<boolean> {
  const rows = await db
    .select({ state: tasks.state })
    .from(tasks)
    .where(or(inArray(tasks.id, ids), inArray(tasks.parentTaskId, ids)))
  return rows.length >= ids.length && rows.every(isFinal)
}

/**
 * The failed attempts the hosts logged ('task attempt failed', one line per attempt with its
 * class), by class, and the share of them the classifier could not name (goal 0).
 */
export function attemptFailures(hosts: HostProcess[]) {
  const byClass: Record<string, number> = {}
  for (const host of hosts) {
    for (const line of host.cli.output().split('\n')) {
      if (!line.startsWith('{') || !line.includes('"task attempt failed"')) continue
      try {
        const errorClass = String((JSON.parse(line) as { errorClass?: unknown }).errorClass)
        byClass[errorClass] = (byClass[errorClass] ?? 0) + 1
      } catch {
        // A line cut by a kill is not a record.
      }
    }
  }
  const total = Object.values(byClass).reduce((a, b) => a + b, 0)
  return { total, byClass, unknownShare: total === 0 ? 0 : (byClass.unknown ?? 0) / total }
}
