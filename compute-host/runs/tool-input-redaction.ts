import { redactInPlace } from '../../runtime/redact-value.ts'
import type { AgentToolHooks } from './tool-hooks.ts'

/**
 * Redacts a tool call's arguments before anything acts on them: the first of a run's tool hooks,
 * so guards, the owner's hooks, the activity log and the tool itself all see the same redacted
 * input. A model that was steered into putting a known secret into an argument (a search query,
 * a shell command, a delegation's prompt) sends `[REDACTED]` instead. Mastra hands the hook and
 * `execute` the same arguments object and the hook cannot replace it, so its strings are
 * replaced where they are.
 */
export function toolInputRedaction(redact: (text: string) => string): AgentToolHooks {
  return () => ({
    beforeToolCall: ({ input }) => {
      redactInPlace(input, redact)
    },
  })
}
