/**
 * Runs steps one at a time, in the order they were queued. A failed step rejects for its own
 * caller only; the steps after it still run.
 *
 * @example
 * const serial = createSerialQueue()
 * serial.run(() => start()) // a stop queued now runs after the start has finished
 */
export function createSerialQueue() {
  let tail: Promise<unknown> = Promise.resolve()
  return {
    run<T>(step: () => Promise<T>): Promise<T> {
      const result = tail.then(step)
      tail = result.catch(() => undefined)
      return result
    },
    /** Settles once every step queued so far has settled. */
    get idle(): Promise<unknown> {
      return tail
    },
  }
}
