import { and, asc, eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { channelBindings, tasks } from '../../db/schema/index.ts'
import { splitForChannel } from '../../runtime/channels/split-text.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import { createId } from '../../runtime/ids.ts'
import type { TaskRow } from '../../runtime/tasks/index.ts'
import type { Logger } from '../log.ts'
import type { TaskObserver } from '../tasks/lifecycle.ts'
import type { ChannelDirectory } from './directory.ts'
import type { Outbox } from './outbox/engine.ts'
import { enqueueChunks } from './outbox/sql/enqueue.ts'
import { pacingFor } from './pacing.ts'

/** Tasks whose delivery one sweep queues at most; the next sweep takes the rest. */
const SWEEP_BATCH = 50

/**
 * Task results delivered to a conversation, through the outbox like any answer (cut, paced,
 * retried). A task names its conversation in `deliver_to_binding_id`: set through the API, copied
 * from the schedule that queued it, or by `/task <prompt>` on a channel.
 *
 * Never lost between the task's end and its post: the statement that ends a task with a binding
 * also sets its `delivery_pending` marker (a trigger, migration 0034), so the marker commits with
 * the end. Queueing the post claims the marker (`update … where delivery_pending`) in the same
 * transaction that inserts the outbox rows: either both commit or neither does, and of two
 * claimers (the TaskStop observer and a sweep, or two hosts) one wins, so the result is queued
 * exactly once. A host killed after the end and before the post leaves the marker set; the sweep
 * at the next start (and every `sweepMs` after) queues it. A binding that is gone, blocked, or on
 * a channel that only listens clears the marker with nothing queued.
 */
export function createTaskDeliveries(deps: {
  db: Db
  directory: ChannelDirectory
  outbox: Pick<Outbox, 'wake'>
  redact: (text: string) => string
  log: Logger
}) {
  const { db, directory, log } = deps

  /** Queues a finished task's result if its marker is still set; answers chunks queued. */
  async function deliver(taskId: string): Promise<number> {
    const queued = await db.transaction(async (tx) => {
      const [task] = await tx
        .update(tasks)
        .set({ deliveryPending: false })
        .where(and(eq(tasks.id, taskId), eq(tasks.deliveryPending, true)))
        .returning()
      if (!task?.deliverToBindingId) return 0
      const [binding] = await tx
        .select()
        .from(channelBindings)
        .where(eq(channelBindings.id, task.deliverToBindingId))
      // A recipient who blocked the bot gets nothing until it writes again (which unblocks).
      if (!binding || binding.blockedAt) return 0
      const channel = await directory.get(binding.channelId)
      if (!channel || channel.adapter.listensOnly) return 0
      const target = { conversation: binding.conversation, thread: binding.thread }
      return enqueueChunks(tx, {
        channelId: binding.channelId,
        bindingId: binding.id,
        target,
        deliveryId: createId('channelDelivery'),
        chunks: splitForChannel(deps.redact(textOf(task)), channel.adapter.limits.maxChars),
        ...pacingFor(channel.adapter.limits, target),
      })
    })
    if (queued > 0) deps.outbox.wake()
    return queued
  }

  /** Queues every delivery a task's end left pending (a host that died before posting it). */
  async function sweep(): Promise<number> {
    const pending = await db
      .select({ id: tasks.id })
      .from(tasks)
      .where(eq(tasks.deliveryPending, true))
      .orderBy(asc(tasks.finishedAt))
      .limit(SWEEP_BATCH)
    let delivered = 0
    for (const { id } of pending) {
      try {
        if ((await deliver(id)) > 0) delivered++
      } catch (error) {
        log.warn('task delivery not queued; the next sweep tries again', {
          taskId: id,
          error: errorMessage(error),
        })
      }
    }
    return delivered
  }

  const observer: TaskObserver = async (event) => {
    if (event.type !== 'TaskStop' || event.willRetry) return
    await deliver(event.task.id)
  }

  return { deliver, sweep, observer }
}
export type TaskDeliveries = ReturnType<typeof createTaskDeliveries>

/** The post: the result, or plainly why the task did not finish. */
function textOf(task: TaskRow): string {
  if (task.state === 'completed') {
    return `Task “${task.title}” completed:\n\n${task.result ?? '(no answer)'}`
  }
  const why = task.state === 'cancelled' ? null : task.lastError
  return `Task “${task.title}” ${task.state}${why ? `: ${why}` : ''}`
}
