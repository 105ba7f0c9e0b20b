import { join } from 'node:path'
import type { AgentExecutionOptions } from '@mastra/core/agent'
import type { Db } from '../../db/index.ts'
import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'
import * as Settings from '../../runtime/settings/index.ts'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import type { Redactor } from '../../runtime/redaction.ts'
import type { AgentFactory, RunAgents } from '../agents/factory.ts'
import { createRunContext } from '../agents/run-context.ts'
import type { Logger } from '../log.ts'
import { MEMORY_RESOURCE_ID, type ThreadMemory } from '../memory/thread-memory.ts'
import { buildRepoBrief, formatRepoBrief } from '../repo-brief/brief.ts'
import type { RepoBrief } from '../repo-brief/brief.ts'
import { PathNotDirectory, resolveInside } from '../workspaces/containment.ts'
import { createRunBudget, limitsFrom, type BudgetUsed, type RunBudget } from './budget.ts'
import { delegationConfig, STEP_CEILING_KEY } from './delegation.ts'
import { reserveFinalStep } from './final-step.ts'
import { guardHooks } from './guard-hooks.ts'
import { createRunEvents, type RunEvents, type RunObserver, type RunRef } from './run-events.ts'
import { composeToolHooks, toolCallEvents, type AgentToolHooks } from './tool-hooks.ts'
import type { UsageMeter } from './usage.ts'

/** What every run driver (chat turn, task attempt) needs from the host. */
export type RunDeps = {
  db: Db
  /** The canonical POPAGENT_WORKSPACE_ROOT. */
  workspaceRoot: string
  agents: AgentFactory
  memory: ThreadMemory
  log: Logger
  redact: (text: string) => string
  /** The one redactor behind `redact`, for what is redacted piece by piece (the chat stream). */
  redactor: Redactor
  /** The host's run observers (logging, tracing, and later hooks and channels). */
  observers: readonly RunObserver[]
}

export type PreparedRun = {
  team: RunAgents
  route: string
  settings: AgentRuntimeSettings
  events: RunEvents
  /** What the run may still spend (B1), counted across all its agents. */
  budget: RunBudget
  /** The supervisor's execution options for this run. */
  options(run: { thread: string; signal: AbortSignal }): ReturnType<typeof supervisorOptions>
  /** Reports the run's end to every observer and releases its agents; later calls do nothing. */
  end(status: 'completed' | 'failed' | 'aborted', error?: string): Promise<void>
}

/**
 * The one run path: everything a supervisor run needs, shared by chat turns and background tasks
 * (T10) so both get the same prompt, delegation and tool hooks, recall, execution bounds,
 * final-response guard and run events: one settings snapshot, the repository of the workspace
 * (contained), the preflight repository brief (a ready brief withholds the researcher for this
 * run only), and the run's agents built from PostgreSQL. Once prepared, the run has started
 * (`run-start` and, with a brief, `brief` are emitted); the driver must call `end`.
 */
