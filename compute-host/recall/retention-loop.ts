import type { Db } from '../../db/index.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as Memories from '../../runtime/memories/index.ts'
import type { Logger } from '../log.ts'

const HOUR_MS = 3_600_000

/**
 * Applies fact retention (memory settings `factRetentionDays`) at start and hourly. Pruning only
 * ever deletes agent and evolution facts; a failure is logged and tried again next hour.
 */
export function startFactRetention(db: Db, log: Logger): { stop(): void } {
  const prune = () =>
    Memories.pruneFacts(db).then(
      (pruned) => pruned && log.info('facts past retention pruned', { pruned }),
      (error: unknown) => log.warn('fact retention failed', { error: errorMessage(error) }),
    )
  void prune()
  const timer = setInterval(() => void prune(), HOUR_MS)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
