import type { OutputProcessor } from '@mastra/core/processors'

/**
 * Redacts what an agent's run leaves in Mastra's message list: every string of the messages
 * passes the host's redactor after each tool result (before the model reads it) and once the run
 * ends (before Mastra saves them), so a secret a tool or the model echoed is not stored, nor sent
 * back to the model.
 * Only strings inside plain objects and arrays change; dates and other values are kept as they are.
 */
export function redactingProcessor(redact: (text: string) => string): OutputProcessor {
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value)
    if (Array.isArray(value)) return value.map(clean)
    if (value && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v)]))
    }
    return value
  }
  const cleanAll = <M>(messages: M[]): M[] => messages.map((m) => clean(m) as M)
  return {
    id: 'popagent-redaction',
    // A tool's result, before the model reads it or the stream shows it.
    processToolResult: ({ messages }) => cleanAll(messages),
    processOutputResult: ({ messages }) => cleanAll(messages),
  }
}
