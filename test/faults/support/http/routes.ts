/**
 * The routes the HTTP fault tests hit, read from the routers themselves so a new route is covered
 * the day it is added: the edge's `app.routes` (and the Node wrapper's), the compute host's
 * `createHostApp(…).routes`. Each route comes with the zod schemas its `validate()` middlewares
 * carry (handlers/validate.ts), one per input target.
 */
import type { z } from 'zod'
import type { Hono } from 'hono'
import { app } from '../../../../handlers/app.ts'
import { validationOf, type Validation } from '../../../../handlers/validate.ts'
import { createHostApp } from '../../../../compute-host/server.ts'
import type { HostResources } from '../../../../compute-host/resources.ts'
import {
  CronPreviewBody,
  DeleteThreadsBody,
  HostPaths,
  RepoBriefBody,
  ResolveWorkspaceBody,
} from '../../../../runtime/contracts/host-api.ts'
import { ChatRequest } from '../../../../runtime/contracts/chat.ts'
import { TurnRef } from '../../../../runtime/contracts/turn-changes.ts'

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
 * The compute host's internal API. Its handlers parse bodies with `safeParse` inline instead of
 * `validate()`, so the router knows its paths but not its schemas: those come from this map,
 * and `hostRoutes` throws when a host route has a body but no entry, so a new one is not missed.
 */
const HOST_BODIES: Record<string, z.ZodType> = {
  [`POST ${HostPaths.chat}`]: ChatRequest,
  [`POST ${HostPaths.resolveWorkspace}`]: ResolveWorkspaceBody,
  [`POST ${HostPaths.repoBrief}`]: RepoBriefBody,
  [`POST ${HostPaths.threads}`]: DeleteThreadsBody,
  [`POST ${HostPaths.cronPreview}`]: CronPreviewBody,
  [`POST ${HostPaths.turnChanges}`]: TurnRef,
  [`POST ${HostPaths.undoTurn}`]: TurnRef,
}

export function hostRoutes(resources: HostResources, token: string): Route[] {
  const routes = routesOf(createHostApp(resources, token))
  for (const route of routes) {
    const key = `${route.method} ${route.path}`
    if (route.method === 'GET') continue
    const body = HOST_BODIES[key]
    if (!body) throw new Error(`host route ${key} has no body schema in HOST_BODIES`)
    route.inputs.json = body
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
