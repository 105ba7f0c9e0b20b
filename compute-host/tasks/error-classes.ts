/**
 * Classification of an attempt's failure from the error a library actually threw. The signal
 * that decides (a SQLSTATE, a Node errno, an HTTP status) usually sits under one or more
 * wrappers: Mastra's `MastraError` (`cause`), the AI SDK's `RetryError` (`lastError`, `errors`)
 * and `APICallError` (`statusCode`, `cause`), undici's `fetch failed` TypeError (`cause`),
 * drizzle's query wrapper (`cause`), Node's `AggregateError` of a multi-address connect
 * (`errors`). The whole graph is walked, and the most specific signal found wins.
 *
 * The shapes below were captured from the libraries themselves (test/task-error-classes.test.ts
 * makes each of them fail for real), not written from their documentation.
 */

/**
 * What went wrong with an attempt, in the classes the retry policy reasons about. Transient
 * classes are the ones where the same attempt can succeed later without anyone changing
 * anything; everything else needs a person (or never succeeds). `timeout` is the attempt running
 * out of its own time budget (`taskTimeoutMs`): the work itself is too long, and replaying it
 * repeats whatever it did, so it is not transient. A dependency that answers too slowly is a
 * `provider` or `infrastructure` failure instead.
 */
export const ERROR_CLASSES = [
  'timeout',
  'provider',
  'rate-limit',
  'database',
  'infrastructure',
  'interrupted',
  'hook-denied',
  // The task tree's budget (B1) ended: more attempts would only spend more of what is gone.
  'budget-exhausted',
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
  'provider',
  'rate-limit',
  'database',
  'infrastructure',
  'interrupted',
])

export const isTransient = (errorClass: ErrorClass) => TRANSIENT.has(errorClass)

/** An executor's own statement of what failed; anything else is classified from its shape. */
export class TaskFailure extends Error {
  readonly errorClass: ErrorClass
  constructor(errorClass: ErrorClass, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'TaskFailure'
    this.errorClass = errorClass
  }
}

/** Our own AppError codes (runtime/errors.ts and the tools') that reach an executor. */
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

/** Node system errors (also what node-postgres and postgres.js raise for a refused connect). */
const NETWORK_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  // A name that does not resolve now may resolve once the resolver or the record is back; a
  // misspelt gateway name is a configuration error, but it waits visibly rather than failing.
  'ENOTFOUND',
])

/** undici's codes (the AI SDK's fetch): sockets closed or timed out under a request. */
const UNDICI_CODES: Record<string, ErrorClass> = {
  UND_ERR_SOCKET: 'infrastructure',
  UND_ERR_CLOSED: 'infrastructure',
  UND_ERR_CONNECT_TIMEOUT: 'infrastructure',
  UND_ERR_HEADERS_TIMEOUT: 'provider',
  UND_ERR_BODY_TIMEOUT: 'provider',
}

/** postgres.js's own codes for a connection that went away. */
const POSTGRES_JS_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
])

/**
 * node-postgres raises these as plain `Error`s with no code at all (the captured shapes: a client
 * whose server went away, a pool that could not connect in time).
 */
const NODE_POSTGRES_MESSAGES = [
  /^Connection terminated( unexpectedly|)$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
  /^timeout exceeded when trying to connect$/,
  /^Connection terminated due to connection timeout$/,
]

/**
 * Texts that name a dependency outage, for wrappers that keep only their cause's message: Mastra's
 * processor workflows throw a fresh `MastraError` ("Processor workflow … failed with status:
 * failed — <cause's message>; step …: <cause's message>") with no `cause`, which is how an
 * observational-memory step that met a restarting PostgreSQL used to end a task as `unknown`.
 * They are read only when no structured signal exists anywhere in the error.
 */
const OUTAGE_TEXTS: Array<[RegExp, ErrorClass]> = [
  [/terminating connection due to administrator command/, 'database'],
  [/the database system is (shutting down|starting up|in recovery mode)/, 'database'],
  [/sorry, too many clients already/, 'database'],
  [/Connection terminated( unexpectedly|)\b/, 'database'],
  [/Client has encountered a connection error and is not queryable/, 'database'],
  [/timeout exceeded when trying to connect/, 'database'],
  [
    /\b(ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|ENOTFOUND)\b/,
    'infrastructure',
  ],
  [/\bother side closed\b/, 'infrastructure'],
]

function fromText(e: Shape): Classification | undefined {
  if (typeof e.message !== 'string') return undefined
  for (const [pattern, errorClass] of OUTAGE_TEXTS) {
    const match = e.message.match(pattern)
    if (match) return { errorClass, signal: `message "${match[0]}"` }
  }
  return undefined
}

/** SQLSTATE classes the database recovers from: connection, resources, operator intervention. */
const TRANSIENT_SQLSTATE = /^(08|53|57|58)/
// Serialization failure and deadlock: the same statement succeeds when retried.
const RETRY_SQLSTATES = new Set(['40001', '40P01'])

// Every SQLSTATE has a digit; errno names ('EPIPE') and library codes have none.
const isSqlState = (code: unknown): code is string =>
  typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && /\d/.test(code)

export type Classification = {
  errorClass: ErrorClass
  /** What decided it, for the log: `sqlstate 57P01`, `errno ECONNRESET`, `http 503` … */
  signal: string
}

type Shape = {
  name?: unknown
  message?: unknown
  code?: unknown
  statusCode?: unknown
  status?: unknown
  isRetryable?: unknown
  cause?: unknown
  errors?: unknown
  lastError?: unknown
  error?: unknown
  id?: unknown
  domain?: unknown
  category?: unknown
}

