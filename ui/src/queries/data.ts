import { createAsync } from '@solidjs/router'

export type Data<T> = {
  /** The last good value: kept while a revalidation runs, and after one fails. */
  data: () => T | undefined
  /** What went wrong with the last load, or undefined. */
  error: () => unknown
}

/**
 * A query's answer for a component, read through the router's `createAsync` so the cache,
 * deduplication and revalidation apply. Unlike `createAsync` alone, reading never throws: a load
 * error sits in `error()` next to the last good value, so a page shows it inline instead of
 * needing an error boundary. `load` returns undefined while there is nothing to load.
 *
 * @example const agents = createData(() => getAgents())
 */
export function createData<T>(load: () => Promise<T> | undefined): Data<T> {
  type Settled = { value?: T; error?: unknown }
  const settled = createAsync<Settled>(async (previous) => {
    // Called before the first await, so the query is read (and tracked) synchronously.
    const pending = load()
    if (!pending) return {}
    try {
      return { value: await pending }
    } catch (error) {
      return { value: previous?.value, error }
    }
  })
  return { data: () => settled()?.value, error: () => settled()?.error }
}
