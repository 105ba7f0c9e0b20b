import { join } from 'node:path'
import type { Db } from '../../db/index.ts'
import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'
import * as Settings from '../../runtime/settings/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import type { ActivityLog } from '../chat/activity.ts'
import { delegationConfig, STEP_CEILING_KEY } from '../chat/delegation.ts'
import { reserveFinalStep } from '../chat/final-step.ts'
import type { UsageMeter } from '../chat/usage.ts'
import type { Logger } from '../log.ts'
import { MEMORY_RESOURCE_ID, type ThreadMemory } from '../memory/thread-memory.ts'
import { buildRepoBrief, formatRepoBrief } from '../repo-brief/brief.ts'
import type { RepoBrief } from '../repo-brief/brief.ts'
import { PathNotDirectory, resolveInside } from '../workspaces/containment.ts'
import type { AgentFactory, RunAgents } from './factory.ts'
import { createRunContext } from './run-context.ts'

export type AgentRunDeps = {
  db: Db
  /** The canonical POPAGENT_WORKSPACE_ROOT. */
  workspaceRoot: string
  agents: AgentFactory
  memory: ThreadMemory
  log: Logger
  redact: (text: string) => string
}

export type PreparedRun = {
  team: RunAgents
  route: string
  settings: AgentRuntimeSettings
  preflight?: { brief: RepoBrief; text: string }
  /** The supervisor's execution options for this run. */
  options(run: { thread: string; signal: AbortSignal }): ReturnType<typeof supervisorOptions>
}

/**
 * Everything a supervisor run needs, shared by chat turns and background tasks (T10) so both get
 * the same prompt, delegation and tool hooks, recall, execution bounds and final-response guard:
 * one settings snapshot, the repository of the workspace (contained), the preflight repository
 * brief (a ready brief withholds the researcher for this run only), and the run's agents built
 * from PostgreSQL.
 */
export async function prepareAgentRun(
  deps: AgentRunDeps,
  input: {
    workspaceId: string
    /** The request's text: the repository brief's query. */
    query: string
    model?: string | null
    activity: ActivityLog
    usage: UsageMeter
    /** Whether this run preflights a repository brief. */
    preflight?: boolean
    /** Ends the preflight brief early when the client or the task goes away. */
    signal?: AbortSignal
  },
): Promise<PreparedRun> {
  const { db } = deps
  const [settings, memorySettings] = await Promise.all([
    Settings.agentRuntime.get(db),
    Settings.memory.get(db),
  ])
  const route = input.model ?? settings.effectiveDefaultModel
  const { root: workspaceRoot, missing } = await repositoryOf(deps, input.workspaceId)
  const preflight =
    workspaceRoot && input.preflight !== false
      ? await briefFor(workspaceRoot, input.query, deps, input.signal)
      : undefined
  const team = await deps.agents.build({
    ...(workspaceRoot ? { workspaceRoot } : { workspaceMissing: missing }),
    ...(preflight && preflight.brief.readyForImplementation && { withheld: ['researcher'] }),
    memory: deps.memory.forSettings(memorySettings),
    toolHooks: (agent) => input.activity.toolHooks(agent),
    specialistOptions: {
      prepareStep: reserveFinalStep(
        (rc) => (rc as { get?: (k: string) => unknown })?.get?.(STEP_CEILING_KEY) as number,
        () => settings.finalResponseFeedback,
      ),
    },
  })
  for (const missing of team.unavailableTools) {
    deps.log.debug('tool not available for this run', missing)
  }
  const agents = Object.fromEntries(
    Object.entries(team.profiles).map(([id, p]) => [
      id,
      { name: p.name, model: p.modelOverride ?? route },
    ]),
  )
  return {
    team,
    route,
    settings,
    ...(preflight && { preflight }),
    options: ({ thread, signal }) =>
      supervisorOptions({
        ...input,
        settings,
        route,
        agents,
        workspaceRoot,
        preflight,
        thread,
        signal,
      }),
  }
}

function supervisorOptions(run: {
  settings: AgentRuntimeSettings
  route: string
  agents: Record<string, { name: string; model: string }>
  workspaceRoot: string | undefined
  preflight: { text: string } | undefined
  activity: ActivityLog
  usage: UsageMeter
  thread: string
  signal: AbortSignal
}) {
  const { settings } = run
  return {
    memory: { thread: run.thread, resource: MEMORY_RESOURCE_ID },
    requestContext: createRunContext({
      modelRoute: run.route,
      settings,
      ...(run.workspaceRoot && { workspaceRoot: run.workspaceRoot }),
    }),
    ...(run.preflight && {
      system: `A repository brief was prepared for this request before the run started:\n\n${run.preflight.text}`,
    }),
    abortSignal: run.signal,
    maxSteps: settings.supervisorMaxSteps,
    prepareStep: reserveFinalStep(
      () => settings.supervisorMaxSteps,
      () => settings.finalResponseFeedback,
    ),
    toolCallConcurrency: { limit: settings.toolCallConcurrency, strategy: 'called' as const },
    maxProcessorRetries: settings.processorRetries,
    delegation: delegationConfig({
      settings,
      activity: run.activity,
      usage: run.usage,
      agents: run.agents,
    }),
  }
}

/**
 * The workspace's repository as a canonical absolute path, proven to lie inside the workspace
 * root; when the directory is missing (or leads outside), no root and the reason, which the run's
 * workspace tools then give the model instead of failing obscurely.
 */
async function repositoryOf(
  deps: AgentRunDeps,
  workspaceId: string,
): Promise<{ root?: string; missing?: string }> {
  const workspace = await Workspaces.get(deps.db, workspaceId)
  try {
    return {
      root: join(deps.workspaceRoot, await resolveInside(deps.workspaceRoot, workspace.path)),
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    deps.log.warn('workspace directory unavailable for this run', {
      workspaceId,
      path: workspace.path,
      error: message,
    })
    return {
      missing:
        error instanceof PathNotDirectory
          ? Workspaces.missingDirectoryAdvice(workspace.path)
          : `the workspace's path "${workspace.path}" cannot be used: ${message}`,
    }
  }
}

/**
 * The repository brief for the request, built before the first model call. A failure only costs
 * the preflight (it is logged); the run goes on without it.
 */
async function briefFor(
  root: string,
  query: string,
  deps: AgentRunDeps,
  signal: AbortSignal | undefined,
) {
  if (!query) return undefined
  try {
    const brief = await buildRepoBrief(root, query.slice(0, 500), signal)
    return { brief, text: formatRepoBrief(brief) }
  } catch (error) {
    deps.log.warn('repository brief failed; the run continues without it', {
      error: error instanceof Error ? error.message : String(error),
    })
    return undefined
  }
}
