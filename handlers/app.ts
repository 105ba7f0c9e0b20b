import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import type { AppEnv } from './env.ts'
import { handleError, handleNotFound } from './error-handler.ts'
import { createHostClient, type HostClient } from './host-client.ts'
import type { RouteTable } from './openapi/operations.ts'
import { allowedHosts } from './middleware/allowed-hosts.ts'
import { apiKeyAuth } from './middleware/auth.ts'
import { jsonBodyLimit } from './middleware/body-limit.ts'
import { requestId } from './middleware/request-id.ts'
import { sameOriginWrites } from './middleware/same-origin.ts'
import { securityHeaders } from './middleware/security-headers.ts'
import { agents } from './routes/agents.ts'
import { approvals } from './routes/approvals.ts'
import { chat } from './routes/chat.ts'
import { channels } from './routes/channels.ts'
import { channelInbound } from './routes/channels-inbound.ts'
import { workspaces } from './routes/workspaces.ts'
import { docs } from './routes/docs.ts'
import { health } from './routes/health.ts'
import { memories } from './routes/memories.ts'
import { sessionExport } from './routes/session-export.ts'
import { models } from './routes/models.ts'
import { observability } from './routes/observability.ts'
import { openapi } from './routes/openapi.ts'
import { schedules } from './routes/schedules.ts'
import { secrets } from './routes/secrets.ts'
import { hooks, sessionHooks, taskHooks } from './routes/hooks.ts'
import { mcpServers } from './routes/mcp-servers.ts'
import { build } from './routes/build.ts'
import { sessions } from './routes/sessions.ts'
import { settings } from './routes/settings.ts'
import { autonomy } from './routes/autonomy.ts'
import { evolution } from './routes/evolution.ts'
import { browser } from './routes/browser.ts'
import { tasks } from './routes/tasks.ts'
import { turns } from './routes/turns.ts'

/**
 * The edge: one stateless Hono app, shared by the Node entry and the Workers entry. Those entries
 * set `config`, `db` and `observabilityDb`; everything below only reads `c.var`.
 */
// One client per parsed config (per process on Node, per isolate on Workers), not per request.
const hostClients = new WeakMap<AppEnv['Variables']['config'], HostClient>()
const hostClient = createMiddleware<AppEnv>(async (c, next) => {
  const config = c.var.config
  let client = hostClients.get(config)
  if (!client) {
    client = createHostClient({
      url: config.hostUrl,
      token: config.hostToken,
      ...(config.hostFetch && { fetch: config.hostFetch }),
    })
    hostClients.set(config, client)
  }
  c.set('host', client.withRequestId(c.var.requestId))
  await next()
})

// A cross-site write is refused before the key is looked at, so the answer says why.
export const api = new Hono<AppEnv>()
  .use(sameOriginWrites, apiKeyAuth, jsonBodyLimit, hostClient)
  .route('/health', health)
  .route('/models', models)
  .route('/agents', agents)
  .route('/chat', chat)
  .route('/workspaces', workspaces)
  .route('/workspaces', docs)
  .route('/sessions', sessions)
  .route('/sessions', turns)
  .route('/sessions', sessionExport)
  .route('/schedules', schedules)
  .route('/tasks', tasks)
  .route('/settings', settings)
  .route('/memories', memories)
  .route('/secrets', secrets)
  .route('/hooks', hooks)
  .route('/mcp-servers', mcpServers)
  .route('/build', build)
  .route('/sessions', sessionHooks)
  .route('/tasks', taskHooks)
  .route('/autonomy', autonomy)
  .route('/autonomy', evolution)
  .route('/browser', browser)
  .route('/observability', observability)
  .route('/channels', channels)
  .route('/approvals', approvals)
  .route('/openapi.json', openapi(appRoutes))

// Mounted at `/` by the Node entry, these run for the static UI as well: the headers first, so
// that a refused Host's answer carries them too.
export const app = new Hono<AppEnv>()
  .use(requestId, securityHeaders, allowedHosts)
  // A channel's service posts here, proving itself by signature instead of the owner's API key
  // (routes/channels-inbound.ts); registered before /api, so /api's key check is not reached.
  .route('/api/channels', channelInbound(sameOriginWrites, hostClient))
  .route('/api', api)

// Hoisted, and typed so that `app`'s type does not depend on itself through the route above.
function appRoutes(): RouteTable {
  return app
}

app.onError(handleError)
app.notFound(handleNotFound)

export type AppType = typeof app
