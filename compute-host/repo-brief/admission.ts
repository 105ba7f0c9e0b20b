import { AppError } from '../../runtime/errors.ts'
import { createAdmissionQueue, type Lease } from '../models/admission-queue.ts'

export const RepoBriefBusy = AppError.define(
  'REPO_BRIEF_BUSY',
  503,
  'too many repository briefs are being built at once; try again in a few seconds',
)

/**
 * Admission to brief building: at most `limit` briefs run at once in this host (each reads the
 * repository's git status and parses up to hundreds of files, and the host has few cores), later ones wait in FIFO order
 * while at most `maxWaiting` are already waiting, and anything beyond that is refused at once
 * with REPO_BRIEF_BUSY (503) rather than queued without end. A waiter whose signal aborts (its
 * client went away) leaves the queue and never runs.
 */
export function createBriefAdmission(limit: number, maxWaiting: number) {
  const queue = createAdmissionQueue(limit)
  return {
    acquire(signal?: AbortSignal): Promise<Lease> {
      const { active, queued } = queue.stats()
      if (active >= limit && queued >= maxWaiting) {
        return Promise.reject(new RepoBriefBusy({ limit, waiting: queued }))
      }
      return queue.acquire(signal)
    },
    stats: () => queue.stats(),
  }
}
