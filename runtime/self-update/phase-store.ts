import { and, asc, eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import {
  taskPhases,
  WORKFLOW_PHASES,
  type PhaseState,
  type WorkflowPhase,
} from '../../db/schema/index.ts'

export type PhaseRecord = {
  name: WorkflowPhase
  attempt: number
  state: PhaseState
  /** One line a person reads first; the full parsed output follows it. */
  evidence: string
  output: Record<string, unknown> | null
  error: string | null
  startedAt: string
  finishedAt: string | null
}

/** Writes one phase of one attempt: started, then completed, failed or skipped. */
export async function recordPhase(
  db: Db,
  row: {
    taskId: string
    attempt: number
    phase: WorkflowPhase
    state: PhaseState
    output?: Record<string, unknown> | null
    error?: string | null
  },
): Promise<void> {
  const finished = row.state === 'running' ? null : sql`now()`
  await db
    .insert(taskPhases)
    .values({
      taskId: row.taskId,
      attempt: row.attempt,
      phase: row.phase,
      state: row.state,
      output: row.output ?? null,
      error: row.error ?? null,
      ...(finished && { finishedAt: finished }),
    })
    .onConflictDoUpdate({
      target: [taskPhases.taskId, taskPhases.attempt, taskPhases.phase],
      set: {
        state: row.state,
        output: row.output ?? null,
        error: row.error ?? null,
        finishedAt: finished,
      },
    })
}

/** The phases of the task's latest attempt that reached the workflow, in workflow order. */
export async function latestPhases(db: Db, taskId: string): Promise<PhaseRecord[]> {
  const rows = await db
    .select()
    .from(taskPhases)
    .where(
      and(
        eq(taskPhases.taskId, taskId),
        eq(
          taskPhases.attempt,
          sql`(select max(attempt) from ${taskPhases} where ${taskPhases.taskId} = ${taskId})`,
        ),
      ),
    )
    .orderBy(asc(taskPhases.startedAt))
  const order = (phase: WorkflowPhase) => WORKFLOW_PHASES.indexOf(phase)
  return rows
    .sort((a, b) => order(a.phase) - order(b.phase))
    .map((row) => ({
      name: row.phase,
      attempt: row.attempt,
      state: row.state,
      evidence: evidenceLine(row.phase, row.state, row.output, row.error),
      output: row.output,
      error: row.error,
      startedAt: row.startedAt.toISOString(),
      finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
    }))
}

function evidenceLine(
  phase: WorkflowPhase,
  state: PhaseState,
  output: Record<string, unknown> | null,
  error: string | null,
): string {
  if (state === 'failed') return error ?? 'failed'
  if (state === 'skipped') return 'skipped: the decision was to change nothing'
  if (state === 'running' || !output) return state
  const o = output as EvidenceFields
  switch (phase) {
    case 'prepare':
      return `clone of ${o.ctx?.baseSha?.slice(0, 12)} on ${o.ctx?.branch}`
    case 'research':
      return `${o.report?.findings?.length ?? 0} finding(s) in ${o.iterations} iteration(s)`
    case 'decide':
      return `${o.decision?.kind}: ${o.decision?.reason}`
    case 'implement':
      return `${o.stepsUsed} step(s): ${o.summary}`
    case 'inspect-change':
      return `${o.files?.length ?? 0} file(s), digest ${o.digest}`
    case 'verify':
      return `${o.checks?.length ?? 0} check(s) passed`
    case 'review':
      return `${o.review?.verdict}, echoed digest ${o.review?.digest}`
    case 'commit':
      return o.ref ? `${o.ref} at ${o.commitSha}` : String(o.reason ?? o.outcome)
    case 'deploy':
      return String(o.reason ?? o.outcome)
  }
}

// The fields the one-line evidence reads; the stored output was parsed by its phase's schema.
type EvidenceFields = {
  ctx?: { baseSha?: string; branch?: string }
  report?: { findings?: unknown[] }
  iterations?: number
  decision?: { kind?: string; reason?: string }
  stepsUsed?: number
  summary?: string
  files?: unknown[]
  digest?: string
  checks?: unknown[]
  review?: { verdict?: string; digest?: string }
  ref?: string | null
  commitSha?: string | null
  reason?: string
  outcome?: string
}
