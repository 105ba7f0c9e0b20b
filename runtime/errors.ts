/**
 * One error factory and one wire shape for the whole project.
 *
 * Domain code throws `AppError`s defined here with a stable `code`; only the edge turns them into
 * HTTP statuses (the `status` below is a hint the edge's error mapper reads). The wire shape is
 * always `{ error: { code, message, data? } }` and never carries a stack trace.
 *
 * @example
 * export const SessionNotFound = AppError.define('SESSION_NOT_FOUND', 404, 'session not found')
 * throw new SessionNotFound({ id })
 */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 500 | 502 | 503 | 504

export type ErrorBody = { error: { code: string; message: string; data?: unknown } }

export class AppError extends Error {
  readonly code: string
  readonly status: ErrorStatus
  readonly data: Record<string, unknown> | undefined

  constructor(
    code: string,
    status: ErrorStatus,
    message: string,
    data?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'AppError'
    this.code = code
    this.status = status
    this.data = data
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.data)
  }

  /** Defines a named error class with a fixed code, status hint and default message. */
  static define(code: string, status: ErrorStatus, defaultMessage: string) {
    return class extends AppError {
      static readonly code = code
      constructor(data?: Record<string, unknown>, options?: { cause?: unknown; message?: string }) {
        super(code, status, options?.message ?? defaultMessage, data, options)
      }
    }
  }
}

export function errorBody(code: string, message: string, data?: unknown): ErrorBody {
  return data === undefined ? { error: { code, message } } : { error: { code, message, data } }
}

export const NotFound = AppError.define('NOT_FOUND', 404, 'not found')
export const ValidationFailed = AppError.define('VALIDATION_FAILED', 400, 'invalid request')
export const ConfigurationError = AppError.define(
  'CONFIGURATION_ERROR',
  500,
  'server configuration error',
)
export const HostUnavailable = AppError.define(
  'COMPUTE_HOST_UNAVAILABLE',
  503,
  'the compute host did not answer',
)
