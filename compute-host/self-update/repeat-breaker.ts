import type { ToolHooks } from '@mastra/core/tools'

export const REPEAT_LIMIT = 3

/**
 * Ends a phase whose agent makes the same tool call (same tool, same arguments) a third time: a
 * model going round in circles inside a contained run is stopped rather than left to spend its
 * forty steps. The third call is not run; `stop` is told why, and the phase fails with it.
 */
export function repeatBreaker(stop: (reason: string) => void): ToolHooks {
  const seen = new Map<string, number>()
  return {
    beforeToolCall: ({ toolName, input }) => {
      const key = `${toolName}\u0000${JSON.stringify(input ?? null)}`
      const count = (seen.get(key) ?? 0) + 1
      seen.set(key, count)
      if (count < REPEAT_LIMIT) return undefined
      const reason = `the agent called ${toolName} with the same arguments ${count} times`
      stop(reason)
      return { proceed: false as const, output: { error: `${reason}; the phase is stopped` } }
    },
  }
}
