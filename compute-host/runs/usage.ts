/** Token usage per model over one turn: the supervisor and every specialist it delegated to. */
export function createUsageMeter() {
  const byModel: Record<string, { inputTokens: number; outputTokens: number }> = {}
  return {
    add(model: string, usage: { inputTokens?: number; outputTokens?: number }) {
      const entry = (byModel[model] ??= { inputTokens: 0, outputTokens: 0 })
      entry.inputTokens += usage.inputTokens ?? 0
      entry.outputTokens += usage.outputTokens ?? 0
    },
    snapshot: () => structuredClone(byModel),
  }
}

export type UsageMeter = ReturnType<typeof createUsageMeter>
