import { hostname } from 'node:os'
import { join, resolve } from 'node:path'
import { createAgentFactory } from './agents/factory.ts'
import { createConfigCache } from './config-cache.ts'
import { HostMastraLogger } from './agents/mastra-logger.ts'
import { createToolProvider, type AnyTool } from './agents/tool-provider.ts'
import { startDocIndexer } from './docs/indexer.ts'
import { docSearchDeps } from './docs/search-deps.ts'
import { askProposal } from './evolution/channel-review.ts'
import { createEvolution } from './evolution/index.ts'
import { createBrowser, defaultBrowserSocket } from './browser/index.ts'
import { createOwnerMcpServers } from './mcp/servers/owner-servers.ts'
import { createBuildClient } from './build/client.ts'
import { buildMaintenanceOr, createBuildMaintenanceExecutor } from './build/maintenance.ts'
import { buildToolImplementations } from './build/tools.ts'
import { createHookDispatcher } from './hooks/dispatcher.ts'
import { taskStopHooks } from './hooks/task-stop.ts'
import { createEngineHandlers } from './host-handlers.ts'
import { createThreadMemory, type ThreadMemory } from './memory/thread-memory.ts'
import { createGatewayModels } from './models/gateway-models.ts'
import { forwardingLogger } from './observability/log-forwarder.ts'
import { createObservability, type Observability } from './observability/observability.ts'
import { createRecall } from './recall/recall.ts'
import { startFactRetention } from './recall/retention-loop.ts'
import type { HostCore, HostResources } from './resources.ts'
import { runLogObserver, taskLogObserver } from './runs/logging-observer.ts'
import { createLiveTurns } from './runs/live-turns.ts'
import { startChannels, type Channels } from './channels/start.ts'
import { createApprovals } from './approvals/approvals.ts'
import type { ApprovalRow } from '../runtime/approvals/index.ts'
import { createObserverRegistry } from './runs/observer-registry.ts'
import { runDeps } from './runs/run-deps.ts'
import { createTaskAttempts } from './runs/task-attempt.ts'
import { tracingObserver } from './runs/tracing-observer.ts'
import { createScheduler } from './schedules/scheduler.ts'
import { withVaultSync } from './secrets/vault.ts'
import { createSelfUpdateExecutor, selfUpdateOr } from './self-update/executor.ts'
import { reconcileAtStart } from './self-update/reconcile.ts'
import type { ReadyEngines } from './server.ts'
import { createTaskRunner } from './tasks/runner.ts'
import { taskTiming } from './tasks/timing.ts'
import { createDocsSearchTool } from './tools/docs-search.ts'
import { createMemorySearchTool } from './tools/memory-search.ts'
import { createRepoBriefTool } from './tools/repo-brief.ts'
import { createRetainFactTool } from './tools/retain-fact.ts'
import { createWebSearchTool } from './tools/web-search.ts'
import { checkSandbox } from './workspaces/sandbox-check.ts'

export type StartedEngines = ReadyEngines & {
  /** Stops what runs by itself (retention, scheduler, doc indexer, task runner). */
  stopRunners(): Promise<void>
  /** Closes Mastra's memory and the observability store; after `stopRunners` and the server. */
  close(): Promise<void>
}

/**
 * The host's engines: the model gateway's language models, Mastra's memory, the tools, the
 * agent factory, observability, hooks, recall, the task runner and the scheduler, built over the
 * core (databases, vault, log) and started. This module is what pulls in Mastra and the AI SDK,
 * about two thirds of the host's module graph, so main.ts imports it only after the host answers
 * health: a restart is healthy without waiting for it. `retry` is the core's, for Mastra's table
 * set-up (not safe against another host doing it at the same moment; the loser's retry finds
 * everything in place) and for the task runner's first reads (a database restart while the
 * engines start).
 */
