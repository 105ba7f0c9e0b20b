/**
 * Reads the SQLSTATE of a PostgreSQL error whichever driver raised it (postgres.js, PGlite) and
 * however many wrappers (drizzle's query error) sit around it.
 */
export function pgErrorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}

export const PG_FOREIGN_KEY_VIOLATION = '23503'
export const PG_UNIQUE_VIOLATION = '23505'
export const PG_NUMERIC_OUT_OF_RANGE = '22003'

/**
 * An error as it may be logged. drizzle wraps a failed statement as "Failed query: <sql>
 * params: <every bound value>", in its message and so in its stack, and those values are request
 * data (message texts, titles, anything a client sent). A statement's error therefore logs as
 * its SQLSTATE and the driver's own message (the cause under drizzle's wrapper), never the
 * wrapper's message or stack, nor the driver's own `query`/`parameters` fields; any other error
 * keeps its name, message and stack.
 */
export function loggableError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) }
  const wrapped = 'params' in error && 'query' in error
  const sqlState = pgErrorCode(error)
  if (!wrapped && sqlState === undefined) {
    return { name: error.name, message: error.message, stack: error.stack }
  }
  const driver = wrapped ? error.cause : error
  return {
    name: error.name,
    ...(sqlState && { sqlState }),
    ...(driver instanceof Error && { message: driver.message }),
  }
}
