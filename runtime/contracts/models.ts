import { z } from 'zod'

/** The gateway's model catalog as the compute host caches it. */
export const ModelCatalog = z.object({
  models: z.array(z.object({ id: z.string(), contextWindow: z.number().nullable() })),
  fetchedAt: z.string(),
})
export type ModelCatalog = z.infer<typeof ModelCatalog>

/**
 * What the host answers for the catalog: the newest good catalog (possibly older than the cache
 * period when the gateway stopped answering) or none, and the last error when there was one.
 */
export const CatalogRead = z.object({
  catalog: ModelCatalog.nullable(),
  error: z.string().optional(),
})
export type CatalogRead = z.infer<typeof CatalogRead>

/** `GET /api/models`: what the model picker shows. */
export const ModelsBody = z.object({
  models: z.array(z.string()),
  contextWindows: z.record(z.string(), z.number()),
  defaultModel: z.string(),
  /** Set when the live catalog could not be read; the list may then be only the default. */
  warning: z.string().optional(),
})
export type ModelsBody = z.infer<typeof ModelsBody>
