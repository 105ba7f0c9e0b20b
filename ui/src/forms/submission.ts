import { createSignal } from 'solid-js'
import { ApiError } from '../api.ts'

/** The per-field problems of a 400 VALIDATION_FAILED (`{ fields: { name: [problem] } }`). */
export function fieldProblems(error: unknown): Record<string, string[]> {
  if (!(error instanceof ApiError)) return {}
  const fields = (error.data as { fields?: unknown } | undefined)?.fields
  return fields && typeof fields === 'object' ? (fields as Record<string, string[]>) : {}
}

/** An error in words: the server's message, and each refused field by its label. */
export function describeError(error: unknown, labels: Record<string, string> = {}): string {
  const message = error instanceof Error ? error.message : String(error)
  const fields = Object.entries(fieldProblems(error))
  if (fields.length === 0) return message
  const named = fields.map(
    ([field, problems]) => `${labels[field] ?? field}: ${problems.join(', ')}`,
  )
  return `${message}: ${named.join('; ')}`
}

/**
 * A form's (or an action's) submission state: `run` clears the last error, marks it busy while
 * the work runs, and keeps what went wrong — in words with field labels when `labels` is given,
 * the error itself otherwise.
 */
export function createSubmission(labels?: Record<string, string>) {
  const [busy, setBusy] = createSignal(false)
  const [error, setError] = createSignal<unknown>()
  return {
    busy,
    error,
    setError,
    async run(work: () => Promise<unknown>) {
      setBusy(true)
      setError(undefined)
      try {
        await work()
      } catch (err) {
        setError(labels ? describeError(err, labels) : err)
      } finally {
        setBusy(false)
      }
    },
  }
}
