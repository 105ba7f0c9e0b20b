import { randomBytes } from 'node:crypto'
import { createOnce } from '../runtime/once.ts'
import {
  migrateDatabase,
  migrateObservabilityDatabase,
  type MigrationReport,
} from './database/migrate.ts'
import { openDatabases } from './database/open.ts'
import type { StartedEngines } from './engines.ts'
import { hostSecrets, type HostEnv } from './env.ts'
import { createModelCatalog } from './gateway/catalog.ts'
import { createGatewayProbe } from './gateway/probe.ts'
import { createLogger, type Logger } from './log.ts'
import { createAdmissionQueue } from './models/admission-queue.ts'
import { createLocalRouteMatcher } from './models/local-routes.ts'
import { ensureDefaultCheckout } from './workspaces/default-checkout.ts'
import { secureWorkspaceRoot } from './workspaces/workspace-root.ts'
import { createSecretRedactor, type Redactor } from '../runtime/redaction.ts'
import type { HostCore, HostResources } from './resources.ts'
import { openVault } from './secrets/vault.ts'
import { blobCipher } from './undo/blob-cipher.ts'
import { createHostApp, inProcessFetch, listenHost, type HostFetch } from './server.ts'
import { liveTurnHost } from './runs/live-turn-host.ts'

export type ComputeHost = {
  resources: HostResources
  /** Base URL of the internal API on loopback. */
  url: string
  token: string
  /** The same API called in this process (server.ts `inProcessFetch`), for an edge beside it. */
  fetch: HostFetch
  migration: MigrationReport
  stop(): Promise<void>
}

/** A host that answers (health at once, the rest once `engines` resolves) before its engines. */
export type AnsweringHost = Omit<ComputeHost, 'resources'> & {
  core: HostCore
  /** The complete resources once Mastra, the agents and the runners have started. */
  engines: Promise<HostResources>
}

export type HostOptions = {
  port?: number
  token?: string
  log?: Logger
  /** The redactor to use (the logger given in `log` should use it too); one is made otherwise. */
  redactor?: Redactor
  /** Clone popagent's checkout into the default workspace when its directory is missing. */
  provisionDefaultWorkspace?: boolean
  /**
   * Once the engines are up, ready the brief of the workspace a first turn most likely asks
   * about (runs/warm-brief.ts), so that turn does not wait for the repository's first inventory
   * and parse.
   */
  warmLikelyBrief?: boolean
}

const MIGRATION_ATTEMPTS = 5

/** The host with its engines started: what the split deployment's host, tests and benches use. */
export async function startComputeHost(
  env: HostEnv,
  options: HostOptions = {},
): Promise<ComputeHost> {
  const host = await startAnsweringHost(env, options)
  const resources = await host.engines.catch(async (error: unknown) => {
    await host.stop()
    throw error
  })
  const { url, token, fetch, migration, stop } = host
  return { resources, url, token, fetch, migration, stop }
}

/**
 * The composition root: opens the databases, migrates them, opens the vault, and starts the
 * internal API; then loads and starts the engines (compute-host/engines.ts) in the background.
 * Nothing else in the process constructs engines.
 *
 * Why two steps: Mastra and the AI SDK are about two thirds of the module graph, and loading them
 * was about 0.75 s of a 3.4 s restart on a two-core machine. The host answers health while they
 * load, and every other route waits for them, so nothing is refused or run half-built. When the
 * engines cannot start, `engines` rejects; the caller stops the host (`popagent start` then
 * exits with the error, as when the databases cannot open).
 */
export async function startAnsweringHost(
  env: HostEnv,
  options: HostOptions = {},
): Promise<AnsweringHost> {
  const token = options.token ?? env.POPAGENT_HOST_TOKEN ?? randomBytes(32).toString('base64url')
  const redactor = options.redactor ?? createSecretRedactor()
  redactor.add(...hostSecrets(env, token))
  const log = options.log ?? createLogger({ redactor, level: env.POPAGENT_LOG_LEVEL })
  const databases = await openDatabases(env, log)
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
    const { root: workspaceRoot, tightenedFrom } = await secureWorkspaceRoot(
      env.POPAGENT_WORKSPACE_ROOT,
    )
    if (tightenedFrom) {
      log.info('workspace root made private', { workspaceRoot, mode: '0700', was: tightenedFrom })
    }
    if (options.provisionDefaultWorkspace) {
      await ensureDefaultCheckout({ db: databases.application.db, workspaceRoot, log })
    }
    const core: HostCore = {
      env,
      log,
      databases,
      gateway: createGatewayProbe(gateway),
      catalog: createModelCatalog(gateway),
      startedAt: new Date(),
      localModels: {
        queue: createAdmissionQueue(env.POPAGENT_LOCAL_MODEL_CONCURRENCY),
        isLocal: createLocalRouteMatcher(env.POPAGENT_LOCAL_MODEL_PREFIXES),
      },
      redact: (text) => redactor.redact(text),
      redactor,
      workspaceRoot,
      vault,
      // The vault has checked the keys by now (openVault refuses a malformed one).
      ...(env.POPAGENT_SECRET_KEY && {
        turnBlobs: blobCipher(env.POPAGENT_SECRET_KEY, env.POPAGENT_SECRET_KEYS_PREVIOUS),
      }),
    }
    // Begun after the server listens (below), so health answers while Mastra loads.
    let begin!: () => void
    const engines: Promise<StartedEngines> = new Promise<void>((r) => (begin = r))
      .then(() => import('./engines.ts'))
      .then(({ startEngines }) =>
        startEngines(
          core,
          (fn) => retry(fn, MIGRATION_ATTEMPTS, log),
          // Begun once the server listens: its port names this host's live turns.
          liveTurnHost(Number(new URL(server.url).port)),
        ),
      )
    // A failure is the caller's to hear (through `engines` below); this copy only records it.
    engines.catch(() => {})
    const app = createHostApp(core, engines, token)
    const server = await listenHost(app, options.port ?? env.POPAGENT_HOST_PORT)
    log.info('compute host listening', { url: server.url })
    begin()
    const resources = engines.then((e) => e.resources)
    if (options.warmLikelyBrief) {
      // After the engines, so it takes nothing from their start; it never fails the host.
      void resources
        .then(() => import('./runs/warm-brief.ts'))
        .then(({ warmLikelyBrief }) =>
          warmLikelyBrief({ db: databases.application.db, workspaceRoot, log }),
        )
        .catch(() => {})
    }
    // Heard by whoever awaits it; a caller that stopped listening (a failed edge) is no crash.
    resources.catch(() => {})
    let stopping: Promise<void> | undefined
    return {
      core,
      engines: resources,
      url: server.url,
      token,
      fetch: inProcessFetch(app),
      migration,
      stop: () =>
        (stopping ??= (async () => {
          // Engines still starting finish first, so nothing is left running on closed databases.
          const started = await engines.catch(() => undefined)
          await started?.stopRunners()
          await server.close()
          await started?.close()
          await databases.close()
        })()),
    }
  } catch (error) {
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
