import type { Env, MiddlewareHandler, ValidationTargets } from 'hono'
import { validator } from 'hono/validator'
import type { z } from 'zod'
import type { FieldErrors } from '../runtime/contracts/errors.ts'
import { errorBody } from '../runtime/errors.ts'

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i

/** Turns zod issues into `{ "a.b": ["problem", …] }`; unknown keys are named one by one. */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const fields: FieldErrors = {}
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined]
    for (const key of keys) {
      const path = [...issue.path, ...(key === undefined ? [] : [key])].join('.') || '(root)'
      const message = key === undefined ? issue.message : 'unknown field'
      ;(fields[path] ??= []).push(message)
    }
  }
  return fields
}

/**
 * zod validation for one input channel. A failure answers 400 with the field errors in the one
 * error shape; a `json` target also requires a JSON content type (415 otherwise), so a form or
 * text body is never silently read as `{}`.
 *
 * @example
 * .post('/', validate('json', CreateSessionInput), (c) => c.json(c.req.valid('json')))
 */
export function validate<Target extends keyof ValidationTargets, Schema extends z.ZodType>(
  target: Target,
  schema: Schema,
): MiddlewareHandler<
  Env,
  string,
  { in: { [K in Target]: z.input<Schema> }; out: { [K in Target]: z.output<Schema> } }
> {
  const check = validator(target, (value, c) => {
    const result = schema.safeParse(value)
    if (result.success) return result.data
    return c.json(
      errorBody('VALIDATION_FAILED', `invalid ${target}`, { fields: fieldErrors(result.error) }),
      400,
    )
  })
  if (target !== 'json') return check as never
  const checkJson = check as unknown as MiddlewareHandler
  const requireJson: MiddlewareHandler = async (c, next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim()
    if (!JSON_TYPE.test(type)) {
      return c.json(errorBody('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json'), 415)
    }
    return checkJson(c, next)
  }
  return requireJson as never
}
