import { asc, eq, inArray } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { agents, mcpServers, secrets } from '../../db/schema/index.ts'
import type {
  CreateMcpServerInput,
  McpServer,
  PatchMcpServerInput,
} from '../contracts/mcp-servers.ts'
import { classifyUrlHost } from '../net/address-class.ts'
import { pgErrorCode, PG_UNIQUE_VIOLATION } from '../pg-errors.ts'
import { McpServerIdTaken, McpServerInvalid, McpServerNotFound } from './errors.ts'

/**
 * The owner's MCP servers: definitions in PostgreSQL, written only through the owner's API.
 * Each write is checked whole (after a patch is merged): an HTTP server's URL is HTTPS, or plain
 * HTTP on a loopback host when the owner allowed loopback; its credentials name existing vault
 * secrets; every agent named exists. Where the bytes may really go is decided again at connect
 * time by the host's SSRF guard; this check is the owner's early, clear answer.
 */
export type McpServerRow = typeof mcpServers.$inferSelect

export function toMcpServer(row: McpServerRow): McpServer {
  const { createdAt: _createdAt, updatedAt, ...rest } = row
  return { ...rest, updatedAt: updatedAt.toISOString() }
}

export async function listRows(db: Db): Promise<McpServerRow[]> {
  return db.select().from(mcpServers).orderBy(asc(mcpServers.id))
}

export async function list(db: Db): Promise<McpServer[]> {
  return (await listRows(db)).map(toMcpServer)
}

export async function get(db: Db, id: string): Promise<McpServer> {
  const [row] = await db.select().from(mcpServers).where(eq(mcpServers.id, id))
  if (!row) throw new McpServerNotFound({ id })
  return toMcpServer(row)
}

export async function create(db: Db, input: CreateMcpServerInput): Promise<McpServer> {
  const row: typeof mcpServers.$inferInsert =
    input.transport === 'http'
      ? {
          ...input,
          argv: null,
          env: {},
          secretEnv: [],
          readOnlyPaths: [],
          runOnHost: false,
          allowNetwork: false,
        }
      : { ...input, url: null, allowLoopback: false, credentials: [] }
  await assertValid(db, row as McpServerRow)
  try {
    await db.insert(mcpServers).values(row)
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) throw new McpServerIdTaken({ id: input.id })
    throw error
  }
  return get(db, input.id)
}

export async function patch(db: Db, id: string, input: PatchMcpServerInput): Promise<McpServer> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(mcpServers).where(eq(mcpServers.id, id)).for('update')
    if (!current) throw new McpServerNotFound({ id })
    const merged = { ...current, ...input }
    // A choice given now must name agents of the server; one left from an agent no longer
    // given the server goes with it (the editor takes an agent off by its agentIds alone).
    if (!input.agentTools) merged.agentTools = choicesOf(merged.agentTools, merged.agentIds)
    await assertValid(tx as unknown as Db, merged)
    const [row] = await tx
      .update(mcpServers)
      .set({ ...input, agentTools: merged.agentTools, updatedAt: new Date() })
      .where(eq(mcpServers.id, id))
      .returning()
    return toMcpServer(row!)
  })
}

export async function remove(db: Db, id: string): Promise<void> {
  const deleted = await db
    .delete(mcpServers)
    .where(eq(mcpServers.id, id))
    .returning({ id: mcpServers.id })
  if (deleted.length === 0) throw new McpServerNotFound({ id })
}

/** Why a definition may not be saved, or nothing. */
async function assertValid(db: Db, server: McpServerRow): Promise<void> {
  const refuse = (message: string) => new McpServerInvalid({ id: server.id }, { message })
  if (server.transport === 'http') {
    const reason = urlRefusal(server.url ?? '', server.allowLoopback)
    if (reason) throw refuse(reason)
    const headers = server.credentials.map((c) => c.header.toLowerCase())
    if (new Set(headers).size !== headers.length) throw refuse('a header is given twice')
  } else {
    if (server.runOnHost && server.allowNetwork) {
      throw refuse('allowNetwork is for the sandbox; a server run on the host is not sandboxed')
    }
    const names = server.secretEnv.map((e) => e.name)
    if (new Set(names).size !== names.length) throw refuse('a secret variable is named twice')
    const plain = names.filter((n) => n in server.env)
    if (plain.length > 0) throw refuse(`${plain.join(', ')} is both in env and in secretEnv`)
  }
  if (server.transport === 'http' && server.secretEnv.length > 0) {
    throw refuse('secretEnv is for a stdio server')
  }
  const missing = await missingSecrets(db, [
    ...server.credentials.map((c) => c.secretId),
    ...server.secretEnv.map((e) => e.secretId),
  ])
  if (missing.length > 0) throw refuse(`no vault secret ${missing.join(', ')}`)
  const agentIds = [...new Set(server.agentIds)]
  if (agentIds.length !== server.agentIds.length) throw refuse('an agent is named twice')
  if (agentIds.length > 0) {
    const found = await db
      .select({ id: agents.id })
      .from(agents)
      .where(inArray(agents.id, agentIds))
    const missing = agentIds.filter((a) => !found.some((f) => f.id === a))
    if (missing.length > 0) throw refuse(`no agent ${missing.join(', ')}`)
  }
  for (const [agentId, tools] of Object.entries(server.agentTools)) {
    if (!agentIds.includes(agentId)) {
      throw refuse(`agentTools names ${agentId}, which is not given this server`)
    }
    if (new Set(tools).size !== tools.length) throw refuse(`a tool is named twice for ${agentId}`)
  }
}

/** The vault secrets named (a credential's, a variable's) that do not exist. */
async function missingSecrets(db: Db, named: readonly string[]): Promise<string[]> {
  const ids = [...new Set(named)]
  if (ids.length === 0) return []
  const found = await db.select({ id: secrets.id }).from(secrets).where(inArray(secrets.id, ids))
  return ids.filter((i) => !found.some((f) => f.id === i))
}

/** The choices of the agents still given the server. */
function choicesOf(
  choices: Record<string, string[]>,
  agentIds: readonly string[],
): Record<string, string[]> {
  return Object.fromEntries(Object.entries(choices).filter(([id]) => agentIds.includes(id)))
}

/** HTTPS anywhere the SSRF guard allows; plain HTTP only on a loopback host the owner allowed. */
export function urlRefusal(given: string, allowLoopback: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(given)
  } catch {
    return 'the URL is not a URL'
  }
  if (url.username || url.password) return 'user info in the URL is not allowed (use credentials)'
  const loopback = classifyUrlHost(url.hostname.replace(/^\[(.*)\]$/, '$1'))?.kind === 'loopback'
  if (loopback && !allowLoopback) return 'a loopback URL needs allowLoopback'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:' && loopback) return undefined
  return 'only https: URLs (or http: on loopback, when allowed)'
}
