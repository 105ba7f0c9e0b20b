import { z } from 'zod'
import type { ErrorBody } from '../errors.ts'

/** The field errors a 400 carries: a dotted path to the list of problems at it. */
export type FieldErrors = Record<string, string[]>

export type ValidationErrorBody = ErrorBody & {
  error: { code: 'VALIDATION_FAILED'; message: string; data: { fields: FieldErrors } }
}

/**
 * The one error shape (runtime/errors.ts) as a schema, for the OpenAPI document
 * (handlers/openapi/). The checks below fail type-checking when the two drift apart.
 */
export const ErrorResponse = z.object({
  error: z.object({ code: z.string(), message: z.string(), data: z.unknown().optional() }),
})

/** A 400 from `validate()`: the field errors under `data.fields`. */
export const ValidationErrorResponse = z.object({
  error: z.object({
    code: z.literal('VALIDATION_FAILED'),
    message: z.string(),
    data: z.object({ fields: z.record(z.string(), z.array(z.string())) }),
  }),
})

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
true satisfies Same<z.infer<typeof ErrorResponse>, ErrorBody>
true satisfies Same<z.infer<typeof ValidationErrorResponse>, ValidationErrorBody>
