/**
 * The text of anything a `catch` received: an Error's message, or the thrown value as a string
 * (libraries throw strings and plain objects too). One rule, so a log line, a health report and a
 * CLI refusal word the same failure the same way. Portable: the edge runs it on Workers.
 *
 * @example
 * catch (error) { log.warn('probe failed', { error: errorMessage(error) }) }
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
