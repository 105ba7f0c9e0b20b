import type { ValidationTargets } from 'hono'
import type { z } from 'zod'
import { validationOf } from '../validate.ts'

/** The part of a Hono app this module reads: its flat route table. */
export type RouteTable = { routes: readonly { method: string; path: string; handler: unknown }[] }

export type Target = keyof ValidationTargets

/** One method on one path, with the schema each of its `validate()` middlewares checks. */
export type Operation = {
  method: string
  /** Hono's form, `/api/sessions/:id`. */
  path: string
  /** The path's parameter names, in order. */
  params: string[]
  inputs: Partial<Record<Target, z.ZodType>>
}

// Hono wraps a sub-app's handlers when the two apps' error handlers differ and keeps the
// original under this key (hono/dist/utils/constants.js); the schema sits on the original.
const COMPOSED_HANDLER = '__COMPOSED_HANDLER'
function unwrap(handler: unknown): unknown {
  let h = handler
  while (typeof h === 'function' && COMPOSED_HANDLER in h)
    h = (h as unknown as Record<string, unknown>)[COMPOSED_HANDLER]
  return h
}

/** `:name`, `:name?` and `:name{regex}` segments of a Hono path. */
const PARAM = /:(\w+)(\{[^}]*\})?\??/g

export const paramsOf = (path: string) => [...path.matchAll(PARAM)].map((m) => m[1]!)

/** `/api/sessions/:id` → `/api/sessions/{id}`, the OpenAPI path template. */
export const templateOf = (path: string) => path.replace(PARAM, '{$1}')

/**
 * Every operation under `prefix`, read from the router itself (as test/api-contract.test.ts and
 * the fault suite read it), so a route cannot be left out of the document. Each middleware of
 * `.post(path, mw1, mw2, handler)` is its own entry in `routes`, so they are merged here; `ALL`
 * entries on a wildcard path are the `.use()` middlewares (auth, body limit), not routes.
 */
export function operationsOf(router: RouteTable, prefix: string): Operation[] {
  const byKey = new Map<string, Operation>()
  for (const r of router.routes) {
    if (!r.path.startsWith(prefix)) continue
    if (r.method === 'ALL' && r.path.endsWith('*')) continue
    const path = r.path.length > 1 ? r.path.replace(/\/$/, '') : r.path
    const key = `${r.method} ${path}`
    const operation = byKey.get(key) ?? {
      method: r.method,
      path,
      params: paramsOf(path),
      inputs: {},
    }
    byKey.set(key, operation)
    const validation = validationOf(unwrap(r.handler))
    if (validation) operation.inputs[validation.target] = validation.schema
  }
  return [...byKey.values()]
}
