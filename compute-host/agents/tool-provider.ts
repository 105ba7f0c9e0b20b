import type { ToolAction } from '@mastra/core/tools'
import type { AgentRow } from '../../runtime/agents/index.ts'
import type { ToolName } from '../../runtime/agents/tool-catalog.ts'

// Mastra's tool type; inputs and outputs differ per tool.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolAction<any, any, any, any, any, any, unknown>

/** A tool bound for one agent, or the reason it cannot be on this host right now. */
export type BoundTool = { ok: true; tool: AnyTool } | { ok: false; reason: string }

export type ToolProvider = { bind(name: ToolName, agent: AgentRow): BoundTool }

export type ToolImplementation = (agent: AgentRow) => BoundTool

/**
 * Binds catalog names to the implementations this host has. A name with none is reported as
 * unavailable with that reason, never replaced by a stand-in: the agent simply does not get it,
 * and the run's report says so.
 */
export function createToolProvider(
  implementations: Partial<Record<ToolName, ToolImplementation>>,
): ToolProvider {
  return {
    bind(name, agent) {
      const implementation = implementations[name]
      if (!implementation) return { ok: false, reason: `"${name}" is not installed on this host` }
      return implementation(agent)
    },
  }
}
