import { eq } from '../../db/drizzle-orm.ts'
import type { RecallKind } from '../../db/memory-enums.ts'
import type { Db } from '../../db/index.ts'
import { recallItems } from '../../db/schema/index.ts'
import { createId } from '../ids.ts'
import type { MemoryRow } from './rows.ts'

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/**
 * Keeps recall's copy of a memory in step with it, in the caller's transaction: a live memory has
 * exactly one item with its current text (its vector, keyed by item, goes with the old item), a
 * superseded or deleted one none.
 */
export async function indexMemory(tx: Tx | Db, row: MemoryRow) {
  await tx.delete(recallItems).where(eq(recallItems.memoryId, row.id))
  if (row.supersededAt) return
  const kind: RecallKind = row.owner === 'user' ? 'user_memory' : 'agent_fact'
  await tx.insert(recallItems).values({
    id: createId('recall'),
    kind,
    memoryId: row.id,
    sessionId: null,
    turnId: row.turnId,
    content: row.content,
  })
}

/** A finished turn's question and answer, redacted by the caller, as something recall can find. */
export async function indexTurnSpan(
  db: Db,
  span: { sessionId: string; turnId: string; content: string },
) {
  await db.insert(recallItems).values({ id: createId('recall'), kind: 'message_span', ...span })
}
