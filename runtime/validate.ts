/**
 * Input validation for every Hono app of the project: the edge's routes and the compute host's
 * internal API check their inputs with this one `validate()`, so a bad input gets the same 400
 * and the same field errors on either side (hono and zod are edge-safe, so it lives here).
 */
import type { Env, MiddlewareHandler, ValidationTargets } from 'hono'
import { validator } from 'hono/validator'
import type { z } from 'zod'
import type { FieldErrors } from './contracts/errors.ts'
import { errorBody } from './errors.ts'

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i

/**
 * Where the middleware returned by `validate()` keeps its target and schema, so tools that walk
 * `app.routes` (the fault suite's bad-input generator) find every route's inputs from the router
 * itself instead of a hand-kept list. Non-enumerable: it changes nothing at run time.
 */
export const VALIDATION = Symbol.for('popagent.validation')
export type Validation = { target: keyof ValidationTargets; schema: z.ZodType }

/** The target and schema a route handler validates, when it is a `validate()` middleware. */
export function validationOf(handler: unknown): Validation | undefined {
  if (typeof handler !== 'function') return undefined
  return (handler as { [VALIDATION]?: Validation })[VALIDATION]
}

function withValidation<H extends MiddlewareHandler>(handler: H, validation: Validation): H {
  Object.defineProperty(handler, VALIDATION, { value: validation, enumerable: false })
  return handler
}

/**
 * Turns zod issues into `{ "a.b": ["problem", …] }`; unknown keys are named one by one. Collected
 * in a Map: the paths are the client's keys, and `constructor` or `__proto__` must not meet the
 * prototype of a plain object.
 */
export function fieldErrors(error: z.ZodError): FieldErrors {
  const fields = new Map<string, string[]>()
  for (const issue of error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined]
    for (const key of keys) {
      const path = [...issue.path, ...(key === undefined ? [] : [key])].join('.') || '(root)'
      const message = key === undefined ? issue.message : 'unknown field'
      fields.set(path, [...(fields.get(path) ?? []), message])
    }
  }
  return Object.fromEntries(fields)
}

/**
 * JSON nested deeper than this is refused before any schema sees it: JSON.parse is iterative, but
 * the recursive code after it (zod refinements that stringify, drivers, the model SDK) overflows
 * the stack somewhere below 10,000 levels, and no real request nests anywhere near this.
 */
export const MAX_JSON_DEPTH = 256

function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]]
  while (pending.length) {
    const [v, depth] = pending.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth >= limit) return true
    for (const child of Object.values(v)) pending.push([child, depth + 1])
  }
  return false
}

/**
 * zod validation for one input channel. A failure answers 400 with the field errors in the one
 * error shape; a `json` target also requires a JSON content type (415 otherwise), so a form or
 * text body is never silently read as `{}`, and a body no deeper than MAX_JSON_DEPTH.
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
    if (target === 'json' && nestedDeeperThan(value, MAX_JSON_DEPTH)) {
      const fields = { '(root)': [`nested deeper than ${MAX_JSON_DEPTH} levels`] }
      return c.json(errorBody('VALIDATION_FAILED', `invalid ${target}`, { fields }), 400)
    }
    const result = schema.safeParse(value)
    if (result.success) return result.data
    return c.json(
      errorBody('VALIDATION_FAILED', `invalid ${target}`, { fields: fieldErrors(result.error) }),
      400,
    )
  })
  if (target !== 'json')
    return withValidation(check as unknown as MiddlewareHandler, { target, schema }) as never
  const checkJson = check as unknown as MiddlewareHandler
  const requireJson: MiddlewareHandler = async (c, next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim()
    if (!JSON_TYPE.test(type)) {
      return c.json(errorBody('UNSUPPORTED_MEDIA_TYPE', 'send the body as application/json'), 415)
    }
    return checkJson(c, next)
  }
  return withValidation(requireJson, { target, schema }) as never
}
