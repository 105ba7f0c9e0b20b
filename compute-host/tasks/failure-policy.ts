import type { TaskRow } from '../../runtime/tasks/index.ts'
import { pgErrorCode } from '../../runtime/pg-errors.ts'

/**
 * What went wrong with an attempt, in the classes the retry policy reasons about. Transient
 * classes are the ones where the same attempt can succeed later without anyone changing
 * anything; everything else needs a person (or never succeeds).
 */
export const ERROR_CLASSES = [
  'timeout',
  'provider',
  'rate-limit',
  'browser',
  'database',
  'infrastructure',
  'interrupted',
  'hook-denied',
  'cancelled',
  'validation',
  'permission',
  'containment',
  'configuration',
  'stale',
  'unknown',
] as const
export type ErrorClass = (typeof ERROR_CLASSES)[number]

const TRANSIENT = new Set<ErrorClass>([
  'timeout',
  'provider',
  'rate-limit',
  'browser',
  'database',
  'infrastructure',
  'interrupted',
])

/** An executor's own statement of what failed; anything else is classified from its shape. */
export class TaskFailure extends Error {
  readonly errorClass: ErrorClass
  constructor(errorClass: ErrorClass, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'TaskFailure'
    this.errorClass = errorClass
  }
}

const APP_CODES: Record<string, ErrorClass> = {
  PATH_ESCAPES_REPOSITORY: 'containment',
  PATH_OUTSIDE_ROOT: 'containment',
  PATH_NOT_A_DIRECTORY: 'validation',
  VALIDATION_FAILED: 'validation',
  INVALID_TOOL_MEMBERSHIP: 'validation',
  UNKNOWN_MODEL: 'validation',
  WORKSPACE_NOT_FOUND: 'configuration',
  CONFIGURATION_ERROR: 'configuration',
  UNAUTHORIZED: 'permission',
  FORBIDDEN: 'permission',
  HOOK_DENIED: 'hook-denied',
}
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN'])

export function classify(error: unknown): ErrorClass {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    if (e instanceof TaskFailure) return e.errorClass
    const shape = e as {
      name?: string
      code?: unknown
      statusCode?: unknown
      isRetryable?: unknown
      cause?: unknown
    }
    if (typeof shape.code === 'string' && APP_CODES[shape.code]) return APP_CODES[shape.code]!
    if (shape.name === 'AbortError') return 'cancelled'
    // The AI SDK's provider errors carry the HTTP status of the gateway's answer.
    if (typeof shape.statusCode === 'number') {
      if (shape.statusCode === 429) return 'rate-limit'
      if (shape.statusCode === 401 || shape.statusCode === 403) return 'configuration'
      if (shape.statusCode >= 500 || shape.isRetryable === true) return 'provider'
      return 'validation'
    }
    if (shape.name === 'AI_RetryError' || shape.name === 'AI_APICallError') return 'provider'
    const sqlState = pgErrorCode(e)
    // Connection loss, shutdown, insufficient resources: the database will be back.
    if (sqlState && /^(08|53|57)/.test(sqlState)) return 'database'
    if (typeof shape.code === 'string' && NETWORK_CODES.has(shape.code)) return 'infrastructure'
    e = shape.cause
  }
  return 'unknown'
}

export type Decision =
  { state: 'queued'; nextAttemptAt: Date } | { state: 'failed' | 'dead-letter' | 'cancelled' }

export type Backoff = { baseMs: number; capMs: number }
export const DEFAULT_BACKOFF: Backoff = { baseMs: 5_000, capMs: 5 * 60_000 }

/**
 * After a failed attempt. Only contained work (self-update and build-maintenance, which start
 * from a fresh clone every attempt) retries, and only transient classes; user work fails rather
 * than replay side effects nobody has inspected. A remediation retries every failure but
 * cancellation. Retries wait a capped exponential backoff; contained work that runs out of
 * attempts is dead-lettered for an operator.
 */
export function decide(
  task: Pick<TaskRow, 'source' | 'kind' | 'attemptCount' | 'maxAttempts'>,
  errorClass: ErrorClass,
  now: Date,
  backoff: Backoff = DEFAULT_BACKOFF,
): Decision {
  if (errorClass === 'cancelled') return { state: 'cancelled' }
  const retryable =
    task.kind === 'remediation' ||
    ((task.source === 'self-update' || task.source === 'build-maintenance') &&
      TRANSIENT.has(errorClass))
  if (!retryable) return { state: 'failed' }
  if (task.attemptCount >= task.maxAttempts) return { state: 'dead-letter' }
  const delay = Math.min(backoff.capMs, backoff.baseMs * 2 ** Math.max(0, task.attemptCount - 1))
  return { state: 'queued', nextAttemptAt: new Date(now.getTime() + delay) }
}