/** The HTTP status of a gateway answer (AI SDK `APICallError`). */
function httpClass(status: number): ErrorClass {
  if (status === 429) return 'rate-limit'
  if (status === 408 || status >= 500) return 'provider'
  if (status === 401 || status === 403 || status === 404) return 'configuration'
  return 'validation'
}

/** The class one error object states about itself, ignoring what it wraps. */
function own(e: Shape): Classification | undefined {
  if (e instanceof TaskFailure) return { errorClass: e.errorClass, signal: 'task failure' }
  const { code, name } = e
  if (typeof code === 'string') {
    if (APP_CODES[code]) return { errorClass: APP_CODES[code], signal: `app ${code}` }
    if (isSqlState(code)) {
      if (TRANSIENT_SQLSTATE.test(code) || RETRY_SQLSTATES.has(code)) {
        return { errorClass: 'database', signal: `sqlstate ${code}` }
      }
      return { errorClass: 'validation', signal: `sqlstate ${code}` }
    }
    if (NETWORK_ERRNOS.has(code)) return { errorClass: 'infrastructure', signal: `errno ${code}` }
    if (UNDICI_CODES[code]) return { errorClass: UNDICI_CODES[code], signal: `undici ${code}` }
    if (POSTGRES_JS_CODES.has(code))
      return { errorClass: 'database', signal: `postgres.js ${code}` }
  }
  if (typeof e.statusCode === 'number') {
    return { errorClass: httpClass(e.statusCode), signal: `http ${e.statusCode}` }
  }
  if (
    typeof e.message === 'string' &&
    NODE_POSTGRES_MESSAGES.some((m) => m.test(e.message as string))
  ) {
    return { errorClass: 'database', signal: 'node-postgres connection lost' }
  }
  // `AbortSignal.timeout()` under a request: the other side did not answer in time.
  if (name === 'TimeoutError') return { errorClass: 'infrastructure', signal: 'TimeoutError' }
  if (name === 'AbortError') return { errorClass: 'cancelled', signal: 'AbortError' }
  return undefined
}

/**
 * A weaker statement, used only when nothing under the error says more: the AI SDK marks a
 * failed call retryable when the connection failed before any status arrived, and a Mastra
 * error says which side it blames.
 */
function fallback(e: Shape): Classification | undefined {
  if (e.name === 'AI_APICallError' && e.isRetryable === true) {
    return { errorClass: 'provider', signal: 'retryable api call' }
  }
  if (e.name === 'AI_RetryError') return { errorClass: 'provider', signal: 'retries exhausted' }
  // A processor refused the run (its reason named no outage): a guard's verdict, not a fault.
  if (e.name === 'ProcessorTripwire') return { errorClass: 'hook-denied', signal: 'tripwire' }
  if (typeof e.id === 'string' && typeof e.domain === 'string' && e.category === 'USER') {
    return { errorClass: 'validation', signal: `mastra ${e.id}` }
  }
  return undefined
}

/** The errors this one wraps, in the order they are most likely to carry the real signal. */
function inner(e: Shape): unknown[] {
  const next: unknown[] = []
  if (e.lastError) next.push(e.lastError)
  if (e.cause) next.push(e.cause)
  if (Array.isArray(e.errors)) next.push(...e.errors)
  // Logged wrappers such as Mastra's `{ error, runId }`.
  if (e.error && typeof e.error === 'object') next.push(e.error)
  return next
}

/**
 * The class of a failure and the signal that decided it. Breadth first over the wrapped errors, at
 * most 32 nodes, cycles ignored: the first structured signal (code, SQLSTATE, errno, status)
 * wins; then an outage named in a message; then what a wrapper says of itself.
 */
export function classifyError(error: unknown): Classification {
  const seen = new Set<unknown>()
  const queue: unknown[] = [error]
  let text: Classification | undefined
  let weak: Classification | undefined
  while (queue.length > 0 && seen.size < 32) {
    const e = queue.shift()
    if (!e || typeof e !== 'object' || seen.has(e)) continue
    seen.add(e)
    const found = own(e as Shape)
    if (found) return found
    text ??= fromText(e as Shape)
    weak ??= fallback(e as Shape)
    queue.push(...inner(e as Shape))
  }
  return text ?? weak ?? { errorClass: 'unknown', signal: 'none' }
}

export function classify(error: unknown): ErrorClass {
  return classifyError(error).errorClass
}

/**
 * An unclassified error's shape for the log, so it can be classified later: each wrapped error's
 * constructor, name, code, status and the keys it carries, never its message (which may hold
 * request data) beyond its first 120 characters.
 */
export function errorShape(error: unknown): Array<Record<string, unknown>> {
  const seen = new Set<unknown>()
  const shape: Array<Record<string, unknown>> = []
  const queue: unknown[] = [error]
  while (queue.length > 0 && shape.length < 8) {
    const e = queue.shift()
    if (!e || typeof e !== 'object' || seen.has(e)) continue
    seen.add(e)
    const s = e as Shape
    shape.push({
      type: (e as object).constructor?.name,
      name: s.name,
      code: s.code,
      statusCode: s.statusCode,
      keys: Object.keys(e).slice(0, 12),
      message: typeof s.message === 'string' ? s.message.slice(0, 120) : undefined,
    })
    queue.push(...inner(s))
  }
  if (shape.length === 0) shape.push({ type: typeof error, value: String(error).slice(0, 120) })
  return shape
}
