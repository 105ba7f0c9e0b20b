import { and, count, eq, ne, sql } from '../../db/drizzle-orm.ts'
import { evolutionRevisions } from '../../db/schema/index.ts'
import type { Tx } from './policy.ts'

/** Learned changes one agent may get in 24 hours (reverts do not count): a bad day stays small. */
export const DAILY_CHANGES = 5

/** Changes (not reverts) this agent got in the last 24 hours, read in the applying transaction. */
export async function changesToday(tx: Tx, agentId: string): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(evolutionRevisions)
    .where(
      and(
        eq(evolutionRevisions.agentId, agentId),
        ne(evolutionRevisions.op, 'revert'),
        sql`${evolutionRevisions.createdAt} > now() - interval '24 hours'`,
      ),
    )
  return row?.n ?? 0
}
