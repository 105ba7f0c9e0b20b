import { AppError } from '../errors.ts'

/** The observability storage is not set up yet (its database is away): reads and feedback wait. */
export const ObservabilityUnavailable = AppError.define(
  'OBSERVABILITY_UNAVAILABLE',
  503,
  'the observability database is not available; turns and tasks still run',
)

export const TraceNotFound = AppError.define('TRACE_NOT_FOUND', 404, 'trace not found')
