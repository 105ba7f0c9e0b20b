import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'

/** What one chat turn or task tree may spend, counted across the supervisor and specialists. */
export type RunLimits = {
  inputTokens: number
  outputTokens: number
  toolCalls: number
  wallTimeMs: number
  /** 0: the supervisor works alone; 1: it may delegate (specialists never do). */
  delegationDepth: number
}

export type BudgetUsed = {
  inputTokens: number
  outputTokens: number
  toolCalls: number
  wallTimeMs: number
}

export type BudgetKind = keyof BudgetUsed

export type BudgetSnapshot = {
  used: BudgetUsed
  limits: RunLimits
  /** The first limit reached, once one is. */
  exhausted?: BudgetKind
  /** Why the loop breaker ended the whole run, once it did. */
  loopStopped?: string
}

const NAMES: Record<BudgetKind, string> = {
  inputTokens: 'input tokens',
  outputTokens: 'output tokens',
  toolCalls: 'tool calls',
  wallTimeMs: 'wall time',
}

/** The settings' limits, lowered by a task's own overrides where it has them. */
export function limitsFrom(
  settings: Pick<
    AgentRuntimeSettings,
    | 'budgetInputTokens'
    | 'budgetOutputTokens'
    | 'budgetToolCalls'
    | 'budgetWallTimeMs'
    | 'budgetDelegationDepth'
  >,
  overrides: Partial<Record<string, number>> | null = null,
): RunLimits {
  const lower = (key: string, value: number) => Math.min(value, overrides?.[key] ?? value)
  return {
    inputTokens: lower('budgetInputTokens', settings.budgetInputTokens),
    outputTokens: lower('budgetOutputTokens', settings.budgetOutputTokens),
    toolCalls: lower('budgetToolCalls', settings.budgetToolCalls),
    wallTimeMs: lower('budgetWallTimeMs', settings.budgetWallTimeMs),
    delegationDepth: settings.budgetDelegationDepth,
  }
}

/**
 * The budget of one run (B1). Tokens are added as each step of any agent finishes; a tool call
 * is claimed before it runs, so tool calls never pass their limit; wall time counts from the
 * run's start plus what earlier runs of the same task tree used. Once any limit is reached the
 * budget is exhausted for good: the run's agents get one tool-free step to answer
 * (final-step.ts), tool calls are refused (guard-hooks.ts), and the driver marks the result.
 * Tokens can pass their limit by what the steps in flight at that moment use (at most one step of
 * a specialist and one of the supervisor).
 */
export function createRunBudget(
  limits: RunLimits,
  options: { used?: Partial<BudgetUsed> | null; now?: () => number } = {},
) {
  const now = options.now ?? Date.now
  const startedAt = now() - (options.used?.wallTimeMs ?? 0)
  const used = {
    inputTokens: options.used?.inputTokens ?? 0,
    outputTokens: options.used?.outputTokens ?? 0,
    toolCalls: options.used?.toolCalls ?? 0,
  }
  let exhausted: BudgetKind | undefined
  // The step number each agent was given as its answering step, once the budget had ended or
  // the loop breaker stopped it.
  const answeringStep = new Map<string, number>()
  // Agents the loop breaker stopped, with what they are told; the second one ends the run.
  const stopped = new Map<string, string>()
  let loopStopped: string | undefined
  const current = (): BudgetUsed => ({ ...used, wallTimeMs: now() - startedAt })
  const check = (): BudgetKind | undefined => {
    if (exhausted) return exhausted
    const u = current()
    const limit: Record<BudgetKind, number> = {
      inputTokens: limits.inputTokens,
      outputTokens: limits.outputTokens,
      toolCalls: limits.toolCalls,
      wallTimeMs: limits.wallTimeMs,
    }
    exhausted = (Object.keys(limit) as BudgetKind[]).find((k) => u[k] >= limit[k])
    return exhausted
  }
  return {
    limits,
    /** A finished step of one agent (the supervisor, a specialist) and what it used. */
    stepFinished(
      usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined,
    ) {
      used.inputTokens += usage?.inputTokens ?? 0
      used.outputTokens += usage?.outputTokens ?? 0
      check()
    },
    /**
     * Called as an agent prepares step `stepNumber` (0-based): once the budget has ended, this
     * step is the agent's answering step, and the message says so.
     */
    answeringStep(agentId: string, stepNumber: number): string | undefined {
      const message = this.endedMessage() ?? stopped.get(agentId)
      // A lower step number than the one kept is the agent's next loop (a specialist delegated
      // again): its answering step is this one.
      const kept = answeringStep.get(agentId)
      if (message !== undefined && (kept === undefined || stepNumber < kept)) {
        answeringStep.set(agentId, stepNumber)
      }
      return message
    },
    /**
     * The loop breaker stops one agent: its next step is its answering step, with no tools and
     * `message` saying why (a specialist then returns to the supervisor with that answer). The
     * second agent stopped in one run ends the run: every agent answers, no tool runs.
     */
    stopAgent(agentId: string, message: string) {
      if (stopped.has(agentId)) return
      stopped.set(agentId, message)
      if (stopped.size >= 2 && loopStopped === undefined) {
        loopStopped = `The loop breaker stopped ${[...stopped.keys()].join(' and ')}, each repeating a call it had refused, so this run ends. Do not call any tools. Answer now with what you have, and say plainly what is unfinished.`
      }
    },
    /**
     * Whether the agent's answering step is done, given how many steps its loop has finished: the
     * loop stops there, even if the model asked for tools anyway.
     */
    answered(agentId: string, stepsDone: number): boolean {
      const step = answeringStep.get(agentId)
      return step !== undefined && stepsDone > step
    },
    /** Counts a tool call about to run; false (and nothing counted) when none is left. */
    claimToolCall(): boolean {
      if (check() || loopStopped !== undefined) return false
      used.toolCalls += 1
      return true
    },
    /** The limit reached, if one is (wall time is looked at now). */
    exhausted: check,
    snapshot(): BudgetSnapshot {
      const kind = check()
      return {
        used: current(),
        limits,
        ...(kind && { exhausted: kind }),
        ...(loopStopped !== undefined && { loopStopped }),
      }
    },
    /** What the model and the user are told when the budget ended. */
    endedMessage(): string | undefined {
      const kind = check()
      if (!kind) return loopStopped
      const u = current()
      const value = (k: BudgetKind) =>
        k === 'wallTimeMs' ? `${Math.round(u[k] / 1000)} s` : String(u[k])
      const limit = kind === 'wallTimeMs' ? `${Math.round(limits[kind] / 1000)} s` : limits[kind]
      return `The budget of this run has ended: ${NAMES[kind]} used ${value(kind)} of ${limit}. Do not call any tools. Answer now with what you have, and say plainly what is unfinished.`
    },
  }
}

export type RunBudget = ReturnType<typeof createRunBudget>
