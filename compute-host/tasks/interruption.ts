import type { TaskRow } from '../../runtime/tasks/index.ts'

/**
 * The restart-recovery rule, also used for attempts stopped by a shutdown: interrupted work is
 * queued again at its original due time (the claim never moves `next_attempt_at`), so it is
 * claimed before everything queued after it and a crash delays it by the lease, not by the
 * backlog. An interruption is transient: the attempt ceiling moves up rather than dead-lettering.
 */
export function afterInterruption(
  task: Pick<TaskRow, 'attemptCount' | 'maxAttempts' | 'nextAttemptAt'>,
): {
  state: 'queued'
  nextAttemptAt: Date
  maxAttempts: number
} {
  return {
    state: 'queued',
    nextAttemptAt: task.nextAttemptAt,
    maxAttempts: Math.max(task.maxAttempts, task.attemptCount + 1),
  }
}
