import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { hostRoutes, type HostHealth } from '../runtime/contracts/host-api.ts'
import { secretsEqual } from '../runtime/constant-time.ts'
import { AppError, errorBody } from '../runtime/errors.ts'
import { loggableError } from '../runtime/pg-errors.ts'
import { REQUEST_ID_HEADER, requestIdFrom } from '../runtime/request-id.ts'
import {
  type HostContext,
  type HostEnv,
  type HostHandlers,
  serveHostRoutes,
} from './host-routes.ts'
import { buildHealth } from './build/health.ts'
import { RepoBriefBusy } from './repo-brief/brief.ts'
import type { HostCore, HostResources } from './resources.ts'
import { VaultUnavailable } from '../runtime/secrets/errors.ts'
import { ObservabilityUnavailable } from '../runtime/observability/errors.ts'

/** What the core answers by itself, engines or not: health, and the cached model catalog. */
const CORE_ROUTES = ['health', 'models'] as const
type CoreRoute = (typeof CORE_ROUTES)[number]

/** Every other route's handler: the part of the host that needs its engines. */
export type EngineHandlers = Omit<HostHandlers, CoreRoute>

/** The engines once started: the complete resources and the handlers over them. */
export type ReadyEngines = { resources: HostResources; handlers: EngineHandlers }

/**
 * The host's internal API: the routes of `hostRoutes` (runtime/contracts/host-api.ts), each with
 * its handler (compute-host/host-handlers.ts). It listens on loopback only and every request needs
 * the shared host token as a bearer; the edge is its only intended caller.
 *
 * It answers before its engines are ready, so a restart is healthy without waiting for Mastra to
 * load (compute-host/main.ts): health answers at once and says whether the engines are
 * `starting`, `ready` or `failed`, the model catalog (the UI's first read, and the edge's model
 * checks) is served from the core, and every other route waits for the engines, then runs. This
 * module imports nothing of Mastra or the AI SDK, which is what lets it answer first.
 */
export function createHostApp(core: HostCore, engines: Promise<ReadyEngines>, token: string) {
  let ready: ReadyEngines | undefined
  let failed = false
  engines.then(
    (e) => void (ready = e),
    () => void (failed = true),
  )
  const health: HostHandlers['health'] = async () => {
    const body: HostHealth = {
      status: 'ok',
      startedAt: core.startedAt.toISOString(),
      databaseMode: core.databases.mode,
      gateway: await core.gateway.status(),
      localModels: core.localModels.queue.stats(),
      engines: ready ? 'ready' : failed ? 'failed' : 'starting',
      // The sandbox self-test runs with the engines (its sandbox class is Mastra's).
      sandbox: ready ? ready.resources.sandbox : null,
      mcpServers: ready?.resources.mcpServers?.liveStates() ?? null,
      build: ready?.resources.build ? await buildHealth(ready.resources.build) : null,
    }
    return body
  }
  const waiting = Object.fromEntries(
    (Object.keys(hostRoutes) as (keyof HostHandlers)[])
      .filter((name): name is keyof EngineHandlers => !CORE_ROUTES.includes(name as CoreRoute))
      .map((name) => [
        name,
        async (input: unknown, c: HostContext) => {
          const { resources, handlers } = ready ?? (await engines)
          // The engines' logger (it also stores lines when tracing is on), for this request.
          c.set('log', resources.log.child({ requestId: c.var.requestId }))
          return (handlers[name] as (input: unknown, c: unknown) => unknown)(input, c)
        },
      ]),
  ) as unknown as EngineHandlers
  const handlers: HostHandlers = { health, models: () => core.catalog.read(), ...waiting }

  const requestContext = createMiddleware<HostEnv>(async (c, next) => {
    const requestId = requestIdFrom(c.req.header(REQUEST_ID_HEADER))
    c.set('requestId', requestId)
    c.set('log', core.log.child({ requestId }))
    await next()
  })
  const requireToken = createMiddleware(async (c, next) => {
    const header = c.req.header('authorization') ?? ''
    const given = header.startsWith('Bearer ') ? header.slice(7) : ''
    if (!secretsEqual(given, token)) return c.json(errorBody('UNAUTHORIZED', 'bad host token'), 401)
    await next()
  })

  const app = new Hono<HostEnv>().use(requestContext, requireToken)
  serveHostRoutes(app, handlers)
  app.onError((error, c) => {
    if (error instanceof AppError && error.status < 500) return c.json(error.toBody(), error.status)
    // Refused for load, not failed: the caller hears it as such.
    if (error instanceof RepoBriefBusy) return c.json(error.toBody(), 503)
    // Off by configuration (no POPAGENT_SECRET_KEY) or not ready yet (the observability store
    // before its tables exist), not failed: the caller hears which and why.
    if (error instanceof VaultUnavailable || error instanceof ObservabilityUnavailable) {
      return c.json(error.toBody(), 503)
    }
    // Hono's own refusals (a malformed JSON body) keep their 4xx, in the one error shape.
    if (error instanceof HTTPException && error.status < 500) {
      return c.json(errorBody('BAD_REQUEST', error.message), error.status as ContentfulStatusCode)
    }
    // The caller went away and its signal stopped the work: nothing failed, nobody listens.
    if (c.req.raw.signal.aborted)
      return c.json(errorBody('CLIENT_GONE', 'the caller went away'), 400)
    const log = c.var.log ?? core.log
    log.error('host request failed', { path: c.req.path, error: loggableError(error) })
    return c.json(errorBody('INTERNAL', 'internal error'), 500)
  })
  app.notFound((c) => c.json(errorBody('ROUTE_NOT_FOUND', 'no such host route'), 404))
  return app
}

/**
 * The internal API called in this process without a socket: the same app, token check, routes and
 * schemas as over loopback HTTP, minus the HTTP client and server on both sides (a tenth or so of
 * a chat turn's CPU, docs/benchmarks.md). `popagent start`, which runs the
 * edge and the host in one process, hands it to its edge; a separately deployed edge uses HTTP.
 */
export type HostFetch = (url: string, init: RequestInit) => Promise<Response>

export function inProcessFetch(app: ReturnType<typeof createHostApp>): HostFetch {
  return async (url, init) => app.fetch(new Request(url, init))
}

export async function listenHost(
  app: ReturnType<typeof createHostApp>,
  port: number,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(s))
    s.once('error', reject)
  })
  const address = server.address()
  const actual = typeof address === 'object' && address ? address.port : port
  return {
    url: `http://127.0.0.1:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        if ('closeIdleConnections' in server) server.closeIdleConnections()
      }),
  }
}
