/**
 * The compute host's internal HTTP API, as both sides see it: the schemas, then one table entry per
 * endpoint. The host serves it on loopback behind a shared bearer token; the edge reaches it only
 * through `handlers/host-client.ts`, which sends and parses with these schemas.
 */
import { z } from 'zod'
import { AgentToolStatuses } from './agents.ts'
import { DocSearchInput, DocSearchResult, ImportedFile } from './docs.ts'
import { ReconcileReport } from './autonomy.ts'
import { EvolutionDryRun, EvolutionPass, EvolutionProposal, ProposalParams } from './evolution.ts'
import { ChatRequest } from './chat.ts'
import { ChunkNumber, StoppedTurn } from './live-turns.ts'
import { BuildHealth, GatewayStatus, LocalModelStats, SandboxHealth } from './health.ts'
import { CatalogRead } from './models.ts'
import { MAX_CRON_CHARS } from './schedules.ts'
import { CreateSecretInput, SecretValue, SecretView } from './secrets.ts'
import { HookVerdict, TestHookInput } from './hooks.ts'
import { TurnChanges, TurnRef, UndoResult } from './turn-changes.ts'
import { ExportSessionBody, SessionExport } from './session-export.ts'
import { HookId, SecretId, SessionId, WorkspaceId } from '../ids.ts'
import { observabilityHostRoutes } from './observability-host-routes.ts'
import { browserHostRoutes } from './browser-host-routes.ts'
import { channelHostRoutes } from './channels-host-routes.ts'
import { mcpServerHostRoutes } from './mcp-servers-host-routes.ts'
import { McpServerState } from './mcp-servers.ts'
import { buildHostRoutes } from './build-host-routes.ts'

export const HostHealth = z.object({
  status: z.literal('ok'),
  startedAt: z.string(),
  databaseMode: z.enum(['embedded', 'postgres']),
  gateway: GatewayStatus,
  localModels: LocalModelStats,
  /**
   * Mastra, the agents, memory and the task runner load after the host first answers: every
   * route but health and the model catalog waits for them. `failed` is brief: the process stops when they cannot start.
   */
  engines: z.enum(['starting', 'ready', 'failed']),
  /** The sandbox self-test's finding; null until the engines are ready (it runs with them). */
  sandbox: SandboxHealth.nullable(),
  /** The owner's MCP servers this host has connected (or tried); null until the engines run. */
  mcpServers: z.array(McpServerState).nullable(),
  /** AkurAI Build: disabled, reachable or unreachable with the reason; null until the engines run. */
  build: BuildHealth.nullable(),
})
export type HostHealth = z.infer<typeof HostHealth>

export const HostModels = CatalogRead

/** A client joining a session's live turn after chunk `after` (0: from its start). */
export const JoinTurnBody = z.strictObject({ sessionId: SessionId, after: ChunkNumber })
export const StopTurnBody = z.strictObject({ sessionId: SessionId })

export const DeletedThreads = z.object({ deleted: z.number() })

export const DeleteThreadsBody = z.strictObject({
  sessionIds: z.array(SessionId).max(10_000),
})
export type DeleteThreadsBody = z.infer<typeof DeleteThreadsBody>

/** Exchanges removed from a session's transcript, named by their user messages' ids. */
export const ForgetExchangesBody = z.strictObject({
  sessionId: SessionId,
  userMessageIds: z.array(z.string().min(1).max(200)).min(1).max(1_000),
})
export type ForgetExchangesBody = z.infer<typeof ForgetExchangesBody>
export const ForgottenMessages = z.object({ forgotten: z.number() })

export const ResolveWorkspaceBody = z.strictObject({ path: z.string().min(1).max(1_000) })
export const ResolvedWorkspace = z.object({ path: z.string(), gitRepository: z.boolean() })
export type ResolvedWorkspace = z.infer<typeof ResolvedWorkspace>

export const RepoBriefBody = z.strictObject({
  path: z.string().min(1).max(1_000),
  query: z.string().trim().min(1).max(500),
})
export const RepoBriefAnswer = z.object({ brief: z.unknown(), text: z.string() })
export type RepoBriefAnswer = z.infer<typeof RepoBriefAnswer>

export const ImportDocsBody = z.strictObject({ path: z.string().min(1).max(1_000) })
export const WorkspaceMarkdown = z.object({ files: z.array(ImportedFile) })
export const DocsSearchBody = DocSearchInput.extend({ workspaceId: WorkspaceId })
export const RotateSecretBody = z.strictObject({ id: SecretId, value: SecretValue })
export const SecretRef = z.strictObject({ id: SecretId })
export const DeletedSecret = z.object({ deleted: z.string() })

export const TestHookBody = TestHookInput.extend({ id: HookId })

