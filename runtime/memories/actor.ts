import { sql } from '../../db/drizzle-orm.ts'
import type { MemoryActor } from '../../db/memory-enums.ts'
import type { Db } from '../../db/index.ts'
import { UserMemoryProtected } from './errors.ts'

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/**
 * Runs `fn` in a transaction that tells the database who is writing, so migration 0010's trigger
 * refuses an agent or automatic process on a user memory even if a code path here forgot to.
 * The trigger's refusal comes back as the same clear error the runtime check throws.
 */
export async function asActor<T>(db: Db, actor: MemoryActor, fn: (tx: Tx) => Promise<T>) {
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('popagent.actor', ${actor}, true)`)
      return fn(tx)
    })
  } catch (error) {
    if (isTriggerRefusal(error)) throw new UserMemoryProtected({ actor })
    throw error
  }
}

function isTriggerRefusal(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    if (String((e as { message?: unknown }).message ?? '').includes('a memory the user wrote'))
      return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}
