import type { Context, ErrorHandler, NotFoundHandler } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { AppError, errorBody } from '../runtime/errors.ts'
import { loggableError, PG_NUMERIC_OUT_OF_RANGE, pgErrorCode } from '../runtime/pg-errors.ts'
import type { AppEnv } from './env.ts'
import { edgeLog } from './log.ts'

// Connection-level failures: the database is down or unreachable, which is a 503, not a bug.
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE'])
function databaseUnavailable(error: unknown): boolean {
  const code = pgErrorCode(error) ?? (error as { code?: unknown })?.code
  if (typeof code !== 'string') return false
  return (
    UNAVAILABLE_CODES.has(code) ||
    code.startsWith('CONNECTION_') ||
    code.startsWith('08') ||
    code === '57P01' ||
    code === '57P03' ||
    code === '53300'
  )
}

// Invalid byte sequence, untranslatable character, unsupported Unicode escape: bad input that
// slipped past validation, so a 400 rather than a 500.
const UNSTORABLE_TEXT = new Set(['22021', '22P05', '22P02'])

const STATUS_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
}

/**
 * The single place where errors become HTTP responses: typed AppErrors keep their code and status,
 * Hono's HTTP exceptions (malformed JSON, …) keep their 4xx, and anything else is logged with the
 * request id and answered as INTERNAL without a stack trace.
 */
export const handleError: ErrorHandler<AppEnv> = (error, c) => {
  if (error instanceof AppError) {
    if (error.status >= 500) logError(c, error)
    return c.json(error.toBody(), error.status)
  }
  if (error instanceof HTTPException && error.status < 500) {
    const status = error.status as ContentfulStatusCode
    return c.json(errorBody(STATUS_CODES[status] ?? 'BAD_REQUEST', error.message), status)
  }
  // The client went away and its signal stopped the work (a brief, a host call): nothing
  // failed and nobody reads the answer, so there is nothing to log.
  if (c.req.raw.signal?.aborted) {
    return c.json(errorBody('CLIENT_GONE', 'the client went away'), 400)
  }
  const sqlState = pgErrorCode(error)
  if (sqlState && UNSTORABLE_TEXT.has(sqlState)) {
    return c.json(errorBody('INVALID_TEXT', 'the request holds text PostgreSQL cannot store'), 400)
  }
  // A number past its column's range (int4 is 2147483647 at most) that slipped past the
  // contracts' bounds: the request's fault, not the server's.
  if (sqlState === PG_NUMERIC_OUT_OF_RANGE) {
    return c.json(
      errorBody('NUMBER_OUT_OF_RANGE', 'a number in the request is out of the stored range'),
      400,
    )
  }
  if (databaseUnavailable(error)) {
    logError(c, error)
    return c.json(
      errorBody('DATABASE_UNAVAILABLE', 'the application database is not answering', {
        requestId: c.var.requestId,
      }),
      503,
    )
  }
  logError(c, error)
  return c.json(errorBody('INTERNAL', 'internal error', { requestId: c.var.requestId }), 500)
}

export const handleNotFound: NotFoundHandler<AppEnv> = (c) =>
  c.json(errorBody('ROUTE_NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`), 404)

function logError(c: Context<AppEnv>, error: unknown) {
  // Messages and stacks go to the server log only; the wire never sees them. A failed
  // statement's bound parameters (request data) reach neither (loggableError).
  const { message, name, ...fields } = loggableError(error)
  edgeLog('error', c, String(message ?? 'unknown error'), { error: name, ...fields })
}
