import { and, eq, isNull, lt, ne, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { memories } from '../../db/schema/index.ts'
import type { Memory } from '../contracts/memories.ts'
import { AppError } from '../errors.ts'
import { createId } from '../ids.ts'
import { asActor } from './actor.ts'
import { FactReadOnly, MemoryNotFound, UserMemoryProtected } from './errors.ts'
import { indexMemory } from './recall-items.ts'
import { toMemory } from './rows.ts'

export const InvalidFactKey = AppError.define(
  'INVALID_FACT_KEY',
  400,
  'a fact key is lowercase letters, digits, dots, underscores and hyphens (up to 128)',
)

export type FactInput = {
  owner: 'agent' | 'evolution'
  agentId: string
  /** The semantic key; an evolution fact is stored as `evolution.<agent-id>.<key>`. */
  key: string
  content: string
  /** A memory this fact replaces: one of the agent's own facts, never a user memory. */
  replaces?: string
  provenance?: { sessionId?: string | null; turnId?: string | null; taskId?: string | null }
}

const KEY = /^[a-z0-9][a-z0-9._-]{0,127}$/
const AGENT = /^[a-z0-9-]{1,64}$/

/**
 * Stores a keyed fact. The live fact with the same key is superseded, not overwritten: it keeps
 * its text and gains `superseded_at`/`superseded_by`, so the key's rows are its history, and only
 * the new head is recalled. The caller (an agent's tool, evolution) is the actor the database
 * sees, so a user memory stays out of reach even by id.
 */
export async function retainFact(db: Db, input: FactInput): Promise<Memory> {
  if (!AGENT.test(input.agentId)) throw new InvalidFactKey({ agentId: input.agentId })
  return asActor(db, input.owner, async (tx) => {
    let key = input.key
    if (input.replaces) {
      const [target] = await tx.select().from(memories).where(eq(memories.id, input.replaces))
      if (!target) throw new MemoryNotFound({ id: input.replaces })
      if (target.owner === 'user') {
        throw new UserMemoryProtected({ id: target.id, actor: input.owner })
      }
      if (target.owner !== input.owner || target.agentId !== input.agentId || !target.key) {
        throw new FactReadOnly({ id: target.id }, { message: "only an agent's own facts" })
      }
      key = target.key
    } else {
      if (!KEY.test(key)) throw new InvalidFactKey({ key })
      if (input.owner === 'evolution') key = `evolution.${input.agentId}.${key}`
    }
    const sameKey = and(
      eq(memories.owner, input.owner),
      eq(memories.agentId, input.agentId),
      eq(memories.key, key),
      isNull(memories.supersededAt),
    )
    const [previous] = await tx.select().from(memories).where(sameKey).for('update')
    const id = createId('memory')
    if (previous) {
      const [old] = await tx
        .update(memories)
        .set({ supersededAt: sql`now()`, supersededBy: id, updatedAt: sql`now()` })
        .where(eq(memories.id, previous.id))
        .returning()
      await indexMemory(tx, old!)
    }
    const [row] = await tx
      .insert(memories)
      .values({
        id,
        owner: input.owner,
        agentId: input.agentId,
        key,
        content: input.content,
        sessionId: input.provenance?.sessionId ?? null,
        turnId: input.provenance?.turnId ?? null,
        taskId: input.provenance?.taskId ?? null,
      })
      .returning()
    await indexMemory(tx, row!)
    return toMemory(row!)
  })
}

/** Deletes facts last written before the cutoff; `lt`+`ne` keep the owner's memories out of it. */
export async function pruneFactsBefore(db: Db, cutoff: Date): Promise<number> {
  return asActor(db, 'retention', async (tx) => {
    const gone = await tx
      .delete(memories)
      .where(and(ne(memories.owner, 'user'), lt(memories.createdAt, cutoff)))
      .returning({ id: memories.id })
    return gone.length
  })
}
