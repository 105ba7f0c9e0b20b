import type { ErrorBody } from '../errors.ts'

/** The field errors a 400 carries: a dotted path to the list of problems at it. */
export type FieldErrors = Record<string, string[]>

export type ValidationErrorBody = ErrorBody & {
  error: { code: 'VALIDATION_FAILED'; message: string; data: { fields: FieldErrors } }
}
