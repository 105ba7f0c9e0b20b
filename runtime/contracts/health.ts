import { z } from 'zod'
import type { ChannelHealth } from './channels.ts'
import type { McpServerState } from './mcp-servers.ts'

/** What one dependency probe found. `latencyMs` is wall time of the probe itself. */
export const ProbeResult = z.object({
  ok: z.boolean(),
  latencyMs: z.number(),
  error: z.string().optional(),
})
export type ProbeResult = z.infer<typeof ProbeResult>

export const GatewayStatus = z.object({
  configured: z.boolean(),
  reachable: z.boolean(),
  latencyMs: z.number().optional(),
  error: z.string().optional(),
})
export type GatewayStatus = z.infer<typeof GatewayStatus>

/** The local model's admission queue: slots in use and generations waiting for one. */
export const LocalModelStats = z.object({
  limit: z.number(),
  active: z.number(),
  queued: z.number(),
})
export type LocalModelStats = z.infer<typeof LocalModelStats>

/**
 * The sandbox self-test's finding: when unavailable, the shell and the language server are not
 * offered, and `reason` says why and how to fix it.
 */
export const SandboxHealth = z.object({ available: z.boolean(), reason: z.string().optional() })
export type SandboxHealth = z.infer<typeof SandboxHealth>

/**
 * AkurAI Build as health reports it: `disabled` without AKURAI_BUILD_API_KEY (a status, not a
 * fault), `reachable` when its operations could be listed now, `unreachable` with the reason.
 * Never a readiness blocker.
 */
export const BuildHealth = z.discriminatedUnion('state', [
  z.object({ state: z.literal('disabled'), reason: z.string() }),
  z.object({ state: z.literal('reachable'), url: z.string(), operations: z.number() }),
  z.object({ state: z.literal('unreachable'), url: z.string(), reason: z.string() }),
])
export type BuildHealth = z.infer<typeof BuildHealth>

export type HealthBody = {
  status: 'ok' | 'unavailable'
  databases: { application: ProbeResult; observability: ProbeResult }
  /** Reported, never a readiness blocker. */
  computeHost: {
    reachable: boolean
    error?: string
    startedAt?: string
    /** Whether the host's agents can run yet: they load after the host first answers. */
    engines?: 'starting' | 'ready' | 'failed'
  }
  /** Reported, never a readiness blocker. */
  gateway: GatewayStatus | null
  /** Reported, never a readiness blocker. */
  localModels: LocalModelStats | null
  /** Reported, never a readiness blocker; null until the host's engines are ready. */
  sandbox: SandboxHealth | null
  /** Each chat channel: on or off, working or its last error; null when the database is down. */
  channels: ChannelHealth[] | null
  /** Each owner's MCP server the host has connected or tried: state, tools, last error. */
  mcpServers: McpServerState[] | null
  /** AkurAI Build: disabled, reachable or unreachable; null until the host's engines run. */
  build: BuildHealth | null
}
