import { TASK_CANCEL_CHANNEL, TASK_WAKE_CHANNEL } from '../../runtime/tasks/notify-topics.ts'
import type { DatabaseHandle } from '../database/handle.ts'

/**
 * Wakes the claim loop: a NOTIFY on the wake channel, an attempt that freed its slot, recovered
 * work, a retry whose backoff has passed. A wake-up that arrives while a claim is in flight sets a
 * flag that the wait checks first, so none is lost. Polling at `pollIntervalMs` is the fallback
 * (and rediscovers delayed retries).
 */
export function createWakeSignal(stopping: () => boolean) {
  let pending = false
  let waiter: (() => void) | undefined
  return {
    kick(): void {
      pending = true
      waiter?.()
    },
    /** Forgets earlier wake-ups: the loop is about to look for work, which answers them. */
    clear(): void {
      pending = false
    },
    /** Resolves at the next wake-up (at once if one is pending or a stop was asked for), or after `ms`. */
    wait(ms: number): Promise<void> {
      if (pending || stopping()) return Promise.resolve()
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms)
        function done() {
          clearTimeout(timer)
          waiter = undefined
          resolve()
        }
        waiter = done
      })
    },
  }
}

export type WakeSignal = ReturnType<typeof createWakeSignal>

/**
 * LISTENs on the wake and cancel channels; answers the functions that stop listening. A start
 * subscribes before its first look for work, and a reconnected listener wakes the loop, since
 * notifications sent while it was down are lost.
 */
export async function listenForTasks(
  handle: Pick<DatabaseHandle, 'listen'>,
  on: { wake: () => void; cancel: (taskId: string) => void },
): Promise<Array<() => Promise<void>>> {
  const stops: Array<() => Promise<void>> = []
  try {
    stops.push(await handle.listen(TASK_WAKE_CHANNEL, on.wake, on.wake))
    stops.push(await handle.listen(TASK_CANCEL_CHANNEL, on.cancel))
    return stops
  } catch (error) {
    // The second LISTEN failed (a database outage): the first is not left connected.
    await Promise.allSettled(stops.map((stop) => stop()))
    throw error
  }
}
