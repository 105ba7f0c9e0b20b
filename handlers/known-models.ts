import type { Context } from 'hono'
import type { CatalogRead } from '../runtime/contracts/models.ts'
import {
  refuseUnknownModels,
  UNCHECKED_MODELS_WARNING,
  type ModelFields,
} from '../runtime/models/known-models.ts'
import type { AppEnv } from './env.ts'
import { edgeLog } from './log.ts'
import { errorMessage } from '../runtime/error-message.ts'

/** The host's cached catalog, or none with the reason (gateway down, host down). */
export async function readCatalog(c: Context<AppEnv>): Promise<CatalogRead> {
  try {
    return await c.var.host.models({ timeoutMs: 6_000 })
  } catch (error) {
    return { catalog: null, error: errorMessage(error) }
  }
}

/**
 * The edge's model check for the routes that take a model id (settings, agents, tasks,
 * schedules): the rule of runtime/models/known-models.ts over the host's catalog. A chat turn's
 * model is checked by the host itself (compute-host/host-handlers.ts), which holds the catalog.
 */
export async function assertKnownModels(c: Context<AppEnv>, named: ModelFields): Promise<void> {
  const unchecked = await refuseUnknownModels(named, () => readCatalog(c))
  if (unchecked) {
    edgeLog('warn', c, UNCHECKED_MODELS_WARNING, {
      models: unchecked.unchecked,
      error: unchecked.error,
    })
  }
}
