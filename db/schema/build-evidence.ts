import { sql } from '../drizzle-orm.ts'
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
} from '../drizzle-pg-core.ts'
import { BUILD_EVIDENCE_KINDS, type BuildEvidenceKind } from '../build-evidence-enums.ts'
import { tasks } from './tasks.ts'

export * from '../build-evidence-enums.ts'

const inList = (values: readonly string[]) => sql.raw(`(${values.map((v) => `'${v}'`).join(', ')})`)

/**
 * What a `build-maintenance` task did, one row per fact (migration 0031): the checkout it started
 * from and ended at, the roles it delegated to, and the branch, CI run, issue and comment
 * references the AkurAI Build server returned to its `build-*` calls. Only what a Build tool call
 * or popagent's own git returned is stored, never what the model says it did, so the rows can be
 * queried as evidence (`GET /api/tasks/:id/build-evidence`).
 */
export const taskBuildEvidence = pgTable(
  'popagent_task_build_evidence',
  {
    id: bigint({ mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    taskId: text()
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    attempt: integer().notNull(),
    kind: text().$type<BuildEvidenceKind>().notNull(),
    /** The reference itself: a branch name, a CI run id, an issue or comment id, a commit. */
    reference: text().notNull(),
    /** The Build operation whose answer carried it; null for popagent's own checkout reads. */
    operation: text(),
    /** The rest of what was returned with it (URL, ref, commit, state), bounded. */
    detail: jsonb().$type<Record<string, unknown>>(),
    recordedAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('popagent_task_build_evidence_task_idx').on(t.taskId, t.id),
    check('popagent_task_build_evidence_kind', sql`${t.kind} in ${inList(BUILD_EVIDENCE_KINDS)}`),
  ],
)
