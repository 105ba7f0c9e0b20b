import { Hono } from 'hono'
import type { ModelsBody } from '../../runtime/contracts/models.ts'
import * as Settings from '../../runtime/settings/index.ts'
import type { AppEnv } from '../env.ts'
import { readCatalog } from '../known-models.ts'

/**
 * The model picker's data: the gateway's catalog merged with the persisted effective default. The
 * default is always listed (first when the catalog lacks it), so the picker works while the
 * gateway is down; the warning says why the list is short.
 */
export const models = new Hono<AppEnv>().get('/', async (c) => {
  const [settings, { catalog, error }] = await Promise.all([
    Settings.agentRuntime.get(c.var.db),
    readCatalog(c),
  ])
  const defaultModel = settings.effectiveDefaultModel
  const ids = catalog?.models.map((m) => m.id) ?? []
  const contextWindows: Record<string, number> = {}
  for (const m of catalog?.models ?? []) if (m.contextWindow) contextWindows[m.id] = m.contextWindow
  const body: ModelsBody = {
    models: ids.includes(defaultModel) ? ids : [defaultModel, ...ids],
    contextWindows,
    defaultModel,
    ...(error && {
      warning: catalog
        ? `showing the last catalog read at ${catalog.fetchedAt}: ${error}`
        : `the model catalog is unavailable (${error}); only the default model is listed`,
    }),
  }
  return c.json(body, 200)
})
