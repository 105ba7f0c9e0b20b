import type { Db } from '../../db/index.ts'
import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'
import type { Redactor } from '../../runtime/redaction.ts'
import type { AgentFactory, BuildOptions, RunAgents } from '../agents/factory.ts'
import type { ConfigCache, ConfigSnapshot } from '../config-cache.ts'
import type { Logger } from '../log.ts'
import type { ThreadMemory } from '../memory/thread-memory.ts'
import type { Recall } from '../recall/recall.ts'
import type { Vault } from '../secrets/vault.ts'
import type { BlobCipher } from '../undo/blob-cipher.ts'
import { recallEvent } from '../recall/recall-event.ts'
import { createRunBudget, limitsFrom, type BudgetUsed, type RunBudget } from './budget.ts'
import { costCapped, NO_PRICES, type RunPrices } from './cost-cap.ts'
import { STEP_CEILING_KEY } from './delegation.ts'
import { reserveFinalStep } from './final-step.ts'
import { guardHooks, type BrokenCall } from './guard-hooks.ts'
import { createRunEvents, type RunEvents, type RunObserver, type RunRef } from './run-events.ts'
import { composeToolHooks, toolCallEvents, type AgentToolHooks } from './tool-hooks.ts'
import { toolInputRedaction } from './tool-input-redaction.ts'
import type { UsageMeter } from './usage.ts'
import type { HookDispatcher } from '../hooks/dispatcher.ts'
import { hookToolGate } from '../hooks/tool-gate.ts'
import type { Approvals } from '../approvals/approvals.ts'
import { phaseClock } from './phase-clock.ts'
import { briefFor, repositoryOf, type Preflight } from './preflight.ts'
import { supervisorOptions, type StepUsage } from './supervisor-options.ts'

/** What every run driver (chat turn, task attempt) needs from the host. */
export type RunDeps = {
  db: Db
  /** The canonical POPAGENT_WORKSPACE_ROOT. */
  workspaceRoot: string
  agents: AgentFactory
  /** The run's configuration (settings, workspace, agents, skills, hooks), kept per version. */
  config: ConfigCache
  memory: ThreadMemory
  log: Logger
  redact: (text: string) => string
  /** The one redactor behind `redact`, for what is redacted piece by piece (the chat stream). */
  redactor: Redactor
  /** The host's run observers (logging, tracing, and later hooks and channels). */
  observers: readonly RunObserver[]
  /** Cross-session recall and the indexing of finished turns; without it, neither happens. */
  recall?: Recall
  /** The host's hooks (X3): PreToolUse and PostToolUse run on every tool call of the run. */
  hooks?: HookDispatcher
  /** Asks the owner when a PreToolUse hook answers `ask`; without it such a call is refused. */
  approvals?: Approvals
  /**
   * The vault, for a chat turn to redact with what other hosts stored since: its claim checks the
   * vault's versions in its own statement and catches up when they moved (chat-turn.ts).
   */
  vault?: Pick<Vault, 'sync' | 'known'>
  /** Encrypts what per-turn undo keeps of the repository's files; without it undo keeps none. */
  turnBlobs?: BlobCipher
  /** The price table for the cost cap; without it no model is priced (tokens count, cost not). */
  prices?: () => Promise<RunPrices>
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
  /** Why a PreToolUse hook denied a call in this run (the first), if one did. */
  hookDenial(): string | undefined
  /** Reports the run's end to every observer and releases its agents; later calls do nothing. */
  end(status: 'completed' | 'failed' | 'aborted', error?: string): Promise<void>
}

