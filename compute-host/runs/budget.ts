import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'
import { costUsd } from '../observability/cost.ts'
import {
  callCeilingUsd,
  createPromptEstimator,
  formatCost,
  NO_PRICES,
  OUTPUT_RESERVE_TOKENS,
  type RunPrices,
} from './cost-cap.ts'

/** What one chat turn or task tree may spend, counted across the supervisor and specialists. */
export type RunLimits = {
  inputTokens: number
  outputTokens: number
  toolCalls: number
  wallTimeMs: number
  /** The cost cap, in the price table's unit (USD): priced model calls only (cost-cap.ts). */
  costUsd: number
  /** 0: the supervisor works alone; 1: it may delegate (specialists never do). */
  delegationDepth: number
}

export type BudgetUsed = {
  inputTokens: number
  outputTokens: number
  toolCalls: number
  wallTimeMs: number
  /** What the priced calls cost; calls on a model with no price count under the tokens only. */
  costUsd: number
}

export type BudgetKind = keyof BudgetUsed

export type BudgetSnapshot = {
  used: BudgetUsed
  limits: RunLimits
  /** The first limit reached, once one is. */
  exhausted?: BudgetKind
  /** Why the loop breaker ended the whole run, once it did. */
  loopStopped?: string
  /** Models this run called that have no price: the cost cap does not count them. */
  unpricedModels?: string[]
  /** Why the price table could not be read: no call of this run is priced. */
  pricesUnavailable?: string
}

const NAMES: Record<BudgetKind, string> = {
  inputTokens: 'input tokens',
  outputTokens: 'output tokens',
  toolCalls: 'tool calls',
  wallTimeMs: 'wall time',
  costUsd: 'cost',
}

/**
 * The settings' limits, lowered by a task's own overrides where it has them. Unattended work
 * (every task: the owner's, schedules', self-update's, evolution's, remediations) starts from
 * the unattended cost cap, which the settings keep lower than a chat turn's.
 */
