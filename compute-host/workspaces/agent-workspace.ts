import { Workspace, WORKSPACE_TOOLS, type WorkspaceToolsConfig } from '@mastra/core/workspace'
import type { WorkspaceAccess } from '../../runtime/agents/tool-catalog.ts'
import { BoundedSandbox } from './bounded-sandbox.ts'
import { ContainedFilesystem } from './contained-filesystem.ts'

/** Our catalog names for the Mastra workspace tools we offer; every other one stays off. */
export const WORKSPACE_TOOL_NAMES = {
  'workspace-read': WORKSPACE_TOOLS.FILESYSTEM.READ_FILE,
  'workspace-list': WORKSPACE_TOOLS.FILESYSTEM.LIST_FILES,
  'workspace-search': WORKSPACE_TOOLS.FILESYSTEM.GREP,
  'workspace-write': WORKSPACE_TOOLS.FILESYSTEM.WRITE_FILE,
  'workspace-edit': WORKSPACE_TOOLS.FILESYSTEM.EDIT_FILE,
  shell: WORKSPACE_TOOLS.SANDBOX.EXECUTE_COMMAND,
} as const

export type WorkspaceToolName = keyof typeof WORKSPACE_TOOL_NAMES

export function isWorkspaceTool(name: string): name is WorkspaceToolName {
  return Object.hasOwn(WORKSPACE_TOOL_NAMES, name)
}

// The sandbox sees only these variables (Mastra adds PATH): no secrets, no host tokens.
export const SANDBOX_ENV = { HOME: '/tmp', LANG: 'C.UTF-8', CI: '1' }
const SHELL_OUTPUT_TOKENS = 4_000
const MASTRA_NAMES = Object.values(WORKSPACE_TOOLS).flatMap((group) => Object.values(group))

/**
 * One agent's view of the run's repository: the contained filesystem (read-only for read-only
 * roles), and for writable roles that hold `shell`, a bubblewrap sandbox rooted at the repository
 * with the network namespace unshared. Only the tools in the agent's membership are enabled, under
 * our catalog names; writing or editing an existing file needs a current read of it first.
 */
export function createAgentWorkspace(options: {
  agentId: string
  root: string
  access: WorkspaceAccess
  tools: readonly string[]
  sandboxAvailable: boolean
  /** Upper bound of every command's run time. */
  shellTimeoutMs: number
  /** The workspace's owner lets the file tools write files that run code later. */
  allowExecTriggerWrites?: boolean
}): Workspace | undefined {
  if (options.access === 'none') return undefined
  const writable = options.access === 'read-write'
  const held = new Set(options.tools.filter(isWorkspaceTool))
  const shell = writable && held.has('shell') && options.sandboxAvailable
  // Calls are reported by the agent's own tool hooks, which also see workspace tools.
  const config: Record<string, unknown> = {}
  for (const name of MASTRA_NAMES) config[name] = { enabled: false }
  for (const [ours, mastra] of Object.entries(WORKSPACE_TOOL_NAMES)) {
    const write = ours === 'workspace-write' || ours === 'workspace-edit'
    const enabled =
      held.has(ours as WorkspaceToolName) && (ours === 'shell' ? shell : !write || writable)
    config[mastra] = {
      enabled,
      name: ours,
      ...(write && { requireReadBeforeWrite: true }),
      // A flood of output reaches the model cut, with Mastra's visible truncation notice.
      ...(ours === 'shell' && { maxOutputTokens: SHELL_OUTPUT_TOKENS }),
    }
  }
  return new Workspace({
    id: `${options.agentId}-workspace`,
    name: `${options.agentId} workspace`,
    filesystem: new ContainedFilesystem({
      root: options.root,
      readOnly: !writable,
      allowExecTriggerWrites: options.allowExecTriggerWrites === true,
    }),
    ...(shell && {
      sandbox: new BoundedSandbox({
        root: options.root,
        env: SANDBOX_ENV,
        limitMs: options.shellTimeoutMs,
      }),
    }),
    tools: config as WorkspaceToolsConfig,
  })
}
