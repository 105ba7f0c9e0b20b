import { desc, eq } from '../../../db/drizzle-orm.ts'
import type { Db } from '../../../db/index.ts'
import { taskActivity } from '../../../db/schema/index.ts'

const EVIDENCE_RECORDS = 24
const EVIDENCE_RECORD_CHARS = 600
const EVIDENCE_CHARS = 8_000

/**
 * The parent's workflow evidence: its newest transcript records (steps, tool calls and their
 * results, already redacted when they were stored), oldest first, each cut to a few hundred
 * characters and all of them to a bounded total, so the remediation sees what the attempt did and
 * not only how it ended.
 */
export async function transcriptEvidence(db: Db, taskId: string): Promise<string[]> {
  const rows = await db
    .select({ attempt: taskActivity.attempt, record: taskActivity.record })
    .from(taskActivity)
    .where(eq(taskActivity.taskId, taskId))
    .orderBy(desc(taskActivity.id))
    .limit(EVIDENCE_RECORDS)
  const lines: string[] = []
  let total = 0
  for (const row of rows) {
    const text = JSON.stringify(row.record)
    const line = `#${row.attempt} ${text.length > EVIDENCE_RECORD_CHARS ? `${text.slice(0, EVIDENCE_RECORD_CHARS - 1)}…` : text}`
    if (total + line.length > EVIDENCE_CHARS) break
    total += line.length
    lines.push(line)
  }
  return lines.reverse()
}