export function limitsFrom(
  settings: Pick<
    AgentRuntimeSettings,
    | 'budgetInputTokens'
    | 'budgetOutputTokens'
    | 'budgetToolCalls'
    | 'budgetWallTimeMs'
    | 'budgetDelegationDepth'
    | 'budgetCostUsd'
    | 'budgetUnattendedCostUsd'
  >,
  overrides: Partial<Record<string, number>> | null = null,
  unattended = false,
): RunLimits {
  const lower = (key: string, value: number) => Math.min(value, overrides?.[key] ?? value)
  return {
    inputTokens: lower('budgetInputTokens', settings.budgetInputTokens),
    outputTokens: lower('budgetOutputTokens', settings.budgetOutputTokens),
    toolCalls: lower('budgetToolCalls', settings.budgetToolCalls),
    wallTimeMs: lower('budgetWallTimeMs', settings.budgetWallTimeMs),
    costUsd: lower(
      'budgetCostUsd',
      unattended ? settings.budgetUnattendedCostUsd : settings.budgetCostUsd,
    ),
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
 *
 * Cost is the one limit checked before the spending: each call on a priced model first reserves
 * its worst case (`reserveCall`, the rule in cost-cap.ts) and the call that would pass the cap is
 * not made, so cost never passes it. A reservation is held until that agent's step finishes (a
 * supervisor's step that delegated finishes after its specialist), then replaced by what the
 * gateway reported. Calls on a model with no price count under the token limits only.
 */
export function createRunBudget(
  limits: RunLimits,
  options: {
    used?: Partial<BudgetUsed> | null
    now?: () => number
    prices?: RunPrices
  } = {},
) {
  const prices = options.prices ?? NO_PRICES
  const estimator = createPromptEstimator()
  // The worst cases of calls made and not yet reported, per agent, oldest first.
  const reserved = new Map<string, number[]>()
  let reservedUsd = 0
  const unpriced = new Set<string>()
  let costStopped: string | undefined
  const now = options.now ?? Date.now
  const startedAt = now() - (options.used?.wallTimeMs ?? 0)
  const used = {
    inputTokens: options.used?.inputTokens ?? 0,
    outputTokens: options.used?.outputTokens ?? 0,
    toolCalls: options.used?.toolCalls ?? 0,
    costUsd: options.used?.costUsd ?? 0,
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
    if (costStopped !== undefined) return (exhausted = 'costUsd')
    const limit: Record<BudgetKind, number> = {
      inputTokens: limits.inputTokens,
      outputTokens: limits.outputTokens,
      toolCalls: limits.toolCalls,
      wallTimeMs: limits.wallTimeMs,
      costUsd: limits.costUsd,
    }
    exhausted = (Object.keys(limit) as BudgetKind[]).find((k) => u[k] >= limit[k])
    return exhausted
  }
  return {
    limits,
    /**
     * A finished step of one agent (the supervisor, a specialist) on `model` and what it used:
     * its reservation, if it had one, is replaced by what it cost.
     */
    stepFinished(
      usage:
        | {
            inputTokens?: number | undefined
            outputTokens?: number | undefined
            cachedInputTokens?: number | undefined
          }
        | undefined,
      agent?: { agentId: string; model: string },
    ) {
      used.inputTokens += usage?.inputTokens ?? 0
      used.outputTokens += usage?.outputTokens ?? 0
      if (agent) {
        const held = reserved.get(agent.agentId)?.shift()
        if (held !== undefined) reservedUsd -= held
        estimator.reported(agent.agentId, usage?.inputTokens)
        const price = prices.lookup(agent.model)
        if (price) {
          const cost = costUsd(
            {
              inputTokens: usage?.inputTokens ?? 0,
              outputTokens: usage?.outputTokens ?? 0,
              cachedInputTokens: usage?.cachedInputTokens ?? 0,
            },
            price,
          )
          used.costUsd = Math.round((used.costUsd + cost) * 1e8) / 1e8
        } else unpriced.add(agent.model)
      }
      check()
    },
    /** Whether the cost cap counts calls on this model (it has a price). */
    priced(model: string): boolean {
      if (prices.lookup(model)) return true
      unpriced.add(model)
      return false
    },
    /**
     * Before a call on a priced model: its worst case is reserved, or the call is refused
     * because it could pass the cap (and every later call of the run with it).
     */
    reserveCall(call: {
      agentId: string
      model: string
      stepNumber: number
      chars: number
      tools: number
    }): { refused?: string; maxOutputTokens?: number } {
      const price = prices.lookup(call.model)
      if (!price) return {}
      if (costStopped !== undefined) return { refused: costStopped }
      const inputTokens = estimator.estimate(call.agentId, call.stepNumber, call.chars, call.tools)
      const ceiling = callCeilingUsd(price, inputTokens)
      const committed = used.costUsd + reservedUsd
      if (committed + ceiling > limits.costUsd) {
        costStopped = `The cost cap of this run was reached: ${formatCost(committed)} of ${formatCost(limits.costUsd)} is spent or held, and the next call (${call.model}, about ${inputTokens} prompt tokens and up to ${OUTPUT_RESERVE_TOKENS} output tokens) could cost up to ${formatCost(ceiling)}, which would pass it, so it was not made.`
        check()
        return { refused: costStopped }
      }
      const list = reserved.get(call.agentId) ?? []
      list.push(ceiling)
      reserved.set(call.agentId, list)
      reservedUsd += ceiling
      return { maxOutputTokens: OUTPUT_RESERVE_TOKENS }
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
        ...(unpriced.size > 0 && { unpricedModels: [...unpriced].sort() }),
        ...(prices.unavailable !== undefined && { pricesUnavailable: prices.unavailable }),
      }
    },
    /** What the model and the user are told when the budget ended. */
    endedMessage(): string | undefined {
      const kind = check()
      if (!kind) return loopStopped
      if (kind === 'costUsd' && costStopped !== undefined) return costStopped
      const u = current()
      const shown = (k: BudgetKind, n: number) =>
        k === 'wallTimeMs'
          ? `${Math.round(n / 1000)} s`
          : k === 'costUsd'
            ? formatCost(n)
            : String(n)
      const value = (k: BudgetKind) => shown(k, u[k])
      const limit = shown(kind, limits[kind])
      return `The budget of this run has ended: ${NAMES[kind]} used ${value(kind)} of ${limit}. Do not call any tools. Answer now with what you have, and say plainly what is unfinished.`
    },
  }
}

export type RunBudget = ReturnType<typeof createRunBudget>
