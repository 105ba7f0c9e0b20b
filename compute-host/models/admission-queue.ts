/**
 * Admission to the local model: at most `limit` generations hold a slot at once (llama.cpp has
 * that many contexts); everyone else waits in FIFO order with no timeout of their own. A waiter
 * whose signal aborts leaves the queue at once and never runs. A released slot passes straight
 * to the head waiter, so a newcomer can never overtake the queue.
 *
 * The queue is a doubly linked list: enqueue, dequeue and removal of an aborted waiter are O(1)
 * (an array with `shift()`/`splice()` cost 20× under load when it was measured).
 *
 * @example
 * const lease = await queue.acquire(signal)
 * try { await generate() } finally { lease.release() }
 */
export type Lease = { release(): void }

export type AdmissionStats = { limit: number; active: number; queued: number }

export type AdmissionQueue = {
  acquire(signal?: AbortSignal): Promise<Lease>
  stats(): AdmissionStats
}

type Waiter = {
  resolve: (lease: Lease) => void
  reject: (reason: unknown) => void
  signal?: AbortSignal
  onAbort?: () => void
  prev?: Waiter
  next?: Waiter
}

export function createAdmissionQueue(limit: number): AdmissionQueue {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError('admission limit must be an integer ≥ 1')
  let active = 0
  let queued = 0
  let head: Waiter | undefined
  let tail: Waiter | undefined

  const unlink = (w: Waiter) => {
    if (w.prev) w.prev.next = w.next
    else head = w.next
    if (w.next) w.next.prev = w.prev
    else tail = w.prev
    w.prev = w.next = undefined
    queued--
  }

  const lease = (): Lease => {
    let released = false
    return {
      release() {
        if (released) return // idempotent: a double release must not free someone else's slot
        released = true
        const next = head
        if (next) {
          unlink(next)
          if (next.onAbort) next.signal!.removeEventListener('abort', next.onAbort)
          next.resolve(lease()) // the slot moves to the waiter; `active` is unchanged
        } else {
          active--
        }
      },
    }
  }

  return {
    acquire(signal) {
      if (signal?.aborted) return Promise.reject(signal.reason)
      if (active < limit && !head) {
        active++
        return Promise.resolve(lease())
      }
      return new Promise<Lease>((resolve, reject) => {
        const waiter: Waiter = { resolve, reject, signal }
        if (signal) {
          waiter.onAbort = () => {
            unlink(waiter)
            reject(signal.reason)
          }
          signal.addEventListener('abort', waiter.onAbort, { once: true })
        }
        waiter.prev = tail
        if (tail) tail.next = waiter
        else head = waiter
        tail = waiter
        queued++
      })
    },
    stats: () => ({ limit, active, queued }),
  }
}

/**
 * Keeps a lease until a response stream ends, errors or is cancelled by its reader, then
 * releases it exactly once. The slot therefore covers the whole generation, not just the
 * request that started it.
 */
export function holdLeaseForStream<T>(stream: ReadableStream<T>, lease: Lease): ReadableStream<T> {
  const reader = stream.getReader()
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (done) {
          lease.release()
          controller.close()
        } else {
          controller.enqueue(value)
        }
      } catch (error) {
        lease.release()
        controller.error(error)
      }
    },
    async cancel(reason) {
      lease.release()
      await reader.cancel(reason)
    },
  })
}
