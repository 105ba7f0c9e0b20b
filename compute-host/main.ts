import { randomBytes } from 'node:crypto'
import { mkdir, realpath } from 'node:fs/promises'
import { createOnce } from '../runtime/once.ts'
import {
  migrateDatabase,
  migrateObservabilityDatabase,
  type MigrationReport,
} from './database/migrate.ts'
import { openDatabases } from './database/open.ts'
import { hostSecrets, type HostEnv } from './env.ts'
import { createModelCatalog } from './gateway/catalog.ts'
import { createGatewayProbe } from './gateway/probe.ts'
import { createLogger, type Logger } from './log.ts'
import { createAdmissionQueue } from './models/admission-queue.ts'
import { createLocalRouteMatcher } from './models/local-routes.ts'
import { createGatewayModels } from './models/gateway-models.ts'
import { createAgentFactory } from './agents/factory.ts'
import { createToolProvider, type AnyTool } from './agents/tool-provider.ts'
import { HostMastraLogger } from './agents/mastra-logger.ts'
import { createWebSearchTool } from './tools/web-search.ts'
import { createRepoBriefTool } from './tools/repo-brief.ts'
import { createDocsSearchTool } from './tools/docs-search.ts'
import { docSearchDeps } from './docs/search-deps.ts'
import { ensureDefaultCheckout } from './workspaces/default-checkout.ts'
import { checkSandbox } from './workspaces/sandbox-check.ts'
import { createThreadMemory, type ThreadMemory } from './memory/thread-memory.ts'
import { createRecall } from './recall/recall.ts'
import { startFactRetention } from './recall/retention-loop.ts'
import { createMemorySearchTool } from './tools/memory-search.ts'
import { createRetainFactTool } from './tools/retain-fact.ts'
import { createSecretRedactor, type Redactor } from '../runtime/redaction.ts'
import type { HostResources } from './resources.ts'
import { createScheduler } from './schedules/scheduler.ts'
import { startDocIndexer } from './docs/indexer.ts'
import { openVault, withVaultSync } from './secrets/vault.ts'
import { createHookDispatcher } from './hooks/dispatcher.ts'
import { taskStopHooks } from './hooks/task-stop.ts'
import { createObservability, type Observability } from './observability/observability.ts'
import { forwardingLogger } from './observability/log-forwarder.ts'
import { runLogObserver, taskLogObserver } from './runs/logging-observer.ts'
import { createObserverRegistry } from './runs/observer-registry.ts'
import { runDeps } from './runs/run-deps.ts'
import { createTaskAttempts } from './runs/task-attempt.ts'
import { createSelfUpdateExecutor, selfUpdateOr } from './self-update/executor.ts'
import { reconcileAtStart } from './self-update/reconcile.ts'
import { tracingObserver } from './runs/tracing-observer.ts'
import { createTaskRunner } from './tasks/runner.ts'
import { taskTiming } from './tasks/timing.ts'
import { hostname } from 'node:os'
import { createHostApp, listenHost } from './server.ts'

export type ComputeHost = {
  resources: HostResources
  /** Base URL of the internal API on loopback. */
  url: string
  token: string
  migration: MigrationReport
  stop(): Promise<void>
}

const MIGRATION_ATTEMPTS = 5

/**
 * The composition root: opens the databases, migrates them, builds the resource bag and starts
 * the internal API. Nothing else in the process constructs engines.
 */
