/**
 * The compute host's internal HTTP API, as both sides see it: the schemas, then one table entry per
 * endpoint. The host serves it on loopback behind a shared bearer token; the edge reaches it only
 * through `handlers/host-client.ts`, which sends and parses with these schemas.
 */
import { z } from 'zod'
import { ChatRequest } from './chat.ts'
import { GatewayStatus, LocalModelStats, SandboxHealth } from './health.ts'
import { CatalogRead } from './models.ts'
import { MAX_CRON_CHARS } from './schedules.ts'
import { TurnChanges, TurnRef, UndoResult } from './turn-changes.ts'
import { observabilityHostRoutes } from './observability-host-routes.ts'

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

export const DeletedThreads = z.object({ deleted: z.number() })

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

/**
 * One host endpoint. `input` is the JSON body the host validates (with the edge's `validate()`,
 * so a bad one is a 400 with field errors); `output` is the JSON answer the client parses, or
 * `stream: true` for an answer the edge passes on as it comes. `timeoutMs` is how long the client
 * waits for a JSON answer (a stream runs until its caller's signal ends it) and `does` finishes
 * "the compute host could not …" when the host fails to.
 */
export type HostRoute = {
  method: 'GET' | 'POST'
  path: `/internal/${string}`
  input?: z.ZodType
  does: string
} & ({ output: z.ZodType; timeoutMs: number } | { stream: true })

/**
 * Every host endpoint, once: compute-host/server.ts registers each with its handler and the host
 * client offers each as a method of the same name. A new host capability is an entry here and a
 * handler there.
 */
export const hostRoutes = {
  health: {
    method: 'GET',
    path: '/internal/health',
    output: HostHealth,
    timeoutMs: 10_000,
    does: 'report its health',
  },
  models: {
    method: 'GET',
    path: '/internal/models',
    output: HostModels,
    timeoutMs: 10_000,
    does: 'read the model catalog',
  },
  /** Starts a turn; the answer is its UI-message stream. */
  chat: {
    method: 'POST',
    path: '/internal/chat',
    input: ChatRequest,
    stream: true,
    does: 'start the chat turn',
  },
  /** The canonical repository path inside the workspace root, or a 400. */
  resolveWorkspace: {
    method: 'POST',
    path: '/internal/workspaces/resolve',
    input: ResolveWorkspaceBody,
    output: ResolvedWorkspace,
    timeoutMs: 10_000,
    does: 'check the workspace path',
  },
  /** The repository brief of a registered workspace path. */
  repoBrief: {
    method: 'POST',
    path: '/internal/workspaces/brief',
    input: RepoBriefBody,
    output: RepoBriefAnswer,
    timeoutMs: 60_000,
    does: 'build the repository brief',
  },
  /** Removes the Mastra threads of these sessions; answers once they are gone. */
  threads: {
    method: 'POST',
    path: '/internal/threads/delete',
    input: DeleteThreadsBody,
    output: DeletedThreads,
    // Sized for a workspace's worth of sessions; the host deletes them in one pass.
    timeoutMs: 120_000,
    does: 'delete the chat memory',
  },
  /** The expression checked by croner, with its next occurrences, or a 400. */
  cronPreview: {
    method: 'POST',
    path: '/internal/cron/preview',
    input: CronPreviewBody,
    output: CronPreview,
    timeoutMs: 10_000,
    does: 'check the cron expression',
  },
  /** The timezone every cron expression is read in (the server's). */
  cronTimezone: {
    method: 'GET',
    path: '/internal/cron/timezone',
    output: CronTimezone,
    timeoutMs: 10_000,
    does: 'tell its timezone',
  },
  /** What a chat turn changed in its repository, with a diff per file (B3). */
  turnChanges: {
    method: 'POST',
    path: '/internal/turns/changes',
    input: TurnRef,
    output: TurnChanges,
    timeoutMs: 60_000,
    does: "read the turn's changes",
  },
  /** Undoes a chat turn's changes, file by file, once (B3). */
  undoTurn: {
    method: 'POST',
    path: '/internal/turns/undo',
    input: TurnRef,
    output: UndoResult,
    timeoutMs: 120_000,
    does: 'undo the turn',
  },
  ...observabilityHostRoutes,
} as const satisfies Record<string, HostRoute>
export type HostRoutes = typeof hostRoutes

/** Each endpoint's path by name, for callers that address the host without the client. */
export const HostPaths = Object.fromEntries(
  Object.entries(hostRoutes).map(([name, route]) => [name, route.path]),
) as { [N in keyof HostRoutes]: HostRoutes[N]['path'] }