/** A session that ends (archived or deleted): its SessionEnd hooks run before the change. */
export const SessionEndBody = z.strictObject({
  sessionId: SessionId,
  workspaceId: WorkspaceId,
  reason: z.enum(['archived', 'deleted']),
})
export const SessionEnded = z.object({ hooks: z.number() })

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
  /**
   * Starts a turn; the answer is its UI-message stream. The turn runs on whatever happens to
   * this request (runs/live-turns.ts); a second one in the same session is a 409.
   */
  chat: {
    method: 'POST',
    path: '/internal/chat',
    input: ChatRequest,
    stream: true,
    does: 'start the chat turn',
  },
  /** Joins the session's live turn: 204 when none runs here, else its stream after `after`. */
  chatStream: {
    method: 'POST',
    path: '/internal/chat/stream',
    input: JoinTurnBody,
    stream: true,
    does: 'join the running turn',
  },
  /** Stops the session's live turn, whichever client started it; it is saved as stopped. */
  chatStop: {
    method: 'POST',
    path: '/internal/chat/stop',
    input: StopTurnBody,
    output: StoppedTurn,
    timeoutMs: 10_000,
    does: 'stop the turn',
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
  /**
   * Removes removed exchanges from the session's chat memory too, so the next turn's model does
   * not read a prompt the owner took back (retry, regenerate, edit-and-resend, remove).
   */
  forgetExchanges: {
    method: 'POST',
    path: '/internal/threads/forget',
    input: ForgetExchangesBody,
    output: ForgottenMessages,
    timeoutMs: 30_000,
    does: 'remove the exchange from the chat memory',
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
  /** The Markdown files of a registered workspace path a documentation import stores (W7). */
  workspaceMarkdown: {
    method: 'POST',
    path: '/internal/workspaces/markdown',
    input: ImportDocsBody,
    output: WorkspaceMarkdown,
    timeoutMs: 60_000,
    does: "read the workspace's Markdown files",
  },
  /** Documentation search of one workspace: full text and vectors (W7). */
  docsSearch: {
    method: 'POST',
    path: '/internal/docs/search',
    input: DocsSearchBody,
    output: DocSearchResult,
    timeoutMs: 30_000,
    does: 'search the documentation',
  },
  /** Every agent's tools as this host can run them (sandbox, services, registry). */
  agentTools: {
    method: 'GET',
    path: '/internal/agents/tools',
    output: AgentToolStatuses,
    timeoutMs: 10_000,
    does: "check the agents' tools",
  },
  /** A session as a redacted Markdown or JSON file (B4). */
  exportSession: {
    method: 'POST',
    path: '/internal/sessions/export',
    input: ExportSessionBody,
    output: SessionExport,
    timeoutMs: 60_000,
    does: 'export the session',
  },
  /** Stores a value in the vault (the host holds the key); the answer never carries it. */
  secretCreate: {
    method: 'POST',
    path: '/internal/secrets/create',
    input: CreateSecretInput,
    output: SecretView,
    timeoutMs: 10_000,
    does: 'store the secret',
  },
  secretRotate: {
    method: 'POST',
    path: '/internal/secrets/rotate',
    input: RotateSecretBody,
    output: SecretView,
    timeoutMs: 10_000,
    does: 'rotate the secret',
  },
  /** Deletes a secret, and its value from the host's redactor. */
  secretDelete: {
    method: 'POST',
    path: '/internal/secrets/delete',
    input: SecretRef,
    output: DeletedSecret,
    timeoutMs: 10_000,
    does: 'delete the secret',
  },
  /** Runs the SessionEnd hooks of a session being archived or deleted (observed, never blocking). */
  sessionEnd: {
    method: 'POST',
    path: '/internal/sessions/end',
    input: SessionEndBody,
    output: SessionEnded,
    // The longest hook timeout, plus the kill grace and the audit writes.
    timeoutMs: 75_000,
    does: 'run the SessionEnd hooks',
  },
  /** Runs one hook now on a sample event (audited like any run) and reports its verdict. */
  hookTest: {
    method: 'POST',
    path: '/internal/hooks/test',
    input: TestHookBody,
    output: HookVerdict,
    // The longest hook timeout, plus the kill grace and the audit writes.
    timeoutMs: 75_000,
    does: 'test-run the hook',
  },
  /** Self-update eligibility per workspace and its one system schedule (issue 24, S1). */
  autonomyReconcile: {
    method: 'POST',
    path: '/internal/autonomy/reconcile',
    output: ReconcileReport,
    timeoutMs: 60_000,
    does: 'reconcile the self-update schedules',
  },
  /** One pass of the evolution worker now (issue 39: the autonomy page's "run now"). */
  evolutionRun: {
    method: 'POST',
    path: '/internal/evolution/run',
    output: EvolutionPass,
    // A batch reflects once per agent, each a model call.
    timeoutMs: 300_000,
    does: 'run the evolution worker',
  },
  /** What a worker pass would change now, changing nothing (the autonomy page's dry run). */
  evolutionDryRun: {
    method: 'POST',
    path: '/internal/evolution/dry-run',
    output: EvolutionDryRun,
    timeoutMs: 300_000,
    does: 'preview the evolution worker',
  },
  /**
   * Applies a held proposal (the review queue's approve). On the host because its secret check
   * needs the redactor, which knows the vault's values as they are now.
   */
  evolutionApprove: {
    method: 'POST',
    path: '/internal/evolution/approve',
    input: ProposalParams,
    output: EvolutionProposal,
    timeoutMs: 30_000,
    does: 'approve the evolution proposal',
  },
  ...observabilityHostRoutes,
  ...browserHostRoutes,
  ...channelHostRoutes,
  ...mcpServerHostRoutes,
  ...buildHostRoutes,
} as const satisfies Record<string, HostRoute>
export type HostRoutes = typeof hostRoutes

/** Each endpoint's path by name, for callers that address the host without the client. */
export const HostPaths = Object.fromEntries(
  Object.entries(hostRoutes).map(([name, route]) => [name, route.path]),
) as { [N in keyof HostRoutes]: HostRoutes[N]['path'] }