export async function startComputeHost(
  env: HostEnv,
  options: {
    port?: number
    token?: string
    log?: Logger
    /** The redactor to use (the logger given in `log` should use it too); one is made otherwise. */
    redactor?: Redactor
    /** Clone popagent's checkout into the default workspace when its directory is missing. */
    provisionDefaultWorkspace?: boolean
  } = {},
): Promise<ComputeHost> {
  const token = options.token ?? env.POPAGENT_HOST_TOKEN ?? randomBytes(32).toString('base64url')
  const redactor = options.redactor ?? createSecretRedactor()
  redactor.add(...hostSecrets(env, token))
  const log = options.log ?? createLogger({ redactor })
  const databases = await openDatabases(env, log)
  // Opened inside the try; closed by the catch when start-up fails after it.
  let memory: ThreadMemory | undefined
  let observability: Observability | undefined
  try {
    // Shared by concurrent callers, kept once it succeeded, forgotten after a failure, so a
    // database that comes up late is retried rather than leaving a poisoned host.
    const ready = createOnce(() => migrateDatabase(databases.application))
    const migration = await retry(ready, MIGRATION_ATTEMPTS, log)
    log.info('database migrated', { mode: databases.mode, ...migration })
    // One after the other: when the first fails for good, no retry loop is left running on the
    // databases that the failed start closes.
    const observabilityMigration = await retry(
      () => migrateObservabilityDatabase(databases.observability),
      MIGRATION_ATTEMPTS,
      log,
    )
    log.info('observability database migrated', {
      kind: databases.observability.kind,
      ...observabilityMigration,
    })

    // Every stored secret joins the redactor before anything runs or logs.
    const vault = await openVault({ env, db: databases.application.db, redactor })
    const gateway = { url: env.NINEROUTER_URL, apiKey: env.NINEROUTER_API_KEY }
    const localModels = {
      queue: createAdmissionQueue(env.POPAGENT_LOCAL_MODEL_CONCURRENCY),
      isLocal: createLocalRouteMatcher(env.POPAGENT_LOCAL_MODEL_PREFIXES),
    }
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
    // Mastra's table set-up is not safe against another host doing it at the same moment (an
    // index creation loses with 23505); the loser's retry finds everything in place.
    const threadMemory = memory
    const [sandbox] = await Promise.all([
      checkSandbox(),
      retry(() => threadMemory.init(), MIGRATION_ATTEMPTS, log),
    ])
    if (!sandbox.available) log.warn('shell tool unavailable', { reason: sandbox.reason })
    const redact = (text: string) => redactor.redact(text)
    const workspaceRoot = await ensureDirectory(env.POPAGENT_WORKSPACE_ROOT)
    if (options.provisionDefaultWorkspace) {
      await ensureDefaultCheckout({ db: databases.application.db, workspaceRoot, log })
    }
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
    const agents = createAgentFactory({
      db: databases.application.db,
      models,
      tools: createToolProvider({
        'web-search': () => ({ ok: true, tool: webSearch }),
        'repo-brief': () => ({ ok: true, tool: repoBrief }),
        'docs-search': () => ({ ok: true, tool: docsSearch }),
        'memory-search': () => ({ ok: true, tool: memorySearch }),
        'retain-fact': (agent) => {
          let tool = retainFact.get(agent.id)
          if (!tool) retainFact.set(agent.id, (tool = createRetainFactTool(memoryTools, agent.id)))
          return { ok: true, tool }
        },
      }),
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
      redactor,
      sandbox,
      log: log.child({ component: 'hooks' }),
      secretEnv: (hookId) => vault.hookEnv(hookId),
    })
    observers.addTaskObserver(taskStopHooks(hooks))
    const partial = {
      databases,
      workspaceRoot,
      agents,
      memory,
      redact,
      redactor,
      observers,
      recall,
      hooks,
    }
    const resources: HostResources = {
      env,
      log: hostLog,
      databases,
      gateway: createGatewayProbe(gateway),
      catalog: createModelCatalog(gateway),
      startedAt: new Date(),
      localModels,
      models,
      memory,
      redact,
      redactor,
      workspaceRoot,
      sandbox,
      agents,
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
            }),
            createTaskAttempts(runDeps(partial, hostLog)),
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
      tracer,
      observability,
      observers,
      recall,
      vault,
      hooks,
    }
    const server = await listenHost(
      createHostApp(resources, token),
      options.port ?? env.POPAGENT_HOST_PORT,
    )
    log.info('compute host listening', { url: server.url })
    await resources.tasks.start()
    resources.scheduler.start()
    const docIndexer = startDocIndexer(docsDeps)
    void reconcileAtStart({ db, workspaceRoot, log: log.child({ component: 'self-update' }) })
    const retention = startFactRetention(db, log.child({ component: 'memories' }))
    let stopping: Promise<void> | undefined
    return {
      resources,
      url: server.url,
      token,
      migration,
      stop: () =>
        (stopping ??= (async () => {
          retention.stop()
          await resources.scheduler.stop()
          await docIndexer.stop()
          await resources.tasks.stop()
          await server.close()
          await resources.memory.close()
          await resources.observability.close()
          await databases.close()
        })()),
    }
  } catch (error) {
    await memory?.close().catch(() => {})
    await observability?.close().catch(() => {})
    await databases.close()
    throw error
  }
}

async function retry<T>(fn: () => Promise<T>, attempts: number, log: Logger): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn()
    } catch (error) {
      if (attempt >= attempts) throw error
      const delayMs = Math.min(8_000, 500 * 2 ** (attempt - 1))
      log.warn('database initialisation failed; retrying', { attempt, delayMs, error })
      await new Promise((r) => setTimeout(r, delayMs))
    }
  }
}

/** Creates the directory when missing and returns its canonical absolute path. */
async function ensureDirectory(path: string): Promise<string> {
  await mkdir(path, { recursive: true })
  return realpath(path)
}
