import type { AgentRow } from '../../runtime/agents/index.ts'
import {
  BUILD_ROLE_ALLOWLISTS,
  TOOL_CATALOG,
  isToolName,
} from '../../runtime/agents/tool-catalog.ts'
import type { ToolCheck } from '../agents/tool-availability.ts'

/**
 * Why a Build role is not offered for delegation in this run, or undefined. A Build role exists
 * to use Build; when none of its Build tools can run here (Build disabled, unreachable, or its
 * operations missing) a request sent to it could only fail, so the supervisor does not see it.
 */
export function buildRoleWithheld(
  row: AgentRow,
  check: (tool: string) => ToolCheck,
): string | undefined {
  if (!BUILD_ROLE_ALLOWLISTS[row.id]) return undefined
  const buildTools = row.tools.filter((t) => isToolName(t) && TOOL_CATALOG[t].group === 'build')
  const reasons: string[] = []
  for (const tool of buildTools) {
    const result = check(tool)
    if (result.kind !== 'unavailable') return undefined
    reasons.push(result.reason)
  }
  return `${row.id} is not offered: none of its AkurAI Build tools can run here (${reasons[0] ?? 'it holds none'})`
}
