import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { Db } from '../../../db/index.ts'
import type { McpAgentTools, McpServerState } from '../../../runtime/contracts/mcp-servers.ts'
import * as McpServers from '../../../runtime/mcp-servers/index.ts'
import type { McpServerRow } from '../../../runtime/mcp-servers/index.ts'
import * as Secrets from '../../../runtime/secrets/index.ts'
import { stableJson } from '../../../runtime/stable-json.ts'
import type { AnyTool } from '../../agents/tool-provider.ts'
import type { ConfigSnapshot } from '../../config-cache.ts'
import type { Logger } from '../../log.ts'
import type { Vault } from '../../secrets/vault.ts'
import { sandboxCommand } from '../../workspaces/sandbox-args.ts'
import type { SandboxStatus } from '../../workspaces/sandbox-check.ts'
import { sandboxLimits } from '../../workspaces/sandbox-limits.ts'
import { McpConnection } from '../connection.ts'
import { isMcpClientError } from '../errors.ts'
import { guardedFetch } from '../guarded-fetch.ts'
import { mcpToolName } from '../../../runtime/mcp-servers/tool-names.ts'
import { createMcpTool } from '../mcp-tool.ts'
import type { McpToolDescriptor } from '../tool-list.ts'
import type { McpEndpoint } from '../transports.ts'

type NamedTool =
  | { raw: string; name: string; description: string; descriptor: McpToolDescriptor }
  | { raw: string; refused: string; description: string }

/**
 * A server's listed tools with the names the model would see, or why a tool cannot have one
 * (over 64 characters, or two tools mapping to one name: the second is refused).
 */
function namedTools(row: McpServerRow, listed: readonly McpToolDescriptor[]): NamedTool[] {
  const taken = new Set<string>()
  return listed.map((descriptor) => {
    const raw = descriptor.name
    const description = descriptor.description
    const name = mcpToolName(row.id, raw)
    if (typeof name !== 'string') return { raw, refused: name.refused, description }
    if (taken.has(name)) {
      return { raw, refused: `two tools of ${row.id} map to the name ${name}`, description }
    }
    taken.add(name)
    return { raw, name, description, descriptor }
  })
}

/** The vault secrets a server's connection is made with (its credentials, its variables). */
function secretIdsOf(row: McpServerRow): string[] {
  return [...row.credentials.map((c) => c.secretId), ...row.secretEnv.map((e) => e.secretId)]
}

/** Why a server's tools cannot be had now: its connection or list failed. */
function unreachable(row: McpServerRow, error: unknown): string {
  const reason = isMcpClientError(error) ? error.message : (error as Error).message
  return `MCP server ${row.id}: ${reason}`
}

/** One run's MCP tools: per agent, and what could not be offered with the reason. */
export type RunMcpTools = {
  toolsOf(agentId: string): Record<string, AnyTool>
  unavailable: Array<{ agentId: string; tool: string; reason: string }>
}

type Live = { key: string; connection: McpConnection; row: McpServerRow }

// A stdio server is long-lived: its CPU bound is a day's worth, not a command's.
const SERVER_CPU_MS = 24 * 60 * 60_000

/**
 * The owner's MCP servers on this host: one connection per server (compute-host/mcp/), made when
 * a run first needs its tools and replaced when its definition changes. Every run reads the
 * definitions (from its configuration snapshot, kept per version), so an edit applies on the next
 * run; the tool list itself is the connection's
 * cache, re-read when the server says it changed.
 *
 * How each server is reached:
 * - HTTP: through the SSRF guard (guarded-fetch.ts), loopback only with the owner's consent;
 *   each credential a vault secret, which must be bound to the server's origin (HTTPS) as any
 *   secret must be bound to where it goes; a loopback server's never leave the machine.
 * - stdio: inside the one sandbox (sandbox-args.ts), with a private directory under the data
 *   directory, the owner's read-only paths, and network only when the owner allowed it; on the
 *   host only by the owner's explicit `runOnHost`.
 */
