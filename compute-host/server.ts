import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import type { HostHealth } from '../runtime/contracts/host-api.ts'
import { HostPaths } from '../runtime/contracts/host-api.ts'
import { secretsEqual } from '../runtime/constant-time.ts'
import { errorBody } from '../runtime/errors.ts'
import type { HostResources } from './resources.ts'

/**
 * The host's internal API. It listens on loopback only and every request needs the shared host
 * token as a bearer; the edge is its only intended caller.
 */
export function createHostApp($: HostResources, token: string) {
  const requireToken = createMiddleware(async (c, next) => {
    const header = c.req.header('authorization') ?? ''
    const given = header.startsWith('Bearer ') ? header.slice(7) : ''
    if (!(await secretsEqual(given, token)))
      return c.json(errorBody('UNAUTHORIZED', 'bad host token'), 401)
    await next()
  })

  const app = new Hono()
    .use(requireToken)
    .get(HostPaths.health, async (c) => {
      const body: HostHealth = {
        status: 'ok',
        startedAt: $.startedAt.toISOString(),
        databaseMode: $.databases.mode,
        gateway: await $.gateway.status(),
        localModels: $.localModels.queue.stats(),
      }
      return c.json(body)
    })
    .get(HostPaths.models, async (c) => c.json(await $.catalog.read()))
  app.onError((error, c) => {
    $.log.error('host request failed', { path: c.req.path, error })
    return c.json(errorBody('INTERNAL', 'internal error'), 500)
  })
  app.notFound((c) => c.json(errorBody('ROUTE_NOT_FOUND', 'no such host route'), 404))
  return app
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
