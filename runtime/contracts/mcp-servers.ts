import { z } from 'zod'
import { SecretId } from '../ids.ts'
import { SecretEnvName } from './secrets.ts'
import { AgentId } from './agents.ts'
import { Line } from './fields.ts'

/**
 * The owner's MCP servers as the API shows and takes them. Credentials are vault secrets named
 * by id: a value never enters or leaves through these shapes.
 */
export const McpServerId = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,23}$/, 'lowercase letters, digits and hyphens, at most 24')
  // `/api/mcp-servers/states` is the host's report, not a server.
  .refine((id) => id !== 'states', '"states" is reserved')

export const McpServerParams = z.object({ id: McpServerId })

/** An HTTP header name (RFC 9110 token) that carries a vault secret. */
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, 'an HTTP header name')
export const McpCredential = z.strictObject({
  header: HeaderName,
  secretId: SecretId,
  /** `bearer` sends `Bearer <value>`; `raw` sends the value as it is. */
  scheme: z.enum(['bearer', 'raw']),
})

/**
 * A stdio server's variable whose value is a vault secret, decrypted on the host when the server
 * starts. The name is never one that changes how a loader, shell or runtime starts (the list
 * shared with hooks' environments, `SecretEnvName`): the value reaches the host-side programs
 * that build the sandbox too.
 */
export const McpSecretEnv = z.strictObject({ name: SecretEnvName, secretId: SecretId })

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'an environment variable name')
const AbsolutePath = z.string().min(2).max(1_000).regex(/^\//, 'an absolute path')

/** A tool as the server names it (MCP's rule, SEP-986). */
const McpToolName = z.string().regex(/^[A-Za-z0-9_.\-/]{1,128}$/, 'an MCP tool name')
/**
 * Per agent given the server, the tools it gets (the server's names); an agent not named gets
 * them all. A name the server does not list (yet) is kept and simply matches nothing.
 */
const AgentToolChoice = z.record(AgentId, z.array(McpToolName).max(512))

const common = {
  displayName: Line(100),
  enabled: z.boolean().default(true),
  callTimeoutMs: z.number().int().min(1_000).max(600_000).default(60_000),
  /** The agents given this server's tools. */
  agentIds: z.array(AgentId).max(100).default([]),
  agentTools: AgentToolChoice.default({}),
}

export const CreateMcpServerInput = z.discriminatedUnion('transport', [
  z.strictObject({
    id: McpServerId,
    transport: z.literal('http'),
    url: z.string().min(1).max(2_000),
    /** The owner's consent to a loopback URL (plain HTTP allowed there only). */
    allowLoopback: z.boolean().default(false),
    credentials: z.array(McpCredential).max(8).default([]),
    ...common,
  }),
  z.strictObject({
    id: McpServerId,
    transport: z.literal('stdio'),
    argv: z.array(z.string().min(1).max(4_000)).min(1).max(64),
    /** Plain (non-secret) environment; secrets do not belong here. */
    env: z.record(EnvName, z.string().max(4_000)).default({}),
    /** Variables whose values come from the vault: named by secret id, never a value. */
    secretEnv: z.array(McpSecretEnv).max(16).default([]),
    /** Directories the sandboxed server may read (its program, its packages). */
    readOnlyPaths: z.array(AbsolutePath).max(16).default([]),
    /** Explicit opt-in: run the program on the host, outside the sandbox. */
    runOnHost: z.boolean().default(false),
    /** Network inside the sandbox (off by default). */
    allowNetwork: z.boolean().default(false),
    ...common,
  }),
])
export type CreateMcpServerInput = z.infer<typeof CreateMcpServerInput>

/** Any field but the id and transport; checked against the merged server like a create. */
export const PatchMcpServerInput = z
  .strictObject({
    displayName: Line(100),
    enabled: z.boolean(),
    callTimeoutMs: z.number().int().min(1_000).max(600_000),
    agentIds: z.array(AgentId).max(100),
    /** Replaces the whole choice; entries of agents no longer given the server are dropped. */
    agentTools: AgentToolChoice,
    url: z.string().min(1).max(2_000),
    allowLoopback: z.boolean(),
    credentials: z.array(McpCredential).max(8),
    argv: z.array(z.string().min(1).max(4_000)).min(1).max(64),
    env: z.record(EnvName, z.string().max(4_000)),
    secretEnv: z.array(McpSecretEnv).max(16),
    readOnlyPaths: z.array(AbsolutePath).max(16),
    runOnHost: z.boolean(),
    allowNetwork: z.boolean(),
  })
  .partial()
  .refine((v) => Object.keys(v).length > 0, { message: 'give at least one field to change' })
export type PatchMcpServerInput = z.infer<typeof PatchMcpServerInput>

export const McpServer = z.object({
  id: z.string(),
  displayName: z.string(),
  transport: z.enum(['http', 'stdio']),
  enabled: z.boolean(),
  url: z.string().nullable(),
  allowLoopback: z.boolean(),
  /** Which header carries which secret; never a value. */
  credentials: z.array(McpCredential),
  argv: z.array(z.string()).nullable(),
  env: z.record(z.string(), z.string()),
  /** Which variable takes which secret; never a value. */
  secretEnv: z.array(McpSecretEnv),
  readOnlyPaths: z.array(z.string()),
  runOnHost: z.boolean(),
  allowNetwork: z.boolean(),
  callTimeoutMs: z.number(),
  agentIds: z.array(z.string()),
  agentTools: z.record(z.string(), z.array(z.string())),
  updatedAt: z.string(),
})
export type McpServer = z.infer<typeof McpServer>

/** One server's live state on this host (compute-host/mcp/connection.ts `state()`). */
export const McpServerState = z.object({
  id: z.string(),
  status: z.enum(['disabled', 'idle', 'connecting', 'connected', 'failed', 'closed']),
  toolCount: z.number().nullable(),
  lastError: z.object({ code: z.string(), message: z.string(), at: z.string() }).nullable(),
  retryAt: z.string().nullable(),
})
export type McpServerState = z.infer<typeof McpServerState>
export const McpServerStates = z.object({ servers: z.array(McpServerState) })

/**
 * One server's tools as one agent would get them on this host, for the agent editor: each tool
 * the server lists now, whether a run of this agent would offer it, and why not. A server that is
 * disabled or cannot be reached lists no tools and says why (`reason`).
 */
export const McpAgentTool = z.object({
  /** The server's name for it (what `agentTools` holds). */
  name: z.string(),
  /** The name the model and hooks see: `<server>__<tool>`. */
  toolName: z.string(),
  description: z.string(),
  chosen: z.boolean(),
  available: z.boolean(),
  reason: z.string().nullable(),
})
export const McpAgentToolServer = z.object({
  id: z.string(),
  displayName: z.string(),
  enabled: z.boolean(),
  /** Whether the owner gave this agent the server. */
  given: z.boolean(),
  /** The agent's choice, or null: every tool. */
  chosen: z.array(z.string()).nullable(),
  /** Why no tool of this server can run here for anyone (disabled, unreachable), or null. */
  reason: z.string().nullable(),
  tools: z.array(McpAgentTool),
})
export const McpAgentTools = z.object({ servers: z.array(McpAgentToolServer) })
export type McpAgentTools = z.infer<typeof McpAgentTools>
export const McpAgentToolsBody = z.strictObject({ agentId: AgentId })
