import type { ToolAction } from '@mastra/core/tools'
import type { AgentRow } from '../../runtime/agents/index.ts'
import type { ToolName } from '../../runtime/agents/tool-catalog.ts'
import type { ConfigSnapshot } from '../config-cache.ts'

// Mastra's tool type; inputs and outputs differ per tool.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolAction<any, any, any, any, any, any, unknown>

/** A tool bound for one agent, or the reason it cannot be on this host right now. */
export type BoundTool = { ok: true; tool: AnyTool } | { ok: false; reason: string }

export type ToolProvider = {
  bind(name: ToolName, agent: AgentRow): BoundTool
  /** The provider for one run, whose tools may depend on that run's configuration. */
  forRun?(config: ConfigSnapshot): Promise<ToolProvider>
}

export type ToolImplementation = (agent: AgentRow) => BoundTool

/**
 * A tool decided per run from the run's configuration snapshot (the browser: its global setting
 * is read on every run, and its operations come from the server's live catalog).
 */
export type RunToolImplementation = (config: ConfigSnapshot) => Promise<ToolImplementation>

/**
 * Binds catalog names to the implementations this host has. A name with none is reported as
 * unavailable with that reason, never replaced by a stand-in: the agent simply does not get it,
 * and the run's report says so.
 */
export function createToolProvider(
  implementations: Partial<Record<ToolName, ToolImplementation>>,
  perRun: Partial<Record<ToolName, RunToolImplementation>> = {},
): ToolProvider {
  const runNames = Object.keys(perRun) as ToolName[]
  const provider: ToolProvider = {
    bind(name, agent) {
      const implementation = implementations[name]
      if (!implementation) return { ok: false, reason: `"${name}" is not installed on this host` }
      return implementation(agent)
    },
    async forRun(config) {
      if (runNames.length === 0) return provider
      const decided = await Promise.all(
        runNames.map(async (name) => [name, await perRun[name]!(config)]),
      )
      return createToolProvider({ ...implementations, ...Object.fromEntries(decided) })
    },
  }
  return provider
}
