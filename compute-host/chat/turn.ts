import { toAISdkStream } from '@mastra/ai-sdk'
import { createUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import type { Db } from '../../db/index.ts'
import type { AssistantMetadata, ChatRequest } from '../../runtime/contracts/chat.ts'
import type { UiMessage } from '../../runtime/contracts/sessions.ts'
import { createId } from '../../runtime/ids.ts'
import * as Sessions from '../../runtime/sessions/index.ts'
import { SessionArchived, WorkspaceMismatch } from '../../runtime/sessions/errors.ts'
import * as Settings from '../../runtime/settings/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import { resolveInside } from '../workspaces/containment.ts'
import type { AgentFactory } from '../agents/factory.ts'
import { createRunContext } from '../agents/run-context.ts'
import type { Logger } from '../log.ts'
import { MEMORY_RESOURCE_ID, type ThreadMemory } from '../memory/thread-memory.ts'
import { createActivityLog, type ActivityPart } from './activity.ts'
import { delegationConfig, STEP_CEILING_KEY } from './delegation.ts'
import { reserveFinalStep } from './final-step.ts'
import { describeRunError } from './run-errors.ts'
import { createUsageMeter } from './usage.ts'
import { buildRepoBrief, formatRepoBrief } from '../repo-brief/brief.ts'

export type ChatTurnDeps = {
  db: Db
  /** The canonical POPAGENT_WORKSPACE_ROOT. */
  workspaceRoot: string
  agents: AgentFactory
  memory: ThreadMemory
  log: Logger
  redact: (text: string) => string
}

const TITLE_CHARS = 60

/**
 * One chat turn: checks the session, takes one settings snapshot, builds the run's agents from
 * PostgreSQL and streams the supervisor's run as an AI SDK UI-message stream. The session's
 * messages are appended when the stream ends, whether it completed, failed or was aborted, so a
 * session always holds the user's message and whatever answer there was.
 *
 * `signal` is the client's connection: when it aborts, the run and its gateway requests abort.
 */
export async function startChatTurn(
  deps: ChatTurnDeps,
  request: ChatRequest,
  signal: AbortSignal,
): Promise<ReadableStream<UIMessageChunk>> {
  const { db } = deps
  const session = await Sessions.get(db, request.sessionId)
  if (!session) throw new Sessions.SessionNotFound({ id: request.sessionId })
  if (session.archivedAt) throw new SessionArchived({ id: session.id })
  if (session.workspaceId !== request.workspaceId) {
    throw new WorkspaceMismatch({ sessionId: session.id, workspaceId: request.workspaceId })
  }
  const [runtime, memorySettings] = await Promise.all([
    Settings.agentRuntime.get(db),
    Settings.memory.get(db),
  ])
  const route = request.model ?? runtime.effectiveDefaultModel
  const turnId = createId('turn')
  const traceId = randomBytes(16).toString('hex')
  const usage = createUsageMeter()
  let emit: (part: ActivityPart & { transient: true }) => void = () => {}
  const activity = createActivityLog({ emit: (part) => emit(part), redact: deps.redact })

  const workspaceRoot = await repositoryOf(deps, session.workspaceId)
  const preflight = workspaceRoot && (await briefFor(workspaceRoot, request.message, deps))
  const team = await deps.agents.build({
    ...(workspaceRoot && { workspaceRoot }),
    // A brief precise enough to implement against makes a research pass redundant: this turn
    // only, the supervisor goes straight to implementation.
    ...(preflight && preflight.brief.readyForImplementation && { withheld: ['researcher'] }),
    memory: deps.memory.forSettings(memorySettings),
    toolHooks: (agent) => activity.toolHooks(agent),
    specialistOptions: {
      prepareStep: reserveFinalStep(
        (rc) => (rc as { get?: (k: string) => unknown })?.get?.(STEP_CEILING_KEY) as number,
        () => runtime.finalResponseFeedback,
      ),
    },
  })
  const agents = Object.fromEntries(
    Object.entries(team.profiles).map(([id, p]) => [
      id,
      { name: p.name, model: p.modelOverride ?? route },
    ]),
  )
  for (const missing of team.unavailableTools) {
    deps.log.debug('tool not available for this run', { turnId, ...missing })
  }
  const metadata = (extra: Partial<AssistantMetadata> = {}): AssistantMetadata => ({
    turnId,
    traceId,
    model: route,
    usage: usage.snapshot(),
    ...extra,
  })

  let failure: string | undefined
  const fail = (error: unknown) => {
    failure = describeRunError(error, deps.redact)
    deps.log.warn('chat turn failed', { turnId, sessionId: session.id, error: failure })
    return failure
  }
  const stream = createUIMessageStream<UIMessage<AssistantMetadata>>({
    generateId: () => createId('message'),
    execute: async ({ writer }) => {
      emit = (part) => writer.write(part as never)
      writer.write({ type: 'message-metadata', messageMetadata: metadata() })
      if (preflight) {
        activity.start('act_repo_brief', {
          kind: 'tool',
          agentId: team.supervisor.id,
          agentName: team.supervisor.name,
          tool: 'repo-brief',
          input: titleFrom(request.message) ?? '',
        })
        activity.finish('act_repo_brief', { output: preflight.text })
      }
      const output = await team.supervisor.stream([request.message as never], {
        memory: { thread: session.id, resource: MEMORY_RESOURCE_ID },
        requestContext: createRunContext({
          modelRoute: route,
          settings: runtime,
          ...(workspaceRoot && { workspaceRoot }),
        }),
        ...(preflight && {
          system: `A repository brief was prepared for this request before the turn started:\n\n${preflight.text}`,
        }),
        abortSignal: signal,
        maxSteps: runtime.supervisorMaxSteps,
        prepareStep: reserveFinalStep(
          () => runtime.supervisorMaxSteps,
          () => runtime.finalResponseFeedback,
        ),
        toolCallConcurrency: { limit: runtime.toolCallConcurrency, strategy: 'called' },
        maxProcessorRetries: runtime.processorRetries,
        delegation: delegationConfig({ settings: runtime, activity, usage, agents }),
      })
      writer.merge(
        toAISdkStream(output, {
          from: 'agent',
          version: 'v7',
          sendStart: false,
          sendReasoning: false,
          // Errors inside the agent's stream: the same clear, redacted text, never a stack.
          onError: (error) => fail(error),
          messageMetadata: ({ part }) => {
            if (part.type !== 'finish') return undefined
            const total = (part as { totalUsage?: { inputTokens?: number; outputTokens?: number } })
              .totalUsage
            if (total) usage.add(route, total)
            return metadata()
          },
        }) as ReadableStream<never>,
      )
    },
    onError: (error) => fail(error),
    onEnd: async ({ responseMessage, isAborted }) => {
      const assistant = {
        ...responseMessage,
        role: 'assistant' as const,
        parts: [...responseMessage.parts, ...activity.parts()],
        metadata: metadata({
          ...(isAborted || signal.aborted ? { aborted: true } : {}),
          ...(failure ? { error: failure } : {}),
        }),
      } as UiMessage
      try {
        await Sessions.appendTurn(
          db,
          session.id,
          [request.message, assistant],
          titleFrom(request.message),
        )
      } catch (error) {
        deps.log.error('could not save the turn', { turnId, sessionId: session.id, error })
      } finally {
        await team.dispose()
      }
    },
  })
  return stream
}

function textOf(message: UiMessage): string {
  return message.parts
    .filter(
      (p): p is typeof p & { text: string } => p.type === 'text' && typeof p.text === 'string',
    )
    .map((p) => p.text)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
}

function titleFrom(message: UiMessage): string | undefined {
  const text = textOf(message)
  if (!text) return undefined
  return text.length > TITLE_CHARS ? `${text.slice(0, TITLE_CHARS - 1)}…` : text
}

/**
 * The session's repository as a canonical absolute path, proven to lie inside the workspace root;
 * undefined (the run gets no workspace tools, and says so) when the directory is missing.
 */
async function repositoryOf(deps: ChatTurnDeps, workspaceId: string): Promise<string | undefined> {
  const workspace = await Workspaces.get(deps.db, workspaceId)
  try {
    return join(deps.workspaceRoot, await resolveInside(deps.workspaceRoot, workspace.path))
  } catch (error) {
    deps.log.warn('workspace directory unavailable for this run', {
      workspaceId,
      path: workspace.path,
      error: error instanceof Error ? error.message : String(error),
    })
    return undefined
  }
}

/**
 * The repository brief for the newest message, built before the first model call. A failure only
 * costs the preflight (it is logged); the turn goes on without it.
 */
async function briefFor(root: string, message: UiMessage, deps: ChatTurnDeps) {
  const query = textOf(message)
  if (!query) return undefined
  try {
    const brief = await buildRepoBrief(root, query.slice(0, 500))
    return { brief, text: formatRepoBrief(brief) }
  } catch (error) {
    deps.log.warn('repository brief failed; the turn continues without it', {
      error: error instanceof Error ? error.message : String(error),
    })
    return undefined
  }
}
