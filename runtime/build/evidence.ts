import { asc, eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { taskBuildEvidence, type BuildEvidenceKind } from '../../db/schema/index.ts'
import * as Tasks from '../tasks/index.ts'

export type BuildEvidence = {
  kind: BuildEvidenceKind
  reference: string
  operation: string | null
  detail: Record<string, unknown> | null
}

export type BuildEvidenceRow = BuildEvidence & { attempt: number; recordedAt: string }

const REFERENCE_CHARS = 500

/** Stores one fact a `build-maintenance` attempt established (db/schema/build-evidence.ts). */
export async function recordBuildEvidence(
  db: Db,
  row: BuildEvidence & { taskId: string; attempt: number },
): Promise<void> {
  await db.insert(taskBuildEvidence).values({
    taskId: row.taskId,
    attempt: row.attempt,
    kind: row.kind,
    reference: row.reference.slice(0, REFERENCE_CHARS),
    operation: row.operation,
    detail: row.detail,
  })
}

/** A task's evidence, every attempt, in the order it was recorded. */
export async function listBuildEvidence(db: Db, taskId: string): Promise<BuildEvidenceRow[]> {
  const rows = await db
    .select()
    .from(taskBuildEvidence)
    .where(eq(taskBuildEvidence.taskId, taskId))
    .orderBy(asc(taskBuildEvidence.id))
  return rows.map((r) => ({
    attempt: r.attempt,
    kind: r.kind,
    reference: r.reference,
    operation: r.operation,
    detail: r.detail,
    recordedAt: r.recordedAt.toISOString(),
  }))
}

/** `GET /api/tasks/:id/build-evidence`: 404 for an unknown task; empty for other work. */
export async function taskEvidence(
  db: Db,
  taskId: string,
): Promise<{ taskId: string; evidence: BuildEvidenceRow[] }> {
  await Tasks.get(db, taskId)
  return { taskId, evidence: await listBuildEvidence(db, taskId) }
}
