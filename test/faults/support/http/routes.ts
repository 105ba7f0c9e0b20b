/**
 * The routes the HTTP fault tests hit, read from the routers themselves so a new route is covered
 * the day it is added: the edge's `app.routes` (and the Node wrapper's), the compute host's
 * `createReadyHostApp(…).routes`. Each route comes with the zod schemas its `validate()` middlewares
 * carry (handlers/validate.ts), one per input target.
 */
import type { z } from 'zod'
import type { Hono } from 'hono'
import { app } from '../../../../handlers/app.ts'
import { validationOf, type Validation } from '../../../../handlers/validate.ts'
import { createReadyHostApp } from '../../../../compute-host/host-handlers.ts'
import type { HostResources } from '../../../../compute-host/resources.ts'
import {
  hostRoutes as HOST_ROUTE_TABLE,
  type HostRoute,
} from '../../../../runtime/contracts/host-api.ts'

export type RouteInputs = Partial<Record<Validation['target'], z.ZodType>>
export type Route = { method: string; path: string; inputs: RouteInputs }

// Hono wraps a sub-app's handlers when the two apps' error handlers differ and keeps the
// original under this key (hono/dist/utils/constants.js); the schema sits on the original.
const COMPOSED_HANDLER = '__COMPOSED_HANDLER'
function unwrap(handler: unknown): unknown {
  let h = handler as Record<string, unknown> | undefined
  while (h && typeof h === 'function' && h[COMPOSED_HANDLER]) h = h[COMPOSED_HANDLER] as never
  return h
}

/**
 * One entry per method and path. Every middleware of `.post(path, mw1, mw2, handler)` is its own
 * entry in `routes` with the same method and path, so they are merged here. `ALL` entries on a
 * wildcard path are the `.use()` middlewares (auth, body limit), not routes; an `.all(path, …)`
 * route answers any method and is listed as GET.
 */
export function routesOf(router: Pick<Hono, 'routes'>, prefix = ''): Route[] {
  const byKey = new Map<string, Route>()
  for (const r of router.routes) {
    if (!r.path.startsWith(prefix)) continue
    if (r.method === 'ALL' && r.path.endsWith('*')) continue
    const method = r.method === 'ALL' ? 'GET' : r.method
    const key = `${method} ${r.path}`
    const route = byKey.get(key) ?? { method, path: r.path, inputs: {} }
    byKey.set(key, route)
    const validation = validationOf(unwrap(r.handler))
    if (validation) route.inputs[validation.target] = validation.schema
  }
  return [...byKey.values()]
}

/** Every /api route of the edge app shared by the Node and Workers entries. */
export const edgeRoutes = (): Route[] => routesOf(app, '/api/')

/**
 * The compute host's internal API. The router knows its paths; the body each takes comes from the
 * route table every host route is served from (runtime/contracts/host-api.ts), so a new route
 * brings its schema along (a route without one takes no body), and `hostRoutes` throws when a
 * host route is not in that table.
 */
const HOST_BODIES: Record<string, z.ZodType> = Object.fromEntries(
  Object.values(HOST_ROUTE_TABLE as Record<string, HostRoute>).flatMap((route) =>
    route.input ? [[`${route.method} ${route.path}`, route.input]] : [],
  ),
)

export function hostRoutes(resources: HostResources, token: string): Route[] {
  const routes = routesOf(createReadyHostApp(resources, token))
  const known = new Set(
    Object.values(HOST_ROUTE_TABLE as Record<string, HostRoute>).map(
      (r) => `${r.method} ${r.path}`,
    ),
  )
  for (const route of routes) {
    const key = `${route.method} ${route.path}`
    if (!known.has(key)) throw new Error(`host route ${key} is not in the host route table`)
    const body = HOST_BODIES[key]
    if (body) route.inputs.json = body
  }
  return routes
}

/** Fills `:name` parameters, by default with well-formed ids that name nothing. */
export function fillPath(path: string, values: Record<string, string> = {}): string {
  return path.replace(/:(\w+)/g, (_, name: string) => values[name] ?? NAMELESS_ID[name] ?? 'x')
}

// Well-formed ids of the right kind that match no row: the route must answer 404 or 400, never 5xx.
const NAMELESS_ID: Record<string, string> = {
  id: 'ses_00000000000000000000000000',
  skillId: 'skl_00000000000000000000000000',
  turnId: 'trn_00000000000000000000000000',
}
