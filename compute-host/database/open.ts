import { join, resolve } from 'node:path'
import type { HostEnv } from '../env.ts'
import type { Logger } from '../log.ts'
import { lockDataDir } from './data-dir-lock.ts'
import { repairDataDirModes, secureDataDir } from './data-dir-permissions.ts'
import {
  embeddedHandle,
  isInitialised,
  OBSERVABILITY_SCHEMA,
  openEmbeddedSingle,
  openPglite,
} from './embedded.ts'
import type { DatabaseHandle } from './handle.ts'
import { openNodePostgres } from './postgres.ts'

export type Databases = {
  mode: 'embedded' | 'postgres'
  application: DatabaseHandle
  observability: DatabaseHandle
  close(): Promise<void>
}

/**
 * Opens the application and observability databases: real servers when their URLs are set,
 * otherwise embedded PGlite under POPAGENT_DATA_DIR. A real application database with no
 * observability URL gets an embedded observability database, which only a single-process start
 * can offer (the separate `popagent edge` requires the URL).
 *
 * The embedded data directory is private to this user: refused when others could have written
 * it, its modes repaired before and after PGlite opens it (data-dir-permissions.ts).
 */
export async function openDatabases(env: HostEnv, log: Logger): Promise<Databases> {
  const dataDir = resolve(env.POPAGENT_DATA_DIR)
  const needsEmbedded = !env.DATABASE_URL || !env.OBSERVABILITY_DATABASE_URL
  if (needsEmbedded) await secureDataDir(dataDir)
  const unlock = needsEmbedded ? await lockDataDir(dataDir) : async () => {}
  try {
    const application = env.DATABASE_URL
      ? openNodePostgres(env.DATABASE_URL, { applicationName: 'popagent-host' })
      : undefined
    const observability = env.OBSERVABILITY_DATABASE_URL
      ? openNodePostgres(env.OBSERVABILITY_DATABASE_URL, {
          max: 4,
          applicationName: 'popagent-host',
        })
      : undefined
    const embedded = await openEmbedded(dataDir, !application, !observability, log)
    return {
      mode: application ? 'postgres' : 'embedded',
      application: application ?? embedded.application!,
      observability: observability ?? embedded.observability!,
      async close() {
        await Promise.allSettled([
          (application ?? embedded.application)?.close(),
          (observability ?? embedded.observability)?.close(),
        ])
        await unlock()
      },
    }
  } catch (error) {
    await unlock()
    throw error
  }
}

async function openEmbedded(
  dataDir: string,
  wantApplication: boolean,
  wantObservability: boolean,
  log: Logger,
) {
  if (!wantApplication && !wantObservability) return {}
  const started = performance.now()
  let application: DatabaseHandle | undefined
  let observability: DatabaseHandle | undefined
  let created = false
  let layout = 'one instance'
  if (wantApplication && wantObservability) {
    // One PGlite for both: the observability data in a schema of its own (embedded.ts).
    const single = await openEmbeddedSingle(dataDir)
    application = embeddedHandle(single.pglite)
    observability = single.legacyObservability
      ? embeddedHandle(single.legacyObservability)
      : embeddedHandle(single.pglite, { schema: OBSERVABILITY_SCHEMA })
    if (single.legacyObservability) layout = 'two instances (an older observability cluster)'
    created = single.created
  } else {
    const dir = join(dataDir, wantApplication ? 'app' : 'observability')
    created = !isInitialised(dir)
    const handle = embeddedHandle(await openPglite(dir))
    if (wantApplication) application = handle
    else observability = handle
  }
  // PGlite's first start unpacks a 0666 cluster, and every start rewrites pg_internal.init 0644.
  const modesRepaired = await repairDataDirModes(dataDir).catch(async (error: unknown) => {
    await Promise.allSettled([application?.close(), observability?.close()])
    throw error
  })
  log.info('embedded databases open', {
    dataDir,
    created,
    layout,
    modesRepaired,
    ms: Math.round(performance.now() - started),
  })
  return { application, observability }
}
