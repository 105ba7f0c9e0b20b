import { ToolPolicyRefused } from './errors.ts'

export type SelfUpdatePhase = 'research' | 'decide' | 'implement' | 'review'

const READ = ['workspace-read', 'workspace-list', 'workspace-search', 'repo-brief', 'lsp-inspect']

/**
 * The tools each self-update phase may hold, whatever the agents' own settings, prompts or hooks
 * say: research reads, implement reads and edits files, decide and review get nothing. An allow
 * list, so a tool added to the catalog later is off here until someone decides otherwise.
 */
export const PHASE_TOOLS: Readonly<Record<SelfUpdatePhase, readonly string[]>> = {
  research: READ,
  implement: [...READ, 'workspace-write', 'workspace-edit'],
  decide: [],
  review: [],
}

// Why the tools people ask about most are off, so a refusal explains itself.
const DENIED: readonly { test: RegExp; reason: string }[] = [
  { test: /memory|remember|recall|fact/i, reason: 'memory mutation' },
  { test: /secret|credential|vault/i, reason: 'secret access' },
  { test: /browser/i, reason: 'browser use' },
  { test: /web-?search|fetch|http/i, reason: 'network access' },
  { test: /^shell$|command|exec/i, reason: 'an agent shell' },
  { test: /publish|deploy|push|remote/i, reason: 'a remote, publish or deploy step' },
]

export function toolAllowed(phase: SelfUpdatePhase, tool: string): boolean {
  return PHASE_TOOLS[phase].includes(tool)
}

export function refuseTool(phase: SelfUpdatePhase, tool: string): void {
  if (toolAllowed(phase, tool)) return
  const reason = DENIED.find((d) => d.test.test(tool))?.reason ?? `a tool outside the ${phase} list`
  throw new ToolPolicyRefused(
    { phase, tool, reason },
    { message: `self-update ${phase} may not use ${tool}: the policy forbids ${reason}` },
  )
}
