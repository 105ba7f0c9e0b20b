import type { ToolName } from '../../runtime/agents/tool-catalog.ts'

/**
 * Which operations of the AkurAI Build MCP server each `build-*` tool of the catalog may call.
 * A tool offers the model only those of its operations the connected server lists in
 * `tools/list`; one the server lacks is reported unavailable, never imitated. The names are the
 * contract popagent expects of the Build server (docs/build.md); a server that names an
 * operation differently simply leaves it unavailable here.
 *
 * `mutates` marks what changes Build state; `promotion` what moves a build into a protected
 * environment (release manager only, never in a task run).
 */
export type BuildOperation = { name: string; mutates: boolean; promotion?: true }

const read = (name: string): BuildOperation => ({ name, mutates: false })
const write = (name: string): BuildOperation => ({ name, mutates: true })

export const BUILD_OPERATIONS = {
  'build-repositories': [
    read('repositories_list'),
    read('repositories_get'),
    write('repositories_update'),
  ],
  'build-runs': [read('runs_list'), read('runs_get'), write('runs_queue'), write('runs_cancel')],
  'build-workers': [read('workers_list'), write('workers_drain')],
  'build-cache': [read('cache_stats'), write('cache_prune')],
  'build-audit': [read('audit_list')],
  'build-pipeline-validate': [read('pipelines_validate')],
  'build-metrics': [read('metrics_get')],
  'build-community-content': [read('community_content_list'), write('community_content_update')],
  'build-releases': [read('releases_list'), write('releases_create'), write('releases_publish')],
  'build-promote': [{ name: 'environments_promote', mutates: true, promotion: true }],
  'build-public-repositories': [read('public_repositories_list'), read('public_repositories_get')],
  'build-issues': [
    read('issues_list'),
    read('issues_get'),
    write('issues_create'),
    write('issues_label'),
  ],
  'build-comments': [write('comments_create')],
} as const satisfies Partial<Record<ToolName, readonly BuildOperation[]>>

export type BuildToolName = keyof typeof BUILD_OPERATIONS

export function isBuildToolName(name: string): name is BuildToolName {
  return Object.hasOwn(BUILD_OPERATIONS, name)
}
