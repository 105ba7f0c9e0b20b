/**
 * The rows of a raw `db.execute()` result, whichever driver ran it: postgres.js answers an array,
 * node-postgres and PGlite an object with `rows`.
 */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return ((result as { rows?: T[] }).rows ?? []) as T[]
}
