import { serve, type ServerType } from '@hono/node-server'
import { Hono } from 'hono'
import { createMiddleware } from 'hono/factory'
import type { HostHealth } from '../runtime/contracts/host-api.ts'
import {
  CronPreviewBody,
  DeleteThreadsBody,
  HostPaths,
  RepoBriefBody,
  ResolveWorkspaceBody,
  type ResolvedWorkspace,
} from '../runtime/contracts/host-api.ts'
import { PathNotDirectory, resolveInside } from './workspaces/containment.ts'
import { missingDirectoryAdvice, WorkspaceDirectoryMissing } from '../runtime/workspaces/index.ts'
import { previewCron, serverTimezone } from './schedules/cron.ts'
import { buildRepoBrief, formatRepoBrief, RepoBriefBusy } from './repo-brief/brief.ts'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { secretsEqual } from '../runtime/constant-time.ts'
import { AppError, errorBody } from '../runtime/errors.ts'
import { loggableError } from '../runtime/pg-errors.ts'
import { ChatRequest } from '../runtime/contracts/chat.ts'
import { createUIMessageStreamResponse } from 'ai'
import { startChatTurn } from './chat/turn.ts'
import * as Agents from '../runtime/agents/index.ts'
import type { HostResources } from './resources.ts'

/**
 * The host's internal API. It listens on loopback only and every request needs the shared host
 * token as a bearer; the edge is its only intended caller.
 */
export function createHostApp($: HostResources, token: string) {
  const requireToken = createMiddleware(async (c, next) => {
    const header = c.req.header('authorization') ?? ''
    const given = header.startsWith('Bearer ') ? header.slice(7) : ''
    if (!secretsEqual(given, token)) return c.json(errorBody('UNAUTHORIZED', 'bad host token'), 401)
    await next()
  })

  const chatDeps = {
    db: $.databases.application.db,
    workspaceRoot: $.workspaceRoot,
    agents: $.agents,
    memory: $.memory,
    log: $.log,
    redact: $.redact,
  }
  const app = new Hono()
    .use(requireToken)
    .get(HostPaths.health, async (c) => {
      const body: HostHealth = {
        status: 'ok',
        startedAt: $.startedAt.toISOString(),
        databaseMode: $.databases.mode,
        gateway: await $.gateway.status(),
        localModels: $.localModels.queue.stats(),
        sandbox: $.sandbox,
      }
      return c.json(body)
    })
    .get(HostPaths.models, async (c) => c.json(await $.catalog.read()))
    .post(HostPaths.chat, async (c) => {
      const parsed = ChatRequest.safeParse(await c.req.json().catch(() => undefined))
      if (!parsed.success) {
        return c.json(errorBody('VALIDATION_FAILED', 'invalid chat request'), 400)
      }
      const stream = await startChatTurn(chatDeps, parsed.data, c.req.raw.signal)
      return createUIMessageStreamResponse({ stream })
    })
    .post(HostPaths.resolveWorkspace, async (c) => {
      const parsed = ResolveWorkspaceBody.safeParse(await c.req.json().catch(() => undefined))
      if (!parsed.success) return c.json(errorBody('VALIDATION_FAILED', 'invalid body'), 400)
      const path = await resolveInside($.workspaceRoot, parsed.data.path)
      const body: ResolvedWorkspace = {
        path,
        gitRepository: existsSync(join($.workspaceRoot, path, '.git')),
      }
      return c.json(body)
    })
    .post(HostPaths.repoBrief, async (c) => {
      const parsed = RepoBriefBody.safeParse(await c.req.json().catch(() => undefined))
      if (!parsed.success) return c.json(errorBody('VALIDATION_FAILED', 'invalid body'), 400)
      const path = await resolveInside($.workspaceRoot, parsed.data.path).catch((error) => {
        if (!(error instanceof PathNotDirectory)) throw error
        const given = parsed.data.path
        throw new WorkspaceDirectoryMissing(
          { path: given },
          { message: missingDirectoryAdvice(given) },
        )
      })
      // The edge's request signal: a client that went away stops the brief and its git.
      const root = join($.workspaceRoot, path)
      const brief = await buildRepoBrief(root, parsed.data.query, c.req.raw.signal)
      return c.json({ brief, text: formatRepoBrief(brief) })
    })
    .post(HostPaths.threads, async (c) => {
      const parsed = DeleteThreadsBody.safeParse(await c.req.json().catch(() => undefined))
      if (!parsed.success) return c.json(errorBody('VALIDATION_FAILED', 'invalid body'), 400)
      const agentIds = (await Agents.listRows($.databases.application.db)).map((a) => a.id)
      await $.memory.deleteThreads(parsed.data.sessionIds, agentIds)
      return c.json({ deleted: parsed.data.sessionIds.length })
    })
    // croner lives here, so the edge asks the host to check every cron expression it stores.
    .post(HostPaths.cronPreview, async (c) => {
      const parsed = CronPreviewBody.safeParse(await c.req.json().catch(() => undefined))
      if (!parsed.success) return c.json(errorBody('VALIDATION_FAILED', 'invalid body'), 400)
      return c.json(previewCron(parsed.data.cron))
    })
    .get(HostPaths.cronTimezone, (c) => c.json({ timezone: serverTimezone() }))
  app.onError((error, c) => {
    if (error instanceof AppError && error.status < 500) return c.json(error.toBody(), error.status)
    // Refused for load, not failed: the caller hears it as such.
    if (error instanceof RepoBriefBusy) return c.json(error.toBody(), 503)
    // The caller went away and its signal stopped the work: nothing failed, nobody listens.
    if (c.req.raw.signal.aborted)
      return c.json(errorBody('CLIENT_GONE', 'the caller went away'), 400)
    $.log.error('host request failed', { path: c.req.path, error: loggableError(error) })
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
