import { sql } from '../drizzle-orm.ts'
import { check, integer, jsonb, pgTable, primaryKey, text, timestamp } from '../drizzle-pg-core.ts'
import {
  PHASE_STATES,
  WORKFLOW_PHASES,
  type PhaseState,
  type WorkflowPhase,
} from '../self-update-enums.ts'
import { tasks } from './tasks.ts'

export * from '../self-update-enums.ts'

const time = () => timestamp({ withTimezone: true, mode: 'date' })
const inList = (values: readonly string[]) => sql.raw(`(${values.map((v) => `'${v}'`).join(', ')})`)

/**
 * The self-update workflow's evidence: one row per phase of each attempt, holding the phase's
 * output exactly as its schema parsed it (or the error that stopped it), for
 * `GET /api/tasks/:id/workflow`, the task page and the remediation agent.
 */
export const taskPhases = pgTable(
  'popagent_task_phases',
  {
    taskId: text()
      .notNull()
      .references(() => tasks.id, { onDelete: 'cascade' }),
    attempt: integer().notNull(),
    phase: text().$type<WorkflowPhase>().notNull(),
    state: text().$type<PhaseState>().notNull(),
    output: jsonb().$type<Record<string, unknown>>(),
    error: text(),
    startedAt: time().notNull().defaultNow(),
    finishedAt: time(),
  },
  (t) => [
    primaryKey({ name: 'popagent_task_phases_pk', columns: [t.taskId, t.attempt, t.phase] }),
    check('popagent_task_phases_phase', sql`${t.phase} in ${inList(WORKFLOW_PHASES)}`),
    check('popagent_task_phases_state', sql`${t.state} in ${inList(PHASE_STATES)}`),
  ],
)
