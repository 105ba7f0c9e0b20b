import type { Db } from '../../db/index.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import * as Approvals from '../../runtime/approvals/index.ts'
import * as Memories from '../../runtime/memories/index.ts'
import type { Logger } from '../log.ts'

const HOUR_MS = 3_600_000

/**
 * Applies fact retention (memory settings `factRetentionDays`) at start and hourly. Pruning only
 * ever deletes agent and evolution facts; a failure is logged and tried again next hour. The
 * same pass prunes approvals settled more than 30 days ago (runtime/approvals `prune`), which
 * nothing else ever deletes.
 */
export function startFactRetention(db: Db, log: Logger): { stop(): void } {
  const prune = () => {
    const facts = Memories.pruneFacts(db).then(
      (pruned) => pruned && log.info('facts past retention pruned', { pruned }),
      (error: unknown) => log.warn('fact retention failed', { error: errorMessage(error) }),
    )
    const approvals = Approvals.prune(db).then(
      (pruned) => pruned && log.info('settled approvals past retention pruned', { pruned }),
      (error: unknown) => log.warn('approval retention failed', { error: errorMessage(error) }),
    )
    return Promise.all([facts, approvals])
  }
  void prune()
  const timer = setInterval(() => void prune(), HOUR_MS)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
