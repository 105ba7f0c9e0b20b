import type { CatalogRead } from '../contracts/models.ts'
import { errorMessage } from '../error-message.ts'
import { AppError } from '../errors.ts'

export const UnknownModel = AppError.define(
  'UNKNOWN_MODEL',
  400,
  'the model gateway does not offer this model',
)

/** The model ids a request names, by the field that names them (`null`/absent: nothing to check). */
export type ModelFields = Record<string, string | null | undefined>

/**
 * The one rule for every model id a request names, on the edge (settings, agents, tasks,
 * schedules) and on the host (a chat turn, which the host checks against its own cached catalog
 * so a turn makes no extra call for it): ids the catalog does not list are a 400 UNKNOWN_MODEL
 * that names each refused field, in the `fields` shape of a VALIDATION_FAILED so forms show it
 * beside the field. The catalog is read only when the request names a model. With no catalog at
 * all (gateway or host down, or a reader that failed) it fails open and returns what it let
 * through unchecked, for the caller to log: an outage never locks the owner out of their settings
 * or their work. A stale catalog still counts as a catalog.
 */
export async function refuseUnknownModels(
  named: ModelFields,
  read: () => Promise<CatalogRead>,
): Promise<{ unchecked: Record<string, string>; error?: string } | undefined> {
  const wanted = Object.entries(named).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  )
  if (wanted.length === 0) return undefined
  const { catalog, error } = await read().catch((failure: unknown) => ({
    catalog: null,
    error: errorMessage(failure),
  }))
  if (!catalog) return { unchecked: Object.fromEntries(wanted), ...(error && { error }) }
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
  return undefined
}

/** The warning both sides log when ids were let through without a catalog. */
export const UNCHECKED_MODELS_WARNING = 'model ids accepted without a catalog check'
