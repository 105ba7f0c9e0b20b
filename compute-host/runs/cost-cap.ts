import type { AgentExecutionOptions } from '@mastra/core/agent'
import { costUsd, type Price } from '../observability/cost.ts'
import type { RunEvents, RunRef } from './run-events.ts'

// The loop module's own type is not exported; take it from the execution options.
type PrepareStepFunction = NonNullable<AgentExecutionOptions['prepareStep']>

/** A model's price now, or undefined for a model the price table does not know. */
export type PriceLookup = (model: string) => Price | undefined

/** The price table as one run sees it: read once as the run is prepared. */
export type RunPrices = {
  lookup: PriceLookup
  /** Why the table could not be read (no price is then known, and the budget says so). */
  unavailable?: string
}

export const NO_PRICES: RunPrices = { lookup: () => undefined }

/**
 * The most output tokens a priced call may make while a cost cap applies: it is sent as the
 * call's `maxOutputTokens`, so the call's worst case is known before it is made.
 */
export const OUTPUT_RESERVE_TOKENS = 8_192
/**
 * Prompt tokens are estimated from characters before a call, at most this many characters to a
 * token. Tokenizers average 3.5–4 characters per token for English and code; 2 over-counts them,
 * which is the safe side for a cap (a call refused early, never a cap passed).
 */
export const CHARS_PER_TOKEN = 2
/** A tool definition's share of an agent's first prompt (its name, description, JSON Schema). */
export const TOKENS_PER_TOOL = 500

/**
 * The prompt tokens of an agent's next call, before it is made (section 2 of issue 41). The
 * first call of an agent's loop counts its system prompt and messages at one token per two
 * characters plus 500 tokens per tool definition. Every later call of the same loop starts from
 * the prompt tokens the gateway reported for the previous call and adds what was appended since
 * (the model's tool calls and the tool results), again at one token per two characters: a loop's
 * prompt only grows, so the reported figure plus the growth is close to the truth and above it.
 */
export function createPromptEstimator() {
  const last = new Map<string, { chars: number; tokens?: number }>()
  return {
    estimate(agentId: string, stepNumber: number, chars: number, tools: number): number {
      const previous = stepNumber > 0 ? last.get(agentId) : undefined
      last.set(agentId, { chars })
      if (previous?.tokens !== undefined) {
        return previous.tokens + Math.ceil(Math.max(0, chars - previous.chars) / CHARS_PER_TOKEN)
      }
      return Math.ceil(chars / CHARS_PER_TOKEN) + tools * TOKENS_PER_TOOL
    },
    /** The prompt tokens the gateway reported for the agent's call that just finished. */
    reported(agentId: string, inputTokens: number | undefined) {
      const entry = last.get(agentId)
      if (entry && inputTokens !== undefined) entry.tokens = inputTokens
    },
  }
}

/** The most a call can cost: its estimated prompt, and the reserved output, all uncached. */
export function callCeilingUsd(price: Price, inputTokens: number): number {
  return costUsd({ inputTokens, outputTokens: OUTPUT_RESERVE_TOKENS, cachedInputTokens: 0 }, price)
}

/** A cost in the price table's unit, as the owner reads it. */
export function formatCost(usd: number): string {
  return `${usd.toFixed(usd >= 1 ? 2 : 4)} USD`
}

type CostGate = {
  /**
   * Reserves the worst case of an agent's next call: `maxOutputTokens` to send with it, or why
   * it is not made. Unpriced models get neither: only the token budgets count them.
   */
  reserveCall(call: {
    agentId: string
    model: string
    stepNumber: number
    chars: number
    tools: number
  }): { refused?: string; maxOutputTokens?: number }
  priced(model: string): boolean
}

/**
 * The cost cap as a step preparation, around the agent's own: after `inner` has decided the step
 * (its tools, its system messages), the call's worst case is reserved against the cap; a call
 * that would pass the cap is not made: the loop ends there through Mastra's processor abort (a
 * tripwire, with the reason), and every later call of the run is refused the same way. A priced
 * call is sent with `maxOutputTokens`, so its output cannot pass what was reserved.
 */
export function costCapped(
  inner: PrepareStepFunction,
  gate: CostGate,
  who: { agentId: string; agentName: string; model: () => string },
  report: { events: RunEvents; run: RunRef },
): PrepareStepFunction {
  return async (args) => {
    const result = await inner(args)
    const model = who.model()
    // Unpriced (the default local route): nothing to reserve and no prompt to measure.
    if (!gate.priced(model)) return result
    const systemMessages = result?.systemMessages ?? args.systemMessages
    const chars = JSON.stringify(systemMessages).length + JSON.stringify(args.messages).length
    const tools = Object.keys((args as { tools?: object }).tools ?? {}).length
    const call = gate.reserveCall({
      agentId: who.agentId,
      model,
      stepNumber: args.stepNumber,
      chars,
      tools,
    })
    if (call.refused !== undefined) {
      report.events.emit({
        type: 'guard',
        run: report.run,
        guard: 'budget',
        tool: 'model call',
        message: call.refused,
        agentId: who.agentId,
        agentName: who.agentName,
      })
      return args.abort(call.refused, { retry: false })
    }
    return {
      ...result,
      modelSettings: {
        ...args.modelSettings,
        ...result?.modelSettings,
        maxOutputTokens: call.maxOutputTokens,
      },
    }
  }
}
