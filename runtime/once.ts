/**
 * Shares one in-flight initialisation among concurrent callers, keeps its result once it
 * succeeded, and forgets a failure so the next caller tries again. A transient database outage
 * during start-up therefore never poisons the store until a restart.
 *
 * @example
 * const ready = createOnce(() => migrate(db))
 * await Promise.all([ready(), ready()]) // one migration run
 */
export function createOnce<T>(init: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined
  return () => {
    pending ??= init().catch((error: unknown) => {
      pending = undefined
      throw error
    })
    return pending
  }
}