export async function prepareRun(
  deps: RunDeps,
  input: {
    run: Omit<RunRef, 'workspaceId'>
    workspaceId: string
    /** The request's text: the repository brief's query. */
    query: string
    model?: string | null
    usage: UsageMeter
    /** The driver's own observers, heard before the host's (the chat's activity stream). */
    observers?: readonly RunObserver[]
    /** Tool hooks run after the guards and before the event hook, in order (hooks go here). */
    toolHooks?: readonly AgentToolHooks[]
    /** A task's own lower limits, and what its tree already used. */
    budget?: { overrides?: Record<string, number> | null; used?: Partial<BudgetUsed> | null }
    /** When the driver began (epoch ms), if before preparation: its own checks count too. */
    startedAt?: number
    /** Whether this run preflights a repository brief. */
    preflight?: boolean
    /** Ends the preflight brief early when the client or the task goes away. */
    signal?: AbortSignal
  },
): Promise<PreparedRun> {
  const { db } = deps
  const clock = phaseClock(input.startedAt)
  // The driver's own checks before preparation (the chat's session lookup).
  if (input.startedAt !== undefined) clock.lap('driver')
  const [settings, memorySettings] = await Promise.all([
    Settings.agentRuntime.get(db),
    Settings.memory.get(db),
  ])
  clock.lap('settings')
  const route = input.model ?? settings.effectiveDefaultModel
  const { root: workspaceRoot, missing } = await repositoryOf(deps, input.workspaceId)
  clock.lap('workspace')
  // The brief is built while the agents are built and Mastra loads memory; the supervisor's
  // first step waits for it (prepareStep), so it still reaches the first model call.
  const briefStarted = performance.now()
  const briefing: Promise<Preflight | undefined> =
    workspaceRoot && input.preflight !== false
      ? briefFor(workspaceRoot, input.query, deps, input.signal)
      : Promise.resolve(undefined)
  const run: RunRef = { ...input.run, workspaceId: input.workspaceId }
  const events = createRunEvents([...(input.observers ?? []), ...deps.observers], deps.log)
  const budget = createRunBudget(limitsFrom(settings, input.budget?.overrides), {
    used: input.budget?.used ?? null,
  })
  const guards = guardHooks({ budget, repeatLimit: settings.loopRepeatLimit, events, run })
  const team = await deps.agents.build({
    ...(workspaceRoot ? { workspaceRoot } : { workspaceMissing: missing }),
    // A brief ready for implementation withholds the researcher for this run only.
    withheld: briefing.then((b) => (b?.brief.readyForImplementation ? ['researcher'] : [])),
    memory: deps.memory.forSettings(memorySettings),
    toolHooks: composeToolHooks([guards, ...(input.toolHooks ?? []), toolCallEvents(events, run)]),
    specialistOptions: (agentId) => ({
      prepareStep: reserveFinalStep(
        (rc) => (rc as { get?: (k: string) => unknown })?.get?.(STEP_CEILING_KEY) as number,
        () => settings.finalResponseFeedback,
        (step) => budget.answeringStep(agentId, step),
      ),
      onStepFinish: (step: { usage?: StepUsage }) => budget.stepFinished(step.usage),
      stopWhen: ({ steps }: { steps: readonly unknown[] }) =>
        budget.answered(agentId, steps.length),
    }),
  })
  clock.lap('agents')
  for (const missing of team.unavailableTools) {
    deps.log.debug('tool not available for this run', missing)
  }
  const agents = Object.fromEntries(
    Object.entries(team.profiles).map(([id, p]) => [
      id,
      { name: p.name, model: p.modelOverride ?? route },
    ]),
  )
  const supervisor = { agentId: team.supervisor.id, agentName: team.supervisor.name }
  events.emit({ type: 'run-start', run, model: route, preparation: clock.report() })
  void briefing.then((preflight) => {
    if (!preflight) return
    const durationMs = Math.round((performance.now() - briefStarted) * 100) / 100
    events.emit({
      type: 'brief',
      run,
      ...supervisor,
      query: input.query,
      text: preflight.text,
      durationMs,
    })
  })
  let ended = false
  return {
    team,
    route,
    settings,
    events,
    budget,
    end: async (status, error) => {
      if (ended) return
      ended = true
      events.emit({ type: 'run-end', run, status, ...(error !== undefined && { error }) })
      await team.dispose()
    },
    options: ({ thread, signal }) =>
      supervisorOptions({
        ...input,
        run,
        events,
        budget,
        supervisor,
        settings,
        route,
        agents,
        workspaceRoot,
        briefing,
        thread,
        signal,
      }),
  }
}

/** Times the phases of preparation, for the run-start event (the latency bench reads them). */
function phaseClock(startedAt = Date.now()) {
  const phases: Record<string, number> = {}
  let last = performance.now() - (Date.now() - startedAt)
  return {
    lap(phase: string) {
      const now = performance.now()
      phases[phase] = Math.round((now - last) * 100) / 100
      last = now
    },
    report: () => ({ startedAt, phases }),
  }
}

type Preflight = { brief: RepoBrief; text: string }
type PrepareStep = ReturnType<typeof reserveFinalStep>

