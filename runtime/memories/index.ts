import { and, asc, desc, eq, ilike, isNull, sql, type SQL } from '../../db/drizzle-orm.ts'
import type { MemoryActor } from '../../db/memory-enums.ts'
import type { Db } from '../../db/index.ts'
import { memories } from '../../db/schema/index.ts'
import type {
  CreateMemoryInput,
  ListMemoriesQuery,
  Memory,
  MemoryWithHistory,
  PatchMemoryInput,
} from '../contracts/memories.ts'
import { createId } from '../ids.ts'
import { asActor } from './actor.ts'
import { FactReadOnly, MemoryNotFound, UserMemoryProtected } from './errors.ts'
import { indexMemory } from './recall-items.ts'
import { likeLiteral, toMemory, type MemoryRow } from './rows.ts'

export { FactReadOnly, MemoryNotFound, UserMemoryProtected }
export { retainFact, type FactInput } from './facts.ts'
export { pruneFacts } from './retention.ts'

/** Newest first; live memories unless `history` asks for superseded facts too. */
export async function list(db: Db, query: ListMemoriesQuery): Promise<Memory[]> {
  const words = (query.q ?? '').split(/\s+/).filter(Boolean).slice(0, 10)
  const rows = await db
    .select()
    .from(memories)
    .where(
      and(
        query.history === 'true' ? undefined : isNull(memories.supersededAt),
        query.owner ? eq(memories.owner, query.owner) : undefined,
        query.sessionId ? eq(memories.sessionId, query.sessionId) : undefined,
        ...words.map((w): SQL => ilike(memories.content, `%${likeLiteral(w)}%`)),
      ),
    )
    .orderBy(desc(memories.createdAt), desc(memories.id))
    .limit(query.limit)
  return rows.map(toMemory)
}

/** One memory and every version of its key, oldest first. */
export async function get(db: Db, id: string): Promise<MemoryWithHistory> {
  const row = await rowOf(db, id)
  const history = row.key
    ? await db
        .select()
        .from(memories)
        .where(
          and(
            eq(memories.owner, row.owner),
            eq(memories.agentId, row.agentId!),
            eq(memories.key, row.key),
          ),
        )
        .orderBy(asc(memories.createdAt), asc(memories.id))
    : [row]
  return { ...toMemory(row), history: history.map(toMemory) }
}

/** A memory the owner writes: no key, no agent; recall finds it from the next turn on. */
export async function create(db: Db, input: CreateMemoryInput): Promise<Memory> {
  return asActor(db, 'user', async (tx) => {
    const [row] = await tx
      .insert(memories)
      .values({ id: createId('memory'), owner: 'user', content: input.content })
      .returning()
    await indexMemory(tx, row!)
    return toMemory(row!)
  })
}

/**
 * Changes a memory's text. Only the user, and only their own memories: a fact changes by being
 * superseded (retainFact), so its history stays true.
 */
export async function update(
  db: Db,
  id: string,
  input: PatchMemoryInput,
  actor: MemoryActor = 'user',
): Promise<Memory> {
  return asActor(db, actor, async (tx) => {
    const current = await rowOf(tx as unknown as Db, id, true)
    if (current.owner === 'user' && actor !== 'user') throw new UserMemoryProtected({ id, actor })
    if (current.owner !== 'user') throw new FactReadOnly({ id })
    const [row] = await tx
      .update(memories)
      .set({ content: input.content, updatedAt: sql`now()` })
      .where(eq(memories.id, id))
      .returning()
    await indexMemory(tx, row!)
    return toMemory(row!)
  })
}

/**
 * Deletes a memory (its recall item goes with it). The user may delete anything, a fact with its
 * whole history; nobody else may delete a user memory.
 */
export async function remove(db: Db, id: string, actor: MemoryActor = 'user'): Promise<void> {
  await asActor(db, actor, async (tx) => {
    const current = await rowOf(tx as unknown as Db, id, true)
    if (current.owner === 'user' && actor !== 'user') throw new UserMemoryProtected({ id, actor })
    const sameKey = current.key
      ? and(
          eq(memories.owner, current.owner),
          eq(memories.agentId, current.agentId!),
          eq(memories.key, current.key),
        )
      : eq(memories.id, id)
    await tx.delete(memories).where(sameKey)
  })
}

async function rowOf(db: Db, id: string, forUpdate = false): Promise<MemoryRow> {
  const query = db.select().from(memories).where(eq(memories.id, id))
  const [row] = forUpdate ? await query.for('update') : await query
  if (!row) throw new MemoryNotFound({ id })
  return row
}
