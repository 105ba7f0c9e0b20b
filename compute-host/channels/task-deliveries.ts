import { sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { rowsOf } from '../../db/rows.ts'
import * as Channels from '../../runtime/channels/index.ts'
import type { BindingRow } from '../../runtime/channels/index.ts'
import type { TaskObserver } from '../tasks/lifecycle.ts'

/**
 * Task results delivered to the conversation that asked for them: `/task <prompt>` on a channel
 * queues a background task and records its id on the command's event; when the task ends (not
 * a failed attempt that will be retried) this observer posts its result, or why it failed, to
 * that event's binding through the outbox.
 *
 * The link is the event's `summary.taskId`, looked up by a scan of the events table: fine for a
 * person's volume of channel events; an index would come with a column of its own.
 */
export function taskDeliveries(deps: {
  db: Db
  reply: (channelId: string, binding: BindingRow, text: string) => Promise<unknown>
}): TaskObserver {
  return async (event) => {
    if (event.type !== 'TaskStop' || event.willRetry) return
    const result = await deps.db.execute(sql`
      select channel_id, binding_id from popagent_channel_events
      where summary->>'taskId' = ${event.task.id} and binding_id is not null
      limit 1
    `)
    const link = rowsOf<{ channel_id: string; binding_id: string }>(result)[0]
    if (!link) return
    const binding = await Channels.bindingOf(deps.db, link.channel_id, link.binding_id)
    if (!binding) return
    const title = event.task.title
    const text =
      event.outcome === 'completed'
        ? `Task “${title}” completed:\n\n${event.result ?? '(no answer)'}`
        : `Task “${title}” ${event.outcome}${event.error ? `: ${event.error.message}` : ''}`
    await deps.reply(link.channel_id, binding, text)
  }
}
