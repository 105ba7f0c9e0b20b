import type { AgentRow } from '../../runtime/agents/index.ts'
import { isToolName } from '../../runtime/agents/tool-catalog.ts'
import type { ToolStatus } from '../../runtime/contracts/agents.ts'
import { isWorkspaceTool } from '../workspaces/agent-workspace.ts'
import type { SandboxStatus } from '../workspaces/sandbox-check.ts'
import type { AnyTool, ToolProvider } from './tool-provider.ts'

/** What this host has, independent of any one run. */
export type HostToolContext = { sandbox: SandboxStatus; tools: ToolProvider }

/**
 * This host's answer for one tool an agent holds, before any run: bound (a registry tool, ready),
 * carried by the run's repository workspace (`repository`; the language server among them), or
 * unavailable with the reason. The factory builds every run from this answer and the agent editor
 * shows it, so the list the owner sees is the list the model gets.
 */
export type ToolCheck =
  | { kind: 'bound'; tool: AnyTool }
  | { kind: 'repository' }
  | { kind: 'unavailable'; reason: string }

export function checkTool(name: string, row: AgentRow, host: HostToolContext): ToolCheck {
  if (isWorkspaceTool(name) || name === 'lsp-inspect') {
    // The language server runs in the same sandbox as the shell, or not at all.
    if ((name === 'shell' || name === 'lsp-inspect') && !host.sandbox.available) {
      return { kind: 'unavailable', reason: host.sandbox.reason }
    }
    return { kind: 'repository' }
  }
  if (!isToolName(name)) return { kind: 'unavailable', reason: `"${name}" is not a known tool` }
  const binding = host.tools.bind(name, row)
  return binding.ok
    ? { kind: 'bound', tool: binding.tool }
    : { kind: 'unavailable', reason: binding.reason }
}

/** The wire form of `checkTool`, for every tool the agent holds, in its order. */
export function toolStatuses(row: AgentRow, host: HostToolContext): ToolStatus[] {
  return row.tools.map((tool) => {
    const check = checkTool(tool, row, host)
    if (check.kind === 'unavailable') return { tool, available: false, reason: check.reason }
    return { tool, available: true, needsRepository: check.kind === 'repository' }
  })
}
