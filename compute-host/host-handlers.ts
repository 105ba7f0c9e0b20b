import { UI_MESSAGE_STREAM_HEADERS } from 'ai'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import * as Agents from '../runtime/agents/index.ts'
import * as Hooks from '../runtime/hooks/index.ts'
import { decideProposal } from './evolution/channel-review.ts'
import { refuseUnknownModels, UNCHECKED_MODELS_WARNING } from '../runtime/models/known-models.ts'
import { missingDirectoryAdvice, WorkspaceDirectoryMissing } from '../runtime/workspaces/index.ts'
import { startChatTurn } from './runs/chat-turn.ts'
import { buildStatus } from './build/status.ts'
import { observabilityHandlers } from './observability/host-handlers.ts'
import { browserHandlers } from './browser/host-handlers.ts'
import { channelHandlers } from './channels/host-handlers.ts'
import { readWorkspaceMarkdown } from './docs/read-markdown.ts'
import { docSearchDeps } from './docs/search-deps.ts'
import { searchDocs } from './docs/hybrid-search.ts'
import { buildRepoBrief, formatRepoBrief } from './repo-brief/brief.ts'
import type { HostResources } from './resources.ts'
import { runDeps } from './runs/run-deps.ts'
import { describeTurn, undoTurn } from './undo/turn-undo.ts'
import { exportSession } from './export/session-export.ts'
import { previewCron, serverTimezone } from './schedules/cron.ts'
import { PathNotDirectory, resolveInside } from './workspaces/containment.ts'
import { reconcileSelfUpdate } from './self-update/reconcile.ts'
import { createHostApp, type EngineHandlers } from './server.ts'

/**
 * The handlers of every host route but health and the model catalog (compute-host/server.ts
 * serves those from the core), over the host's finished resources. They are
 * the part of the host that needs the engines (Mastra, the agents, memory, the task runner), so
 * this module is loaded with them, after the host answers health (compute-host/engines.ts).
 */
export function createEngineHandlers($: HostResources): EngineHandlers {
  return {
    chat: async (request, c) => {
      // The turn's model against the catalog this host holds: the check the edge makes for other
      // routes, without a call to this host for the catalog on every turn.
      const unchecked = await refuseUnknownModels({ model: request.model }, () => $.catalog.read())
      if (unchecked)
        c.var.log.warn(UNCHECKED_MODELS_WARNING, {
          models: unchecked.unchecked,
          error: unchecked.error,
        })
      // The request's signal is not the turn's: the turn runs on if this client goes away.
      const stream = await startChatTurn(
        runDeps($, c.var.log),
        request,
        $.liveTurns,
        c.var.requestId,
      )
      return new Response(stream, { headers: UI_MESSAGE_STREAM_HEADERS })
    },
    chatStream: ({ sessionId, after }) => {
      const stream = $.liveTurns.join(sessionId, after)
      // The AI SDK's resume convention: nothing to resume is a 204.
      if (!stream) return new Response(null, { status: 204 })
      return new Response(stream, { headers: UI_MESSAGE_STREAM_HEADERS })
    },
    chatStop: ({ sessionId }) => {
      const turnId = $.liveTurns.stop(sessionId)
      return { stopped: turnId !== undefined, turnId: turnId ?? null }
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
      // A turn still running would write its thread again after it was deleted.
      await $.liveTurns.stopAndWait(sessionIds)
      const agentIds = (await Agents.listRows($.databases.application.db)).map((a) => a.id)
      await $.memory.deleteThreads(sessionIds, agentIds)
      return { deleted: sessionIds.length }
    },
    forgetExchanges: async ({ sessionId, userMessageIds }) => ({
      forgotten: await $.memory.forgetExchanges(sessionId, userMessageIds),
    }),
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
      // The session's browser closes whatever its hooks say (SessionEnd is observed only).
      const closing = $.browser?.sessionEnded(sessionId, reason).catch(() => false)
      const verdict = await $.hooks.dispatch({
        event: 'SessionEnd',
        scope: { sessionId, workspaceId },
        data: { reason },
      })
      await closing
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
    evolutionRun: () => $.evolution.worker.runNow(),
    evolutionDryRun: () => $.evolution.dryRun(),
    // The same path as an approve button on the proposal's channel question (channel-review.ts).
    evolutionApprove: ({ id }) =>
      decideProposal(
        { db: $.databases.application.db, vault: $.vault, redact: $.redact },
        id,
        'approve',
        'owner-web',
      ),
    ...withFeedbackSignal($, observabilityHandlers($)),
    ...browserHandlers($),
    mcpServerStates: async () => ({ servers: (await $.mcpServers?.states()) ?? [] }),
    mcpAgentTools: async ({ agentId }) =>
      (await $.mcpServers?.agentTools(agentId, AbortSignal.timeout(15_000))) ?? { servers: [] },
    buildStatus: async () =>
      $.build ? buildStatus($.build) : { enabled: false as const, reason: 'not started' },
    ...channelHandlers($),
  }
}

/** A thumbs-down is also an evolution signal, recorded after the feedback itself is stored. */
function withFeedbackSignal<H extends ReturnType<typeof observabilityHandlers>>(
  $: HostResources,
  handlers: H,
): H {
  return {
    ...handlers,
    addFeedback: async (body, c) => {
      const saved = await handlers.addFeedback(body, c)
      await $.evolution.feedback(body)
      return saved
    },
  }
}

/** The host's app over resources that are already complete (tests, and tools that list routes). */
export function createReadyHostApp($: HostResources, token: string) {
  return createHostApp(
    $,
    Promise.resolve({ resources: $, handlers: createEngineHandlers($) }),
    token,
  )
}
