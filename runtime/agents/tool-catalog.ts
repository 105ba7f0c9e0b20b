import type { BrowserAccess, WorkspaceAccess } from '../../db/schema/agents.ts'

export type { BrowserAccess, WorkspaceAccess }

/**
 * Every tool an agent's `tools` membership may name. The catalog is what validation checks
 * against; the compute host binds each name to an implementation when it builds a run's agents,
 * and a name whose implementation is not available on this host is reported, never faked.
 *
 * `workspace` is the least workspace access the tool needs, `browser` whether it needs browser
 * access; Build tools belong to the AkurAI Build roles only, each role to its own allowlist.
 */

export type ToolEntry = {
  group: 'general' | 'build'
  workspace: WorkspaceAccess
  browser: boolean
  summary: string
}

const general = (workspace: WorkspaceAccess, summary: string, browser = false): ToolEntry => ({
  group: 'general',
  workspace,
  browser,
  summary,
})
const build = (summary: string): ToolEntry => ({
  group: 'build',
  workspace: 'none',
  browser: false,
  summary,
})

export const TOOL_CATALOG = {
  'workspace-read': general('read-only', 'read a repository file'),
  'workspace-list': general('read-only', 'list a repository directory'),
  'workspace-search': general('read-only', 'glob and text search in the repository'),
  'workspace-write': general('read-write', 'create or overwrite a file (after a current read)'),
  'workspace-edit': general('read-write', 'exact-replace edit of a file (after a current read)'),
  shell: general('read-write', 'run a command in the network-off sandbox'),
  'lsp-inspect': general('read-only', 'TypeScript/JavaScript hover, diagnostics, definitions'),
  'repo-brief': general('read-only', 'deterministic relevant paths, exports, tests, changes'),
  'docs-search': general('read-only', 'search the workspace documentation index'),
  'web-search': general('none', 'search the self-hosted SearXNG instance'),
  'memory-search': general('none', 'search long-term memories and earlier sessions'),
  'retain-fact': general('none', 'keep a keyed fact (when automatic fact retention is on)'),
  browser: general('none', 'drive the browser through its MCP catalog', true),
  'build-repositories': build('inspect and maintain Build repositories'),
  'build-runs': build('inspect, queue and cancel Build runs'),
  'build-workers': build('inspect and drain Build workers'),
  'build-cache': build('inspect and prune the Build cache'),
  'build-audit': build('read the Build audit log'),
  'build-pipeline-validate': build('validate pipeline definitions'),
  'build-metrics': build('read Build metrics'),
  'build-community-content': build('maintain Build community content'),
  'build-releases': build('create and publish releases'),
  'build-promote': build('promote a verified build to a protected environment'),
  'build-public-repositories': build('read public Build repositories'),
  'build-issues': build('read, open and label public issues'),
  'build-comments': build('comment on public issues and pull requests'),
} as const satisfies Record<string, ToolEntry>

export type ToolName = keyof typeof TOOL_CATALOG

/** Which Build tools each Build role may hold. A role missing here is a general role. */
export const BUILD_ROLE_ALLOWLISTS: Readonly<Record<string, readonly ToolName[]>> = {
  'build-maintainer': [
    'build-repositories',
    'build-runs',
    'build-workers',
    'build-cache',
    'build-audit',
    'build-pipeline-validate',
    'build-metrics',
    'build-community-content',
  ],
  'build-release-manager': ['build-releases', 'build-promote', 'build-runs', 'build-audit'],
  'community-steward': ['build-public-repositories', 'build-issues', 'build-comments'],
}

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_CATALOG, name)
}
