import type { InputProcessor, OutputProcessor } from '@mastra/core/processors'
import { redactValue } from '../../runtime/redact-value.ts'

/**
 * Keeps known secrets out of an agent's message list, which is what the model reads next and what
 * Mastra saves. Each agent of a run has its own (the delegations' specialists too), as an input
 * and an output processor, at four points:
 *
 * - after each model step, before its tools run and before Mastra saves the step: the new
 *   response messages (text the model wrote, the arguments of its tool calls);
 * - after each tool, before its result enters the list: the result. Mastra 1.71 calls
 *   `processToolResult` before it appends the result and then takes the result it finds in the
 *   list for this call, so the redacted result is written there first; returning messages would
 *   change nothing, since the result is not among them yet;
 * - before each model step: what the model is about to read. A tool with `toModelOutput` (the
 *   shell's output, shortened for the model) has that text made from the raw result and kept
 *   beside it in the message's provider metadata, where the previous point cannot reach it. The
 *   first step also covers the messages memory brought in, saved before a secret was known;
 * - once the run ends, before Mastra saves it: everything.
 *
 * Messages that hold no secret are handed back as the same objects (`redactValue`), so Mastra
 * replaces only the ones that changed.
 */
export function redactingProcessor(
  redact: (text: string) => string,
): InputProcessor & OutputProcessor {
  return {
    id: 'popagent-redaction',
    processInputStep: ({ messages, messageList, stepNumber }) => {
      if (stepNumber === 0) return messages.map((m) => redactValue(m, redact))
      const fresh = new Set(messageList.get.response.db().map((m) => m.id))
      return messages.map((m) => (fresh.has(m.id) ? redactValue(m, redact) : m))
    },
    processOutputStep: ({ messages, messageList }) => {
      const fresh = new Set(messageList.get.response.db().map((m) => m.id))
      return messages.map((m) => (fresh.has(m.id) ? redactValue(m, redact) : m))
    },
    processToolResult: ({ messageList, toolCallId, toolName, args, result }) => {
      const redacted = redactValue(result, redact)
      if (redacted === result) return
      messageList.updateToolInvocation({
        type: 'tool-invocation',
        toolInvocation: { state: 'result', toolCallId, toolName, args, result: redacted },
      })
    },
    processOutputResult: ({ messages }) => messages.map((m) => redactValue(m, redact)),
  }
}
