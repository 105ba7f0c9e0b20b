import { inArray, sql } from '../../db/drizzle-orm.ts'
import type { FailureClass } from '../../db/evolution-enums.ts'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import { evolutionSignals } from '../../db/schema/index.ts'

/**
 * How a learned change is measured (issue 39 §5): by its agent's failure rate, for the classes
 * the change was made for, over the runs before it and the runs after it (runs.ts records them).
 * The worker reverts on these figures (compute-host/evolution/regressions.ts); the revisions list
 * shows them.
 */

/** Runs of the agent compared on each side of a change. */
export const RUN_WINDOW = 10
/** Fewer runs than this before a change: its rate before is not known, so nothing is judged. */
export const MIN_RUNS_BEFORE = 5
/** A change is taken back only when at least this many runs after it failed the same way. */
export const MIN_FAILURES_AFTER = 3

export type Windows = {
  runsBefore: number
  failuresBefore: number
  runsAfter: number
  failuresAfter: number
}

/** A measured change: its classes and both windows. */
export type Measure = Windows & { classes: FailureClass[]; window: number }

/**
 * The agent's `size` runs before a revision was made (the newest of them) and the `size` runs
 * after it (the oldest of them), and how many of each failed with one of `classes`. The
 * revision's own time is read in the statement (microseconds, not a JavaScript date's
 * milliseconds). One statement over the runs index (agent, time).
 */
export async function measureWindows(
  db: Db,
  revisionId: string,
  agentId: string,
  classes: readonly FailureClass[],
  size: number,
): Promise<Windows> {
  const wanted = sql`array[${sql.join(
    classes.map((c) => sql`${c}`),
    sql`, `,
  )}]::text[]`
  const result = await db.execute(sql`
    with at as (select created_at from popagent_evolution_revisions where id = ${revisionId}),
    before as (
      select failure_classes from popagent_evolution_runs
      where agent_id = ${agentId} and created_at < (select created_at from at)
      order by created_at desc limit ${size}
    ), after as (
      select failure_classes from popagent_evolution_runs
      where agent_id = ${agentId} and created_at > (select created_at from at)
      order by created_at asc limit ${size}
    )
    select
      (select count(*) from before)::int as runs_before,
      (select count(*) from before where failure_classes && ${wanted})::int as failures_before,
      (select count(*) from after)::int as runs_after,
      (select count(*) from after where failure_classes && ${wanted})::int as failures_after`)
  const [row] = rowsOf<Record<string, number | string>>(result)
  if (!row) throw new Error('the run windows query answered no row')
  return {
    runsBefore: Number(row.runs_before),
    failuresBefore: Number(row.failures_before),
    runsAfter: Number(row.runs_after),
    failuresAfter: Number(row.failures_after),
  }
}

/**
 * Measures one revision: the classes of the signals it cites, then both windows. Undefined when
 * its signals are gone (pruned 30 days after they settled): nothing is left to measure by.
 */
export async function measureRevision(
  db: Db,
  revision: { id: string; agentId: string; signalIds: string[] },
): Promise<Measure | undefined> {
  if (revision.signalIds.length === 0) return undefined
  const cited = await db
    .selectDistinct({ failureClass: evolutionSignals.failureClass })
    .from(evolutionSignals)
    .where(inArray(evolutionSignals.id, revision.signalIds))
  if (cited.length === 0) return undefined
  const classes = cited.map((c) => c.failureClass)
  const windows = await measureWindows(db, revision.id, revision.agentId, classes, RUN_WINDOW)
  return { ...windows, classes, window: RUN_WINDOW }
}

/** Whether the figures say the change made things worse (the revert rule, with its minimums). */
export function rose(m: Windows): boolean {
  if (m.runsAfter < RUN_WINDOW || m.runsBefore < MIN_RUNS_BEFORE) return false
  if (m.failuresAfter < MIN_FAILURES_AFTER) return false
  return m.failuresAfter / m.runsAfter > m.failuresBefore / m.runsBefore
}
