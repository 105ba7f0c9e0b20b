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
import { isLoopbackAddress } from './host-allowlist.ts'

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

/**
 * Static files and the single-page fallback never answer for /api: those get the JSON 404. Nor
 * is `_headers` served: it is the Workers assets' header file, not part of the UI.
 */
function uiOnly(handler: MiddlewareHandler): MiddlewareHandler {
  return (c, next) =>
    c.req.path === '/api' || c.req.path.startsWith('/api/') || c.req.path === '/_headers'
      ? next()
      : handler(c, next)
}

/**
 * What a bind address means for safety, checked before anything listens: off loopback, a server
 * without an API key would be open to the network, so it does not start; and with no public
 * names in POPAGENT_ALLOWED_HOSTS only loopback Host names are answered, which the operator
 * should hear about before clients get 421s.
 */
export function checkBind(config: EdgeConfig, hostname: string): { warning?: string } {
  if (isLoopbackAddress(hostname)) return {}
  if (config.apiKey === undefined) {
    throw new Error(
      `invalid edge configuration: POPAGENT_BIND=${hostname} is not a loopback address and no API key is configured, so anyone who can reach it could use /api; set POPAGENT_API_KEY or bind 127.0.0.1`,
    )
  }
  if (config.publicHostsConfigured) return {}
  return {
    warning: `POPAGENT_BIND=${hostname} is not a loopback address, but POPAGENT_ALLOWED_HOSTS is unset: only requests addressed to localhost, 127.0.0.1 or [::1] are answered (others get 421). Set POPAGENT_ALLOWED_HOSTS to the names clients use, e.g. agent.example.com`,
  }
}

export type NodeEdge = { url: string; close: () => Promise<void> }

export async function startNodeEdge(
  options: NodeEdgeOptions & { port: number; hostname?: string },
): Promise<NodeEdge> {
  const hostname = options.hostname ?? '127.0.0.1'
  const { warning } = checkBind(options.config, hostname)
  if (warning) console.warn(`popagent: ${warning}`)
  const edgeApp = createNodeEdgeApp(options)
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
