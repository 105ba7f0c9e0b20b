import type { Context } from 'hono'
import type { CatalogRead } from '../runtime/contracts/models.ts'
import { AppError } from '../runtime/errors.ts'
import type { AppEnv } from './env.ts'
import { edgeLog } from './log.ts'
import { errorMessage } from '../runtime/error-message.ts'

export const UnknownModel = AppError.define(
  'UNKNOWN_MODEL',
  400,
  'the model gateway does not offer this model',
)

/** The host's cached catalog, or none with the reason (gateway down, host down). */
export async function readCatalog(c: Context<AppEnv>): Promise<CatalogRead> {
  try {
    return await c.var.host.models({ timeoutMs: 6_000 })
  } catch (error) {
    return { catalog: null, error: errorMessage(error) }
  }
}

/** The model ids a request names, by the field that names them (`null`/absent: nothing to check). */
export type ModelFields = Record<string, string | null | undefined>

/**
 * The one check for every route that takes a model id (settings, agents, tasks, schedules, chat):
 * ids the gateway's catalog does not list are a 400 UNKNOWN_MODEL that names each refused field,
 * in the `fields` shape of a VALIDATION_FAILED so forms show it beside the field. With no catalog
 * at all (gateway or host down) it fails open: the change is accepted and a warning logged, so an
 * outage never locks the owner out of their settings or their work. A stale catalog still counts
 * as a catalog.
 */
export async function assertKnownModels(c: Context<AppEnv>, named: ModelFields): Promise<void> {
  const wanted = Object.entries(named).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  )
  if (wanted.length === 0) return
  const { catalog, error } = await readCatalog(c)
  if (!catalog) {
    const models = Object.fromEntries(wanted)
    edgeLog('warn', c, 'model ids accepted without a catalog check', { models, error })
    return
  }
  const known = new Set(catalog.models.map((m) => m.id))
  const unknown = wanted.filter(([, id]) => !known.has(id))
  if (unknown.length > 0) {
    const named = unknown.map(([field, id]) => `"${id}" (${field})`).join(', ')
    const fields = Object.fromEntries(
      unknown.map(([field]) => [field, ['not offered by the model gateway']]),
    )
    throw new UnknownModel(
      { models: unknown.map(([, id]) => id), fields },
      { message: `the model gateway does not offer ${named}` },
    )
  }
}
