import type { schedules } from '../../db/schema/index.ts'
import type { NewTask } from '../tasks/index.ts'

/**
 * The task a schedule queues, with its source, workspace, prompt, model and `maxAttempts`. One
 * mapping for the scheduler's occurrences and the owner's "run now", so the two never drift.
 * `occurrence` is the cron time it materialises; null for a run the owner asked for.
 */
export function scheduledTask(
  schedule: typeof schedules.$inferSelect,
  occurrence: Date | null,
  id?: string,
): NewTask {
  return {
    ...(id && { id }),
    source: schedule.source,
    workspaceId: schedule.workspaceId,
    title: schedule.name,
    prompt: schedule.prompt,
    model: schedule.model,
    scheduleId: schedule.id,
    occurrenceAt: occurrence,
    maxAttempts: schedule.maxAttempts,
    deliverToBindingId: schedule.deliverToBindingId,
  }
}
