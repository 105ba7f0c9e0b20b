/**
 * Token usage over one run: the supervisor and every specialist it delegated to, per model and per
 * agent. Both, because agents share models: per model alone, a supervisor and a specialist on the
 * same route would merge into one figure.
 */
export function createUsageMeter() {
  const byModel: Record<string, { inputTokens: number; outputTokens: number }> = {}
  const byAgent: Record<string, { model: string; inputTokens: number; outputTokens: number }> = {}
  return {
    add(
      model: string,
      usage: { inputTokens?: number | undefined; outputTokens?: number | undefined },
      agentId?: string,
    ) {
      const entry = (byModel[model] ??= { inputTokens: 0, outputTokens: 0 })
      entry.inputTokens += usage.inputTokens ?? 0
      entry.outputTokens += usage.outputTokens ?? 0
      if (agentId === undefined) return
      const agent = (byAgent[agentId] ??= { model, inputTokens: 0, outputTokens: 0 })
      agent.inputTokens += usage.inputTokens ?? 0
      agent.outputTokens += usage.outputTokens ?? 0
    },
    snapshot: () => copyEntries(byModel),
    byAgent: () => copyEntries(byAgent),
  }
}

/**
 * A copy of each entry, so a snapshot sent or kept never moves with later steps. Entries are flat,
 * so a spread is a deep copy; `structuredClone` cost about 30 µs a call, and a turn's metadata
 * asks five times or more.
 */
function copyEntries<T extends object>(entries: Record<string, T>): Record<string, T> {
  const copy: Record<string, T> = {}
  for (const [key, entry] of Object.entries(entries)) copy[key] = { ...entry }
  return copy
}

export type UsageMeter = ReturnType<typeof createUsageMeter>
