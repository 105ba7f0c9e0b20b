import { eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import { channelBindings } from '../../db/schema/index.ts'
import type { BindingRow } from '../../runtime/channels/index.ts'
import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { TaskObserver } from '../tasks/lifecycle.ts'

/**
 * Task results delivered to a conversation, through the outbox like any answer (cut, paced,
 * retried). A task names its conversation one of two ways:
 * - its own `deliver_to_binding_id`: set through the API, or copied from the schedule that queued
 *   it, so a schedule's every run posts to the binding the owner chose;
 * - `/task <prompt>` on a channel, which records the task's id on the command's event.
 * When the task ends (not a failed attempt that will be retried) its result, or plainly why it
 * failed, is posted there. A binding its recipient blocked gets nothing.
 *
 * The `/task` link is the event's `summary.taskId`, found by a scan of the events table: fine for
 * a person's volume of channel events.
 */
export function taskDeliveries(deps: {
  db: Db
  reply: (channelId: string, binding: BindingRow, text: string) => Promise<unknown>
}): TaskObserver {
  return async (event) => {
    if (event.type !== 'TaskStop' || event.willRetry) return
    const binding = await bindingFor(deps.db, event.task)
    // A recipient who blocked the bot gets nothing until it writes again (which unblocks).
    if (!binding || binding.blockedAt) return
    const title = event.task.title
    const text =
      event.outcome === 'completed'
        ? `Task “${title}” completed:\n\n${event.result ?? '(no answer)'}`
        : `Task “${title}” ${event.outcome}${event.error ? `: ${event.error.message}` : ''}`
    await deps.reply(binding.channelId, binding, text)
  }
}

async function bindingFor(db: Db, task: TaskRow): Promise<BindingRow | undefined> {
  let bindingId = task.deliverToBindingId
  if (!bindingId) {
    const result = await db.execute(sql`
      select binding_id from popagent_channel_events
      where summary->>'taskId' = ${task.id} and binding_id is not null
      limit 1
    `)
    bindingId = rowsOf<{ binding_id: string }>(result)[0]?.binding_id ?? null
  }
  if (!bindingId) return undefined
  const [row] = await db.select().from(channelBindings).where(eq(channelBindings.id, bindingId))
  return row
}