export async function startEngines(
  core: HostCore,
  retry: <T>(fn: () => Promise<T>) => Promise<T>,
  /** The name this host's live turns carry (runs/live-turns.ts `liveTurnHost`). */
  liveTurnHost: string,
): Promise<StartedEngines> {
  const { env, log, databases, redactor, localModels, workspaceRoot, vault } = core
  const gateway = { url: env.NINEROUTER_URL, apiKey: env.NINEROUTER_API_KEY }
  // Opened inside the try; closed by the catch when start-up fails after it.
  let memory: ThreadMemory | undefined
  let observability: Observability | undefined
  try {
    // Gateway error bodies are cleaned of every secret the host knows, not only the gateway key.
    const models = createGatewayModels({
      ...gateway,
      localModels,
      redact: (text) => redactor.redact(text),
    })
    memory = createThreadMemory({ handle: databases.application, models })
    const webSearch = createWebSearchTool({ baseUrl: env.SEARXNG_URL })
    const repoBrief = createRepoBriefTool()
    const docsLog = log.child({ component: 'docs' })
    const docsDeps = docSearchDeps({ databases, models, localModels }, docsLog)
    const docsSearch = createDocsSearchTool(docsDeps)
    // Independent start-up work, side by side.
    const threadMemory = memory
    const [sandbox] = await Promise.all([checkSandbox(), retry(() => threadMemory.init())])
    if (!sandbox.available) log.warn('shell tool unavailable', { reason: sandbox.reason })
    const redact = core.redact
    const recall = createRecall({
      db: databases.application.db,
      models,
      log: log.child({ component: 'recall' }),
      redact,
    })
    const memoryTools = { db: databases.application.db, recall }
    // Built once (per agent for retain-fact), like the tools above: building their schemas on
    // every run was half of an agent build's time. Neither holds anything of a run.
    const memorySearch = createMemorySearchTool(memoryTools)
    const retainFact = new Map<string, AnyTool>()
    // One cache of the run configuration, shared by the agent factory, the hooks and the runs.
    const config = createConfigCache(databases.application.db)
    // The owner's browser MCP server (a separate process): connected on first use.
    const browser = createBrowser({
      db: databases.application.db,
      socketPath: env.POPAGENT_BROWSER_SOCKET ?? defaultBrowserSocket(env.POPAGENT_DATA_DIR),
      log: log.child({ component: 'browser' }),
      allowLoopback: env.POPAGENT_BROWSER_ALLOW_LOOPBACK === 'on',
      vault,
      redact,
      ownsEveryRow: databases.mode === 'embedded',
      recordings: {
        serverOutputDir: resolve(
          env.POPAGENT_BROWSER_OUTPUT_DIR ?? join(env.POPAGENT_DATA_DIR, 'browser-out'),
        ),
        dir: resolve(env.POPAGENT_DATA_DIR, 'browser-recordings'),
        retentionDays: env.POPAGENT_BROWSER_RECORDING_DAYS,
      },
    })
    // The owner's MCP servers (compute-host/mcp/servers/): connected when a run needs them.
    const mcpServers = createOwnerMcpServers({
      db: databases.application.db,
      vault,
      sandbox,
      dataDir: env.POPAGENT_DATA_DIR,
      log: log.child({ component: 'mcp-servers' }),
    })
    // AkurAI Build (compute-host/build/): disabled without AKURAI_BUILD_API_KEY.
    const build = createBuildClient({ url: env.AKURAI_BUILD_URL, apiKey: env.AKURAI_BUILD_API_KEY })
    const agents = createAgentFactory({
      db: databases.application.db,
      config,
      models,
      // Before each run's agents are built, together: Build's operations listed (its tools bind
      // to what the server has now; a failure is kept in its status, never thrown), and the
      // owner's MCP servers' tools, their definitions from the run's configuration snapshot.
      mcpTools: {
        forRun: async (config) =>
          (await Promise.all([build.refresh(), mcpServers.forRun({ config })]))[1],
      },
      tools: createToolProvider(
        {
          'web-search': () => ({ ok: true, tool: webSearch }),
          'repo-brief': () => ({ ok: true, tool: repoBrief }),
          'docs-search': () => ({ ok: true, tool: docsSearch }),
          'memory-search': () => ({ ok: true, tool: memorySearch }),
          'retain-fact': (agent) => {
            let tool = retainFact.get(agent.id)
            if (!tool)
              retainFact.set(agent.id, (tool = createRetainFactTool(memoryTools, agent.id)))
            return { ok: true, tool }
          },
          browser: browser.tool,
          ...buildToolImplementations(build),
        },
        { browser: browser.toolForRun },
      ),
      mastraLogger: new HostMastraLogger(log),
      sandbox,
      shellTimeoutMs: env.POPAGENT_SHELL_TIMEOUT_MS,
      redact: (text) => redactor.redact(text),
    })
    const db = databases.application.db
    observability = createObservability({
      handle: databases.observability,
      log: log.child({ component: 'observability' }),
      redact,
      enabled: env.POPAGENT_TRACING === 'on',
      otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    })
    const tracer = observability.tracer
    const priceCache = observability.prices
    // Lines about a run or a request are also stored, queryable by trace and request id.
    const hostLog =
      env.POPAGENT_TRACING === 'on' ? forwardingLogger(log, observability.queue, redact) : log
    // The production observers; features add theirs to the same registry.
    const observers = createObserverRegistry()
    observers.addRunObserver(runLogObserver(hostLog.child({ component: 'runs' })))
    observers.addRunObserver(tracingObserver(tracer))
    observers.addTaskObserver(taskLogObserver(hostLog.child({ component: 'tasks' })))
    const hooks = createHookDispatcher({
      db,
      config,
      redactor,
      sandbox,
      log: log.child({ component: 'hooks' }),
      secretEnv: (hookId) => vault.hookEnv(hookId),
    })
    observers.addTaskObserver(taskStopHooks(hooks))
    observers.addTaskObserver(browser.taskObserver)
    // Approvals are asked on channels too, whose service is built last: the late reference.
    let channelsLate: Channels | undefined
    const askOnChannel = async (approval: ApprovalRow) =>
      channelsLate?.service.askApproval(approval)
    // Agent evolution: its signal observers join the registry; its worker starts below.
    const evolution = createEvolution({
      db,
      log: log.child({ component: 'evolution' }),
      models,
      observers,
      redact,
      workerId: `host-${hostname()}-${process.pid}`,
      // Reflection runs under the unattended cost cap, priced like every run.
      prices: () => priceCache.current(),
      intervalMs: env.POPAGENT_EVOLUTION_INTERVAL_MS,
      leaseMs: env.POPAGENT_EVOLUTION_LEASE_MS,
      // A held proposal is also asked on the owner's review conversation, if one is named.
      onHeld: (proposalId) => askProposal({ db, redact, notify: askOnChannel }, proposalId),
    })
    const approvals = createApprovals({
      db,
      log: log.child({ component: 'approvals' }),
      redact,
      notify: askOnChannel,
    })
    const partial = {
      approvals,
      databases,
      workspaceRoot,
      agents,
      config,
      memory,
      redact,
      redactor,
      observers,
      recall,
      hooks,
      observability,
    }
    const base: Omit<HostResources, 'channels'> = {
      ...core,
      log: hostLog,
      models,
      memory,
      sandbox,
      agents,
      config,
      tasks: createTaskRunner({
        handle: databases.application,
        execute: withVaultSync(
          vault,
          selfUpdateOr(
            createSelfUpdateExecutor({
              db,
              workspaceRoot,
              log: log.child({ component: 'self-update' }),
              models,
              sandbox,
              verifyCommands: env.POPAGENT_SELF_UPDATE_CHECKS,
              checkLimitMs: env.POPAGENT_SHELL_TIMEOUT_MS,
              redact,
              mastraLogger: new HostMastraLogger(log.child({ component: 'self-update' })),
              // The phase agents run under the unattended cost cap, priced like every run.
              prices: () => priceCache.current(),
              // An approved patch may wait for the owner's review too, asked as approvals are.
              ownerReviewMs: env.POPAGENT_SELF_UPDATE_OWNER_REVIEW_S * 1000,
              approvals,
            }),
            buildMaintenanceOr(
              createBuildMaintenanceExecutor({
                db,
                workspaceRoot,
                log: log.child({ component: 'build-maintenance' }),
                build,
                attempts: (observers) =>
                  createTaskAttempts(runDeps(partial, hostLog), { observers }),
              }),
              createTaskAttempts(runDeps(partial, hostLog)),
            ),
          ),
        ),
        timing: () => taskTiming(db),
        log: log.child({ component: 'tasks' }),
        redact,
        runnerId: `host-${hostname()}-${process.pid}`,
        leaseMs: env.POPAGENT_TASK_LEASE_MS,
        // The live list: observers added to the registry later are heard too.
        observers: observers.task,
      }),
      scheduler: createScheduler({ db, log: log.child({ component: 'scheduler' }) }),
      liveTurns: createLiveTurns({
        db,
        log: log.child({ component: 'live-turns' }),
        host: liveTurnHost,
        ownsEveryRow: databases.mode === 'embedded',
      }),
      tracer,
      observability,
      observers,
      recall,
      hooks,
      approvals,
      evolution,
      browser,
      mcpServers,
      build,
    }
    // Channels run turns through the same live turns, so they are built over the rest.
    const resources: HostResources = {
      ...base,
      channels: startChannels(base, hostLog.child({ component: 'channels' })),
    }
    channelsLate = resources.channels
    // A database restart during start-up is ridden out like the one during a run: the runner's
    // first reads are retried as Mastra's table set-up is, rather than the host exiting. The turns
    // a previous run of this host left live are closed before it takes new ones.
    await Promise.all([retry(() => resources.tasks.start()), resources.liveTurns.start()])
    resources.scheduler.start()
    await evolution.worker.start()
    const docIndexer = startDocIndexer(docsDeps)
    void reconcileAtStart({ db, workspaceRoot, log: log.child({ component: 'self-update' }) })
    const retention = startFactRetention(db, log.child({ component: 'memories' }))
    return {
      resources,
      handlers: createEngineHandlers(resources),
      stopRunners: async () => {
        // First: running turns end as interrupted and are saved while the database is open.
        await resources.liveTurns.close()
        // Then the browser sessions (their rows closed while the database is open).
        await browser.close()
        // The owner's MCP servers' connections (stdio servers stop with them).
        await mcpServers.close()
        await build.close()
        // Then the channels: turns ended, their answers queued, the outbox stops sending.
        await resources.channels.stop()
        retention.stop()
        await resources.scheduler.stop()
        await docIndexer.stop()
        await evolution.worker.stop()
        await resources.tasks.stop()
      },
      close: async () => {
        await resources.memory.close()
        await resources.observability.close()
      },
    }
  } catch (error) {
    await memory?.close().catch(() => {})
    await observability?.close().catch(() => {})
    throw error
  }
}
