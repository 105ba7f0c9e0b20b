import type { Db } from '../../db/index.ts'
import * as Settings from '../settings/index.ts'
import { pruneFactsBefore } from './facts.ts'

const DAY_MS = 86_400_000

/**
 * Retention (memory settings `factRetentionDays`): agent and evolution facts older than that are
 * deleted, superseded versions first by age. User memories are never pruned: they stay until the
 * user deletes them, and the database refuses the `retention` actor on them besides.
 */
export async function pruneFacts(db: Db, now = new Date()): Promise<number> {
  const { factRetentionDays } = await Settings.memory.get(db)
  if (factRetentionDays === null) return 0
  return pruneFactsBefore(db, new Date(now.getTime() - factRetentionDays * DAY_MS))
}
