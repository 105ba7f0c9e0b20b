import type { CatalogRead, ModelCatalog } from '../../runtime/contracts/models.ts'
import { GatewayNotAnswering, requestModels } from './request-models.ts'
import { errorMessage } from '../../runtime/error-message.ts'

const FETCH_TIMEOUT_MS = 5_000

/**
 * The gateway's live model catalog (`GET /models`), cached. A good catalog is kept for `ttlMs`;
 * when a refresh fails the last good one is still served with the error beside it, and a failure
 * is itself remembered for `retryMs` so a down gateway is not asked on every request. Concurrent
 * readers share one fetch.
 */
export function createModelCatalog(options: {
  url: string
  apiKey?: string
  fetch?: typeof fetch
  ttlMs?: number
  retryMs?: number
}) {
  const ttlMs = options.ttlMs ?? 60_000
  const retryMs = options.retryMs ?? 5_000
  let good: { at: number; catalog: ModelCatalog } | undefined
  let failed: { at: number; error: string } | undefined
  let inFlight: Promise<CatalogRead> | undefined

  async function refresh(): Promise<CatalogRead> {
    try {
      const catalog = await fetchCatalog()
      good = { at: Date.now(), catalog }
      failed = undefined
      return { catalog }
    } catch (error) {
      const message = errorMessage(error)
      failed = { at: Date.now(), error: message }
      return { catalog: good?.catalog ?? null, error: message }
    }
  }

  async function fetchCatalog(): Promise<ModelCatalog> {
    let response: Response
    try {
      response = await requestModels({ ...options, timeoutMs: FETCH_TIMEOUT_MS })
    } catch (error) {
      if (error instanceof GatewayNotAnswering && error.timedOut) {
        throw new Error(
          `the model gateway did not answer its catalog within ${FETCH_TIMEOUT_MS} ms`,
        )
      }
      throw error
    }
    if (!response.ok) {
      await response.body?.cancel()
      throw new Error(`the model gateway answered ${response.status} for its catalog`)
    }
    return { models: parseModels(await response.json()), fetchedAt: new Date().toISOString() }
  }

  return {
    read(): Promise<CatalogRead> {
      const now = Date.now()
      if (good && now - good.at < ttlMs) return Promise.resolve({ catalog: good.catalog })
      if (failed && now - failed.at < retryMs) {
        return Promise.resolve({ catalog: good?.catalog ?? null, error: failed.error })
      }
      return (inFlight ??= refresh().finally(() => (inFlight = undefined)))
    },
  }
}

// Gateways name the context window differently; take the first one present.
const WINDOW_KEYS = ['context_length', 'context_window', 'max_context_length', 'max_model_len']

function parseModels(body: unknown): ModelCatalog['models'] {
  const data = (body as { data?: unknown } | null)?.data
  if (!Array.isArray(data)) throw new Error('the model gateway sent a catalog without a data list')
  const models: ModelCatalog['models'] = []
  for (const entry of data) {
    if (!entry || typeof entry !== 'object') continue
    const record = entry as Record<string, unknown>
    if (typeof record.id !== 'string' || record.id.length === 0) continue
    const window = WINDOW_KEYS.map((k) => record[k]).find(
      (v): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0,
    )
    models.push({ id: record.id, contextWindow: window ?? null })
  }
  return models
}

export type ModelCatalogReader = ReturnType<typeof createModelCatalog>