export function createOwnerMcpServers(deps: {
  db: Db
  vault: Pick<Vault, 'reveal'>
  sandbox: SandboxStatus
  dataDir: string
  log: Logger
}) {
  const live = new Map<string, Live>()
  // The vault's secret versions as of this run's read (only when a server has credentials).
  let secretVersions = new Map<string, number>()

  async function endpointOf(row: McpServerRow): Promise<McpEndpoint> {
    if (row.transport === 'http') {
      const url = new URL(row.url!)
      const headers: Record<string, string> = {}
      for (const credential of row.credentials) {
        const secret = await Secrets.get(deps.db, credential.secretId)
        if (url.protocol === 'https:' && !secret.origins.includes(url.origin)) {
          throw new Error(
            `the vault secret ${secret.name} is not bound to ${url.origin}; bind it there to send it`,
          )
        }
        const value = await deps.vault.reveal(credential.secretId)
        headers[credential.header] = credential.scheme === 'bearer' ? `Bearer ${value}` : value
      }
      return {
        transport: 'http',
        url,
        headers,
        fetch: guardedFetch({ allowLoopback: row.allowLoopback }),
      }
    }
    const argv = row.argv!
    // The vault's values, decrypted here and given only to this process; never in the row,
    // the API or a log line (the host's redactor holds every vault value).
    const secretEnv: Record<string, string> = {}
    for (const { name, secretId } of row.secretEnv) {
      secretEnv[name] = await deps.vault.reveal(secretId)
    }
    if (row.runOnHost) return { transport: 'stdio', argv, env: { ...row.env, ...secretEnv } }
    if (!deps.sandbox.available) {
      throw new Error(
        `the sandbox is unavailable (${deps.sandbox.reason}), and ${row.id} runs in it`,
      )
    }
    const home = join(deps.dataDir, 'mcp-servers', row.id)
    await mkdir(home, { recursive: true, mode: 0o700 })
    const sandboxed = sandboxCommand({
      root: home,
      access: 'read-write',
      tools: row.readOnlyPaths,
      chdir: home,
      limits: sandboxLimits(SERVER_CPU_MS),
      argv,
      network: row.allowNetwork,
    })
    return {
      transport: 'stdio',
      argv: [sandboxed.command, ...sandboxed.args],
      env: { HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin', ...row.env, ...secretEnv },
    }
  }

  /**
   * The server's connection, new when its definition changed since the last one was made, or
   * when a credential's secret was rotated (its version is part of the key).
   */
  async function connectionOf(row: McpServerRow): Promise<McpConnection> {
    const { createdAt: _c, updatedAt: _u, agentIds: _a, displayName: _d, ...definition } = row
    const versions = secretIdsOf(row).map((id) => secretVersions.get(id) ?? 0)
    const key = stableJson({ definition, versions })
    const current = live.get(row.id)
    if (current?.key === key) {
      current.row = row
      return current.connection
    }
    live.delete(row.id)
    if (current) void current.connection.close()
    const connection = new McpConnection({
      name: row.id,
      endpoint: await endpointOf(row),
      limits: { callTimeoutMs: row.callTimeoutMs },
      onToolsChanged: (tools) =>
        deps.log.info('MCP server tools changed', { server: row.id, tools: tools.length }),
    })
    live.set(row.id, { key, connection, row })
    return connection
  }

  /** Removes connections of servers deleted or disabled since. */
  function prune(rows: readonly McpServerRow[]) {
    for (const [id, entry] of live) {
      if (!rows.some((r) => r.id === id && r.enabled)) {
        live.delete(id)
        void entry.connection.close()
      }
    }
  }

  return {
    /**
     * The tools of every enabled server for the agents the owner gave them to. A server that
     * cannot be reached (or whose list is malformed) costs its tools for this run, reported
     * per agent with the reason; it never stops the run.
     */
    async forRun(
      options: { signal?: AbortSignal; config?: Pick<ConfigSnapshot, 'mcpServerRows'> } = {},
    ): Promise<RunMcpTools> {
      const { signal, config } = options
      // The run's configuration snapshot keeps the definitions per version (0041): a turn reads
      // them from the database only after an edit.
      const rows = config ? await config.mcpServerRows() : await McpServers.listRows(deps.db)
      prune(rows)
      const used = rows.filter((r) => r.enabled && r.agentIds.length > 0)
      if (used.some((r) => secretIdsOf(r).length > 0))
        secretVersions = await Secrets.versions(deps.db)
      const tools = new Map<string, Record<string, AnyTool>>()
      const unavailable: RunMcpTools['unavailable'] = []
      await Promise.all(
        used.map(async (row) => {
          let listed
          let connection: McpConnection
          try {
            connection = await connectionOf(row)
            listed = await connection.listTools(signal ? { signal } : {})
          } catch (error) {
            for (const agentId of row.agentIds) {
              unavailable.push({ agentId, tool: `${row.id}__*`, reason: unreachable(row, error) })
            }
            return
          }
          const named = namedTools(row, listed)
          const made: Record<string, AnyTool> = {}
          const refusals = new Map<string, string>()
          for (const entry of named) {
            if ('refused' in entry) {
              refusals.set(entry.raw, entry.refused)
              continue
            }
            try {
              made[entry.raw] = createMcpTool({
                serverId: row.id,
                name: entry.name,
                descriptor: entry.descriptor,
                connection,
                timeoutMs: row.callTimeoutMs,
              })
            } catch (error) {
              // One tool Mastra cannot take (its schema) costs that tool, not the run.
              refusals.set(entry.raw, `Mastra refused ${entry.name}: ${(error as Error).message}`)
            }
          }
          for (const agentId of row.agentIds) {
            // The owner's choice within the server: a tool not chosen is not offered, and is
            // not the model's business either (no note about it).
            const chosen = row.agentTools[agentId]
            const wanted = (raw: string) => !chosen || chosen.includes(raw)
            const own: Record<string, AnyTool> = {}
            for (const entry of named) {
              if (!wanted(entry.raw)) continue
              const tool = made[entry.raw]
              if (tool && 'name' in entry) own[entry.name] = tool
              else {
                const name = 'name' in entry ? entry.name : `${row.id}__${entry.raw}`
                unavailable.push({ agentId, tool: name, reason: refusals.get(entry.raw)! })
              }
            }
            tools.set(agentId, { ...tools.get(agentId), ...own })
          }
        }),
      )
      return { toolsOf: (agentId) => tools.get(agentId) ?? {}, unavailable }
    },

    /**
     * Every server's tools as `agentId` would get them (the agent editor's list): each enabled
     * server is asked for its tools (connecting if need be), so the answer is what a run of
     * this agent would be offered now, and why each other tool would not be.
     */
    async agentTools(agentId: string, signal?: AbortSignal): Promise<McpAgentTools> {
      const rows = await McpServers.listRows(deps.db)
      if (rows.some((r) => r.enabled && secretIdsOf(r).length > 0))
        secretVersions = await Secrets.versions(deps.db)
      const servers = await Promise.all(
        rows.map(async (row) => {
          const given = row.agentIds.includes(agentId)
          const chosen = given ? (row.agentTools[agentId] ?? null) : null
          const server = {
            id: row.id,
            displayName: row.displayName,
            enabled: row.enabled,
            given,
            chosen,
          }
          if (!row.enabled) return { ...server, reason: 'the server is disabled', tools: [] }
          let listed
          try {
            const connection = await connectionOf(row)
            listed = await connection.listTools(signal ? { signal } : {})
          } catch (error) {
            return { ...server, reason: unreachable(row, error), tools: [] }
          }
          const tools = namedTools(row, listed).map((entry) => {
            const isChosen = given && (!chosen || chosen.includes(entry.raw))
            const reason =
              'refused' in entry
                ? entry.refused
                : !given
                  ? 'this agent is not given the server'
                  : !isChosen
                    ? 'not chosen for this agent'
                    : null
            return {
              name: entry.raw,
              toolName: 'refused' in entry ? `${row.id}__${entry.raw}` : entry.name,
              description: entry.description,
              chosen: isChosen,
              available: reason === null,
              reason,
            }
          })
          return { ...server, reason: null, tools }
        }),
      )
      return { servers }
    },

    /** The servers this host has connections for, from memory (health reads this). */
    liveStates(): McpServerState[] {
      return [...live.values()].map(({ row, connection }) => {
        const state = connection.state()
        return {
          id: row.id,
          status: state.status,
          toolCount: state.toolCount ?? null,
          lastError: state.lastError ?? null,
          retryAt: state.retryAt ?? null,
        }
      })
    },

    /** Each defined server's state on this host (connects nothing). */
    async states(): Promise<McpServerState[]> {
      const rows = await McpServers.listRows(deps.db)
      return rows.map((row) => {
        const entry = live.get(row.id)
        const state = entry?.connection.state()
        return {
          id: row.id,
          status: !row.enabled ? 'disabled' : (state?.status ?? 'idle'),
          toolCount: state?.toolCount ?? null,
          lastError: state?.lastError ?? null,
          retryAt: state?.retryAt ?? null,
        }
      })
    },

    async close(): Promise<void> {
      const entries = [...live.values()]
      live.clear()
      await Promise.allSettled(entries.map((e) => e.connection.close()))
    },
  }
}

export type OwnerMcpServers = ReturnType<typeof createOwnerMcpServers>
