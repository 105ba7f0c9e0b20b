import { serve, type ServerType } from '@hono/node-server'
import { createUIMessageStreamResponse } from 'ai'
import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import { HTTPException } from 'hono/http-exception'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import * as Agents from '../runtime/agents/index.ts'
import * as Hooks from '../runtime/hooks/index.ts'
import { secretsEqual } from '../runtime/constant-time.ts'
import { AppError, errorBody } from '../runtime/errors.ts'
import { loggableError } from '../runtime/pg-errors.ts'
import { REQUEST_ID_HEADER, requestIdFrom } from '../runtime/request-id.ts'
import { missingDirectoryAdvice, WorkspaceDirectoryMissing } from '../runtime/workspaces/index.ts'
import { startChatTurn } from './runs/chat-turn.ts'
import { observabilityHandlers } from './observability/host-handlers.ts'
import { type HostEnv, type HostHandlers, serveHostRoutes } from './host-routes.ts'
import { readWorkspaceMarkdown } from './docs/read-markdown.ts'
import { docSearchDeps } from './docs/search-deps.ts'
import { searchDocs } from './docs/hybrid-search.ts'
import { buildRepoBrief, formatRepoBrief, RepoBriefBusy } from './repo-brief/brief.ts'
import type { HostResources } from './resources.ts'
import { runDeps } from './runs/run-deps.ts'
import { describeTurn, undoTurn } from './undo/turn-undo.ts'
import { exportSession } from './export/session-export.ts'
import { previewCron, serverTimezone } from './schedules/cron.ts'
import { PathNotDirectory, resolveInside } from './workspaces/containment.ts'
import { VaultUnavailable } from '../runtime/secrets/errors.ts'
import { ObservabilityUnavailable } from '../runtime/observability/errors.ts'
import { reconcileSelfUpdate } from './self-update/reconcile.ts'

/**
 * The host's internal API: the routes of `hostRoutes` (runtime/contracts/host-api.ts), each with
 * its handler below. It listens on loopback only and every request needs the shared host token as
 * a bearer; the edge is its only intended caller.
 */
export function createHostApp($: HostResources, token: string) {
  const handlers: HostHandlers = {
    health: async () => ({
      status: 'ok',
      startedAt: $.startedAt.toISOString(),
      databaseMode: $.databases.mode,
      gateway: await $.gateway.status(),
      localModels: $.localModels.queue.stats(),
      sandbox: $.sandbox,
    }),
    models: () => $.catalog.read(),
    chat: async (request, c) => {
      // Another host may have stored a secret since: this turn must redact it too.
      await $.vault.sync()
      return createUIMessageStreamResponse({
        stream: await startChatTurn(
          runDeps($, c.var.log),
          request,
          c.req.raw.signal,
          c.var.requestId,
        ),
      })
    },
    resolveWorkspace: async (body) => {
      const path = await resolveInside($.workspaceRoot, body.path)
      return { path, gitRepository: existsSync(join($.workspaceRoot, path, '.git')) }
    },
    repoBrief: async (body, c) => {
      const path = await resolveInside($.workspaceRoot, body.path).catch((error) => {
        if (!(error instanceof PathNotDirectory)) throw error
        const message = missingDirectoryAdvice(body.path)
        throw new WorkspaceDirectoryMissing({ path: body.path }, { message })
      })
      // The edge's request signal: a client that went away stops the brief and its git.
      const brief = await buildRepoBrief(join($.workspaceRoot, path), body.query, c.req.raw.signal)
      return { brief, text: formatRepoBrief(brief) }
    },
    threads: async ({ sessionIds }) => {
      const agentIds = (await Agents.listRows($.databases.application.db)).map((a) => a.id)
      await $.memory.deleteThreads(sessionIds, agentIds)
      return { deleted: sessionIds.length }
    },
    // croner lives here, so the edge asks the host to check every cron expression it stores.
    cronPreview: ({ cron }) => previewCron(cron),
    cronTimezone: () => ({ timezone: serverTimezone() }),
    turnChanges: (ref) => describeTurn({ ...$, db: $.databases.application.db }, ref),
    undoTurn: (ref) => undoTurn({ ...$, db: $.databases.application.db }, ref),
    workspaceMarkdown: async (body) => {
      const path = await resolveInside($.workspaceRoot, body.path)
      return { files: await readWorkspaceMarkdown(join($.workspaceRoot, path)) }
    },
    docsSearch: ({ workspaceId, ...input }, c) =>
      searchDocs(docSearchDeps($, c.var.log), workspaceId, input, c.req.raw.signal),
    agentTools: async () => ({ agents: await $.agents.toolStatuses() }),
    exportSession: (body) =>
      exportSession({ db: $.databases.application.db, redact: $.redact }, body),
    sessionEnd: async ({ sessionId, workspaceId, reason }) => {
      await $.vault.sync()
      const verdict = await $.hooks.dispatch({
        event: 'SessionEnd',
        scope: { sessionId, workspaceId },
        data: { reason },
      })
      return { hooks: verdict.runIds.length }
    },
    hookTest: async ({ id, toolName, ...data }) => {
      await $.vault.sync()
      const verdict = await $.hooks.testRun(id, data, toolName)
      const runs = await Hooks.runsByIds($.databases.application.db, verdict.runIds)
      return { decision: verdict.decision, reason: verdict.reason, context: verdict.context, runs }
    },
    secretCreate: (input) => $.vault.create(input),
    secretRotate: ({ id, value }) => $.vault.rotate(id, value),
    secretDelete: async ({ id }) => {
      await $.vault.remove(id)
      return { deleted: id }
    },
    autonomyReconcile: () =>
      reconcileSelfUpdate({ db: $.databases.application.db, workspaceRoot: $.workspaceRoot }),
    ...observabilityHandlers($),
  }

  const requestContext = createMiddleware<HostEnv>(async (c, next) => {
    const requestId = requestIdFrom(c.req.header(REQUEST_ID_HEADER))
    c.set('requestId', requestId)
    c.set('log', $.log.child({ requestId }))
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
    const log = c.var.log ?? $.log
    log.error('host request failed', { path: c.req.path, error: loggableError(error) })
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
