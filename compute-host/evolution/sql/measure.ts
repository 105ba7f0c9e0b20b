import { sql } from '../../../db/drizzle-orm.ts'
import type { FailureClass } from '../../../db/evolution-enums.ts'
import type { Db } from '../../../db/index.ts'
import { rowsOf } from '../../../db/rows.ts'

export type Windows = {
  runsBefore: number
  failuresBefore: number
  runsAfter: number
  failuresAfter: number
}

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
