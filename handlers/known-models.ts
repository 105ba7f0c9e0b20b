import type { Context } from 'hono'
import type { CatalogRead } from '../runtime/contracts/models.ts'
import { AppError } from '../runtime/errors.ts'
import type { AppEnv } from './env.ts'
import { edgeLog } from './log.ts'

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
    return { catalog: null, error: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * Refuses model ids the gateway's catalog does not list. With no catalog at all (gateway or host
 * down) it fails open: the change is accepted and a warning logged, so an outage never locks the
 * owner out of their settings. A stale catalog still counts as a catalog.
 */
export async function assertKnownModels(
  c: Context<AppEnv>,
  ids: readonly (string | null | undefined)[],
): Promise<void> {
  const wanted = ids.filter((id): id is string => typeof id === 'string')
  if (wanted.length === 0) return
  const { catalog, error } = await readCatalog(c)
  if (!catalog) {
    edgeLog('warn', c, 'model ids accepted without a catalog check', { models: wanted, error })
    return
  }
  const known = new Set(catalog.models.map((m) => m.id))
  const unknown = wanted.filter((id) => !known.has(id))
  if (unknown.length > 0) {
    throw new UnknownModel(
      { models: unknown },
      { message: `the model gateway does not offer ${unknown.map((m) => `"${m}"`).join(', ')}` },
    )
  }
}
