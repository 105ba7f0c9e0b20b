import { AppError } from '../errors.ts'
import {
  BUILD_ROLE_ALLOWLISTS,
  isToolName,
  TOOL_CATALOG,
  type BrowserAccess,
  type WorkspaceAccess,
} from './tool-catalog.ts'

export const InvalidToolMembership = AppError.define(
  'INVALID_TOOL_MEMBERSHIP',
  400,
  'the agent cannot hold this tool',
)

const ACCESS_RANK: Record<WorkspaceAccess, number> = { none: 0, 'read-only': 1, 'read-write': 2 }

export type ToolHolder = {
  id: string
  workspaceAccess: WorkspaceAccess
  browserAccess: BrowserAccess
  tools: readonly string[]
}

/** Why `agent` may not hold `tool`, or null when it may. */
export function toolRefusal(agent: ToolHolder, tool: string): string | null {
  if (!isToolName(tool)) return `"${tool}" is not a known tool`
  const entry = TOOL_CATALOG[tool]
  if (entry.group === 'build') {
    const allowlist = BUILD_ROLE_ALLOWLISTS[agent.id]
    if (!allowlist) return `"${tool}" is a Build tool and "${agent.id}" is not a Build role`
    if (!allowlist.includes(tool)) return `"${tool}" is outside the "${agent.id}" allowlist`
  }
  if (ACCESS_RANK[entry.workspace] > ACCESS_RANK[agent.workspaceAccess]) {
    return `"${tool}" needs ${entry.workspace} workspace access and "${agent.id}" has ${agent.workspaceAccess}`
  }
  if (entry.browser && agent.browserAccess === 'none') {
    return `"${tool}" needs browser access and "${agent.id}" has none`
  }
  return null
}

/**
 * Checks a whole membership (after a PATCH is merged, so access changes are checked against the
 * tools the agent keeps). Throws a 400 naming the first refused tool, and every refusal in `data`.
 */
export function assertToolMembership(agent: ToolHolder): void {
  const duplicates = agent.tools.filter((t, i) => agent.tools.indexOf(t) !== i)
  const refusals = agent.tools.flatMap((tool) => {
    const reason = toolRefusal(agent, tool)
    return reason ? [{ tool, reason }] : []
  })
  for (const tool of new Set(duplicates))
    refusals.push({ tool, reason: `"${tool}" is listed twice` })
  const first = refusals[0]
  if (first) throw new InvalidToolMembership({ refusals }, { message: first.reason })
}
