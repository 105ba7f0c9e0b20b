import { serve, type ServerType } from '@hono/node-server'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono, type MiddlewareHandler } from 'hono'
import { fileURLToPath } from 'node:url'
import { relative } from 'node:path'
import type { Db } from '../db/index.ts'
import { app } from './app.ts'
import type { EdgeConfig } from './config.ts'
import type { AppEnv } from './env.ts'
import { handleError, handleNotFound } from './error-handler.ts'

/** The built UI. Public, like `/`: only /api is authenticated. */
export const UI_ROOT = fileURLToPath(new URL('../ui/dist', import.meta.url))

export type NodeEdgeOptions = {
  config: EdgeConfig
  db: Db
  observabilityDb: Db
  uiRoot?: string
}

/**
 * Wraps the shared app for Node: one set of database handles per process, injected per request,
 * plus the static UI. The embedded start passes the PGlite-backed handles it owns.
 */
export function createNodeEdgeApp(options: NodeEdgeOptions) {
  // serveStatic resolves roots against the working directory.
  const root = relative(process.cwd(), options.uiRoot ?? UI_ROOT) || '.'
  const edge = new Hono<AppEnv>()
    .use(async (c, next) => {
      c.set('config', options.config)
      c.set('db', options.db)
      c.set('observabilityDb', options.observabilityDb)
      await next()
    })
    .route('/', app)
    .use('*', uiOnly(serveStatic({ root })))
    .get('*', uiOnly(serveStatic({ root, path: 'index.html' })))
  edge.onError(handleError)
  edge.notFound(handleNotFound)
  return edge
}

/** Static files and the single-page fallback never answer for /api: those get the JSON 404. */
function uiOnly(handler: MiddlewareHandler): MiddlewareHandler {
  return (c, next) =>
    c.req.path === '/api' || c.req.path.startsWith('/api/') ? next() : handler(c, next)
}

export type NodeEdge = { url: string; close: () => Promise<void> }

export async function startNodeEdge(
  options: NodeEdgeOptions & { port: number; hostname?: string },
): Promise<NodeEdge> {
  const edgeApp = createNodeEdgeApp(options)
  const hostname = options.hostname ?? '127.0.0.1'
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: edgeApp.fetch, port: options.port, hostname }, () => resolve(s))
    s.once('error', reject)
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return {
    url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Idle keep-alive sockets would otherwise hold the close open.
        if ('closeIdleConnections' in server) server.closeIdleConnections()
      }),
  }
}