/**
 * Every step of the supervisor sees the preflight brief as a system message; the first step
 * waits for it. Kept out of memory: it describes the repository now, not the conversation.
 */
function withBrief(briefing: Promise<Preflight | undefined>, next: PrepareStep): PrepareStep {
  return async (args) => {
    const preflight = await briefing
    if (!preflight) return next(args)
    const systemMessages = [
      ...args.systemMessages,
      {
        role: 'system' as const,
        content: `A repository brief was prepared for this request before the run started:\n\n${preflight.text}`,
      },
    ]
    return (await next({ ...args, systemMessages })) ?? { systemMessages }
  }
}

type StepUsage = { inputTokens?: number | undefined; outputTokens?: number | undefined }

// The loop's step result type is not exported; take it from the execution options.
type SupervisorStep = Parameters<NonNullable<AgentExecutionOptions['onStepFinish']>>[0]

function supervisorOptions(run: {
  run: RunRef
  events: RunEvents
  budget: RunBudget
  supervisor: { agentId: string; agentName: string }
  settings: AgentRuntimeSettings
  route: string
  agents: Record<string, { name: string; model: string }>
  workspaceRoot: string | undefined
  briefing: Promise<Preflight | undefined>
  usage: UsageMeter
  thread: string
  signal: AbortSignal
}) {
  const { settings, events, budget } = run
  const supervisorId = run.supervisor.agentId
  let step = 0
  return {
    memory: { thread: run.thread, resource: MEMORY_RESOURCE_ID },
    requestContext: createRunContext({
      modelRoute: run.route,
      settings,
      ...(run.workspaceRoot && { workspaceRoot: run.workspaceRoot }),
    }),
    abortSignal: run.signal,
    maxSteps: settings.supervisorMaxSteps,
    prepareStep: withBrief(
      run.briefing,
      reserveFinalStep(
        () => settings.supervisorMaxSteps,
        () => settings.finalResponseFeedback,
        (step) => budget.answeringStep(supervisorId, step),
      ),
    ),
    // A model that asks for tools on its answering step anyway still stops there.
    stopWhen: ({ steps }: { steps: readonly unknown[] }) =>
      budget.answered(supervisorId, steps.length),
    toolCallConcurrency: { limit: settings.toolCallConcurrency, strategy: 'called' as const },
    maxProcessorRetries: settings.processorRetries,
    delegation: delegationConfig({
      settings,
      events,
      run: run.run,
      usage: run.usage,
      agents: run.agents,
    }),
    onStepFinish: (result: SupervisorStep) => {
      budget.stepFinished((result as { usage?: StepUsage }).usage)
      events.emit({
        type: 'step',
        run: run.run,
        ...run.supervisor,
        step: ++step,
        maxSteps: settings.supervisorMaxSteps,
        finishReason: result.finishReason ?? null,
        text: result.text,
        toolCalls: result.toolCalls.map((call) => ({
          tool: call.payload.toolName,
          arguments: call.payload.args,
        })),
      })
    },
  }
}

/**
 * The workspace's repository as a canonical absolute path, proven to lie inside the workspace
 * root; when the directory is missing (or leads outside), no root and the reason, which the run's
 * workspace tools then give the model instead of failing obscurely.
 */
async function repositoryOf(
  deps: RunDeps,
  workspaceId: string,
): Promise<{ root?: string; missing?: string }> {
  const workspace = await Workspaces.get(deps.db, workspaceId)
  try {
    return {
      root: join(deps.workspaceRoot, await resolveInside(deps.workspaceRoot, workspace.path)),
    }
  } catch (error) {
    const message = errorMessage(error)
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
  deps: RunDeps,
  signal: AbortSignal | undefined,
) {
  if (!query) return undefined
  try {
    const brief = await buildRepoBrief(root, query.slice(0, 500), signal)
    return { brief, text: formatRepoBrief(brief) }
  } catch (error) {
    deps.log.warn('repository brief failed; the run continues without it', {
      error: errorMessage(error),
    })
    return undefined
  }
}