/**
 * The one run path: everything a supervisor run needs, shared by chat turns and background tasks
 * (T10) so both get the same prompt, delegation and tool hooks, recall, execution bounds,
 * final-response guard and run events: one configuration snapshot (config-cache.ts: settings,
 * workspace, agent and skill rows as of one version), the repository of the workspace
 * (contained), the preflight repository brief (a ready brief withholds the researcher for this
 * run only), and the run's agents built from those rows. Once prepared, the run has started
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
    /**
     * A task's own lower limits, and what its tree already used; `unattended` (every task) starts
     * from the unattended cost cap instead of a chat turn's.
     */
    budget?: {
      overrides?: Record<string, number> | null
      used?: Partial<BudgetUsed> | null
      unattended?: boolean
    }
    /** When the driver began (epoch ms), if before preparation: its own checks count too. */
    startedAt?: number
    /**
     * The loop breaker across a task tree: calls taken out of the task this run remediates (by
     * digest, with why), refused from the start; `onBroken` hears each call taken out here.
     */
    loopBreaker?: {
      carried?: ReadonlyMap<string, string>
      onBroken?: (call: BrokenCall) => void
    }
    /** Whether this run preflights a repository brief. */
    preflight?: boolean
    /** Ends the preflight brief early when the client or the task goes away. */
    signal?: AbortSignal
    /** Why this run gets no repository at all (no file tools, shell or brief), when it must not. */
    withoutRepository?: string
    /** Tools for this run's supervisor alone, beyond its row's (a remediation's task tools). */
    supervisorTools?: BuildOptions['supervisorTools']
    /** The configuration the driver already read (the chat's prompt hooks); else read here. */
    config?: ConfigSnapshot
    /**
     * When the run is prepared before it may start (a chat turn prepares while its claim is in
     * flight): nothing is reported, `run-start` included, and no model hears of the run (recall's
     * search waits), until this settles. When it rejects, the agents built are released and its
     * error is thrown: no run was ever reported.
     */
    admission?: Promise<unknown>
  },
): Promise<PreparedRun> {
  const clock = phaseClock(input.startedAt)
  // The driver's own work before preparation (the chat's configuration version).
  if (input.startedAt !== undefined) clock.lap('driver')
  const config = input.config ?? (await deps.config.snapshot())
  const [settings, memorySettings, prices] = await Promise.all([
    config.agentRuntime(),
    config.memory(),
    deps.prices?.() ?? NO_PRICES,
  ])
  clock.lap('settings')
  const route = input.model ?? settings.effectiveDefaultModel
  const workspace = input.withoutRepository ? undefined : await config.workspace(input.workspaceId)
  const { root: workspaceRoot, missing } = workspace
    ? await repositoryOf(deps, workspace)
    : { root: undefined, missing: input.withoutRepository }
  clock.lap('workspace')
  // The brief is built while the agents are built and Mastra loads memory; the supervisor's
  // first step waits for it (prepareStep), so it still reaches the first model call.
  const briefStarted = performance.now()
  const briefing: Promise<Preflight | undefined> =
    workspaceRoot && input.preflight !== false
      ? briefFor(workspaceRoot, input.query, deps, input.signal)
      : Promise.resolve(undefined)
  const run: RunRef = { ...input.run, workspaceId: input.workspaceId }
  // Recall runs beside the brief and the agents; like the brief, the first step waits for it.
  // Its search waits for admission: its vector leg sends the query to the embedding model.
  const recall = deps.recall?.prepare({
    run,
    query: input.query,
    settings: memorySettings,
    ...(input.signal && { signal: input.signal }),
    ...(input.admission && { admitted: input.admission }),
  })
  const recalling = recall?.recalling ?? Promise.resolve(undefined)
  const events = createRunEvents(
    [...(input.observers ?? []), ...deps.observers, ...(recall ? [recall.observer] : [])],
    deps.log,
  )
  const budget = createRunBudget(
    limitsFrom(settings, input.budget?.overrides, input.budget?.unattended === true),
    { used: input.budget?.used ?? null, prices },
  )
  // The model each agent runs on, once the team is built (a specialist may have its own).
  let modelOf = (_agentId: string) => route
  const guards = guardHooks({
    budget,
    repeatLimit: settings.loopRepeatLimit,
    events,
    run,
    ...input.loopBreaker,
  })
  // After the guards (a refused call is never shown to a hook), before everything that reports.
  const gate = deps.hooks
    ? hookToolGate(deps.hooks, events, run, { approvals: deps.approvals, signal: input.signal })
    : undefined
  const team = await deps.agents.build({
    config,
    ...(workspaceRoot
      ? { workspaceRoot, allowExecTriggerWrites: workspace?.allowExecTriggerWrites === true }
      : { workspaceMissing: missing }),
    // A brief ready for implementation withholds the researcher for this run only.
    withheld: briefing.then((b) => (b?.brief.readyForImplementation ? ['researcher'] : [])),
    memory: deps.memory.forSettings(memorySettings),
    ...(input.supervisorTools && { supervisorTools: input.supervisorTools }),
    toolHooks: composeToolHooks([
      toolInputRedaction(deps.redact),
      guards,
      ...(gate ? [gate.hooks] : []),
      ...(input.toolHooks ?? []),
      toolCallEvents(events, run),
    ]),
    specialistOptions: (agentId) => ({
      prepareStep: costCapped(
        reserveFinalStep(
          (rc) => (rc as { get?: (k: string) => unknown })?.get?.(STEP_CEILING_KEY) as number,
          () => settings.finalResponseFeedback,
          (step) => budget.answeringStep(agentId, step),
        ),
        budget,
        { agentId, agentName: agentId, model: () => modelOf(agentId) },
        { events, run },
      ),
      onStepFinish: (step: { usage?: StepUsage }) =>
        budget.stepFinished(step.usage, { agentId, model: modelOf(agentId) }),
      stopWhen: ({ steps }: { steps: readonly unknown[] }) =>
        budget.answered(agentId, steps.length),
    }),
  })
  clock.lap('agents')
  modelOf = (agentId) => team.profiles[agentId]?.modelOverride ?? route
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
  if (input.admission) {
    try {
      await input.admission
    } catch (error) {
      await team.dispose()
      throw error
    }
    // What the run waited for beyond its own preparation (the chat's claim and prompt hooks).
    clock.lap('claim')
  }
  events.emit({
    type: 'run-start',
    run,
    model: route,
    request: input.query,
    preparation: clock.report(),
  })
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
  void recalling.then((outcome) => {
    const event = outcome && recallEvent(run, supervisor, outcome)
    if (event) events.emit(event)
  })
  let ended = false
  return {
    team,
    route,
    settings,
    events,
    budget,
    hookDenial: () => gate?.denial(),
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
        recalling,
        thread,
        signal,
      }),
  }
}
