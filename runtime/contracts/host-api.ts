import { z } from 'zod'
import { GatewayStatus, LocalModelStats, SandboxHealth } from './health.ts'
import { CatalogRead } from './models.ts'
import { MAX_CRON_CHARS } from './schedules.ts'

/**
 * The compute host's internal HTTP API, as both sides see it. The host serves it on loopback
 * behind a shared bearer token; the handlers reach it only through `handlers/host-client.ts`,
 * which parses every response with these schemas.
 */
export const HOST_TOKEN_HEADER = 'authorization'

export const HostPaths = {
  health: '/internal/health',
  models: '/internal/models',
  chat: '/internal/chat',
  /** POST `{ path }`: the canonical repository path inside the workspace root, or a 400. */
  resolveWorkspace: '/internal/workspaces/resolve',
  /** POST `{ path, query }`: the repository brief of a registered workspace path. */
  repoBrief: '/internal/workspaces/brief',
  /** DELETE: removes the Mastra thread of these sessions (`{ sessionIds }`). */
  threads: '/internal/threads/delete',
  /** POST `{ cron }`: the expression checked by croner, with its next occurrences, or a 400. */
  cronPreview: '/internal/cron/preview',
  /** GET: the timezone every cron expression is read in (the server's). */
  cronTimezone: '/internal/cron/timezone',
} as const

export const HostHealth = z.object({
  status: z.literal('ok'),
  startedAt: z.string(),
  databaseMode: z.enum(['embedded', 'postgres']),
  gateway: GatewayStatus,
  localModels: LocalModelStats,
  sandbox: SandboxHealth,
})
export type HostHealth = z.infer<typeof HostHealth>

export const HostModels = CatalogRead

export const DeleteThreadsBody = z.strictObject({
  sessionIds: z.array(z.string().min(1).max(80)).max(10_000),
})
export type DeleteThreadsBody = z.infer<typeof DeleteThreadsBody>

export const ResolveWorkspaceBody = z.strictObject({ path: z.string().min(1).max(1_000) })
export const ResolvedWorkspace = z.object({ path: z.string(), gitRepository: z.boolean() })
export type ResolvedWorkspace = z.infer<typeof ResolvedWorkspace>

export const RepoBriefBody = z.strictObject({
  path: z.string().min(1).max(1_000),
  query: z.string().trim().min(1).max(500),
})
export const RepoBriefAnswer = z.object({ brief: z.unknown(), text: z.string() })
export type RepoBriefAnswer = z.infer<typeof RepoBriefAnswer>

export const CronPreviewBody = z.strictObject({
  cron: z.string().trim().min(1).max(MAX_CRON_CHARS),
})
/** A valid expression's next occurrences (ISO, ascending; at least one: one that never occurs is a 400). */
export const CronPreview = z.object({
  valid: z.literal(true),
  timezone: z.string(),
  next: z.array(z.string()).min(1),
})
export type CronPreview = z.infer<typeof CronPreview>
export const CronTimezone = z.object({ timezone: z.string() })
