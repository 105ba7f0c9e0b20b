import type { Databases } from './database/open.ts'
import type { Redactor } from '../runtime/redaction.ts'
import type { HostEnv } from './env.ts'
import type { ConfigCache } from './config-cache.ts'
import type { AgentFactory } from './agents/factory.ts'
import type { ModelCatalogReader } from './gateway/catalog.ts'
import type { createGatewayProbe } from './gateway/probe.ts'
import type { Logger } from './log.ts'
import type { AdmissionQueue } from './models/admission-queue.ts'
import type { GatewayModels } from './models/gateway-models.ts'
import type { ThreadMemory } from './memory/thread-memory.ts'
import type { SandboxStatus } from './workspaces/sandbox-check.ts'
import type { TaskRunner } from './tasks/runner.ts'
import type { Scheduler } from './schedules/scheduler.ts'
import type { Tracer } from './observability/tracer.ts'
import type { Observability } from './observability/observability.ts'
import type { ObserverRegistry } from './runs/observer-registry.ts'
import type { Recall } from './recall/recall.ts'
import type { OwnerMcpServers } from './mcp/servers/owner-servers.ts'
import type { BuildClient } from './build/client.ts'
import type { Vault } from './secrets/vault.ts'
import type { HookDispatcher } from './hooks/dispatcher.ts'
import type { LiveTurns } from './runs/live-turns.ts'
import type { BlobCipher } from './undo/blob-cipher.ts'
import type { Channels } from './channels/start.ts'
import type { Evolution } from './evolution/index.ts'
import type { Browser } from './browser/index.ts'
import type { Approvals } from './approvals/approvals.ts'

/**
 * Everything the host's engines need, built once by the composition root and passed explicitly.
 * Later engines (Mastra, model queue, sandbox, task runner, scheduler) join this bag.
 */
export type HostResources = {
  env: HostEnv
  log: Logger
  databases: Databases
  gateway: ReturnType<typeof createGatewayProbe>
  /** The gateway's model catalog, cached. */
  catalog: ModelCatalogReader
  startedAt: Date
  /** The local model's admission queue, and which model ids must pass it. */
  localModels: { queue: AdmissionQueue; isLocal: (modelId: string) => boolean }
  /** Language models on the gateway; local routes pass the admission queue. */
  models: GatewayModels
  /** Builds each run's agents from PostgreSQL. */
  agents: AgentFactory
  /** The configuration runs read (settings, workspaces, agents, skills, hooks), kept per version. */
  config: ConfigCache
  /** Mastra thread memory in the application database. */
  memory: ThreadMemory
  /** The canonical, existing POPAGENT_WORKSPACE_ROOT. */
  workspaceRoot: string
  /** Whether the shell's bubblewrap sandbox passed its start-up self-test, and why not. */
  sandbox: SandboxStatus
  /** Removes the secrets (env.ts `hostSecrets`, the API key among them) and their encodings. */
  redact: (text: string) => string
  /**
   * The one redactor behind `redact`, the logger and the gateway fetch; `add()` makes a secret
   * learnt at run time redacted everywhere from the next call.
   */
  redactor: Redactor
  /** Runs background tasks from the shared queue. */
  tasks: TaskRunner
  /** Turns due cron occurrences into tasks. */
  scheduler: Scheduler
  /** Spans for turns, task attempts and their tool calls, in the observability database. */
  tracer: Tracer
  /** The secrets vault: encrypts with POPAGENT_SECRET_KEY and keeps `redactor` in step. */
  vault: Vault
  /** Runs the stored hooks of an event (X3), audited, fail-closed on blocking events. */
  hooks: HookDispatcher
  /** Asks the owner and waits, bounded, for the answer (a PreToolUse hook's `ask`). */
  approvals?: Approvals
  /** The observability storage, the queue writing to it, and its health. */
  observability: Observability
  /** Who hears every run's events and every task's lifecycle (logging and tracing today). */
  observers: ObserverRegistry
  /** Cross-session recall before each run, and the indexing of finished turns (X2). */
  recall: Recall
  /** The chat turns this host runs, which outlive the requests that started them. */
  liveTurns: LiveTurns
  /** Chat channels: inbound events, channel turns and the outbox (compute-host/channels/). */
  channels: Channels
  /** Agent evolution: signals from runs and feedback, and the worker that learns from them. */
  evolution: Evolution
  /** Browser automation through the owner's browser MCP server (compute-host/browser/). */
  browser?: Browser
  /** The owner's MCP servers' connections and tools (compute-host/mcp/servers/). */
  mcpServers?: OwnerMcpServers
  /** AkurAI Build's client (compute-host/build/); disabled without its key. */
  build?: BuildClient
  /**
   * Encrypts the file contents per-turn undo keeps, under a key derived from POPAGENT_SECRET_KEY;
   * absent without that key, and then undo keeps nothing (undo/turn-recorder.ts).
   */
  turnBlobs?: BlobCipher
}

/**
 * What the host has before its engines: enough to answer health and to let the edge start. None
 * of it needs Mastra or the AI SDK, so a restart does not wait for them to load (main.ts).
 */
export type HostCore = Pick<
  HostResources,
  | 'env'
  | 'log'
  | 'databases'
  | 'gateway'
  | 'catalog'
  | 'startedAt'
  | 'localModels'
  | 'redact'
  | 'redactor'
  | 'workspaceRoot'
  | 'vault'
  | 'turnBlobs'
>
