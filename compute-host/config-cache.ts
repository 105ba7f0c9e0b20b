import { configVersion } from '../db/schema/index.ts'
import type { HookEvent } from '../db/hook-enums.ts'
import type { Db } from '../db/index.ts'
import * as Agents from '../runtime/agents/index.ts'
import type { AgentRow } from '../runtime/agents/index.ts'
import * as Skills from '../runtime/agents/skills.ts'
import type { SkillRow } from '../runtime/agents/skills.ts'
import type {
  AgentRuntimeSettings,
  BrowserSettings,
  MemorySettings,
} from '../runtime/contracts/settings.ts'
import type { Workspace } from '../runtime/contracts/workspaces.ts'
import * as Hooks from '../runtime/hooks/index.ts'
import * as McpServers from '../runtime/mcp-servers/index.ts'
import type { McpServerRow } from '../runtime/mcp-servers/index.ts'
import * as Overlays from '../runtime/evolution/overlays.ts'
import * as Settings from '../runtime/settings/index.ts'
import * as Workspaces from '../runtime/workspaces/index.ts'
import { deepFreeze } from '../runtime/deep-freeze.ts'

/**
 * The configuration one run reads, as of one version of it. Every value is loaded at most once
 * per version and shared by every run that sees that version, so it is frozen: a caller that
 * tried to change it would change other runs' configuration.
 */
export type ConfigSnapshot = {
  /** The counter this snapshot was read at; null when the counter row is missing (no caching). */
  readonly version: number | null
  agentRuntime(): Promise<AgentRuntimeSettings>
  memory(): Promise<MemorySettings>
  browser(): Promise<BrowserSettings>
  workspace(id: string): Promise<Workspace>
  /** Every agent row, the supervisor first. */
  agentRows(): Promise<readonly AgentRow[]>
  enabledSkillRows(): Promise<readonly SkillRow[]>
  /** Every agent's active learned overlays (evolution), composed after its instructions. */
  learnedOverlays(): Promise<readonly Overlays.ActiveOverlay[]>
  /** An event's enabled hooks, in merge order. */
  enabledHooks(event: HookEvent): Promise<readonly Hooks.HookRow[]>
  /** The owner's MCP server definitions (migration 0041 moves the counter on their writes). */
  mcpServerRows(): Promise<readonly McpServerRow[]>
}

export type ConfigCache = {
  /** One query: the counter. The rows are loaded only when it moved since they were kept. */
  snapshot(): Promise<ConfigSnapshot>
}

type Values = Map<string, Promise<unknown>>

/**
 * Keeps the run's configuration in memory per version of the `popagent_config_version` counter,
 * which triggers move forward in every writer's own transaction (migration 0017). A run used to
 * read seven row sets (settings twice, its workspace, agents, skills, and hooks per event) on
 * every turn, and the owner's MCP servers another; now it reads the counter, and an edit still applies to the next run, whichever
 * process made it.
 *
 * Why nothing stale is ever kept: a generation is filled only by snapshots that read its own
 * version, and each value is loaded after that read, so it is at least that version's. A snapshot
 * that read an older counter than the newest kept (two reads crossing) fills a generation of its
 * own, thrown away after it, rather than sending the next runs back to reload.
 */
export function createConfigCache(db: Db): ConfigCache {
  let newest: { version: number; values: Values } | undefined

  async function readVersion(): Promise<number | null> {
    const [row] = await db.select({ version: configVersion.version }).from(configVersion)
    return row?.version ?? null
  }

  /** The values kept for `version`: the newest generation's, or a throwaway set. */
  function valuesFor(version: number | null): Values {
    if (version === null) return new Map()
    if (newest?.version === version) return newest.values
    const values: Values = new Map()
    if (!newest || version > newest.version) newest = { version, values }
    return values
  }

  return {
    async snapshot() {
      const version = await readVersion()
      const values = valuesFor(version)
      function kept<T>(key: string, load: () => Promise<T>): Promise<T> {
        const known = values.get(key)
        if (known) return known as Promise<T>
        const loading = load().then(deepFreeze)
        values.set(key, loading)
        // A failure (a missing row, a lost connection) is the caller's, never kept.
        loading.catch(() => {
          if (values.get(key) === loading) values.delete(key)
        })
        return loading
      }
      return {
        version,
        agentRuntime: () => kept('agent-runtime', () => Settings.agentRuntime.get(db)),
        memory: () => kept('memory', () => Settings.memory.get(db)),
        browser: () => kept('browser', () => Settings.browser.get(db)),
        workspace: (id) => kept(`workspace:${id}`, () => Workspaces.get(db, id)),
        agentRows: () => kept('agents', () => Agents.listRows(db)),
        enabledSkillRows: () => kept('skills', () => Skills.enabledRows(db)),
        learnedOverlays: () => kept('overlays', () => Overlays.activeOverlays(db)),
        enabledHooks: (event) => kept(`hooks:${event}`, () => Hooks.enabledFor(db, event)),
        mcpServerRows: () => kept('mcp-servers', () => McpServers.listRows(db)),
      }
    },
  }
}
