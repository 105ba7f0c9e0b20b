import type { Db } from '../../db/index.ts'
import type { MemorySettings } from '../../runtime/contracts/settings.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import { createOnce } from '../../runtime/once.ts'
import type { Logger } from '../log.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import type { RunObserver, RunRef } from '../runs/run-events.ts'
import type { RecalledItem } from './candidates.ts'
import { embedPending, gatewayEmbedder, type Embed } from './embeddings.ts'
import { fuse } from './fuse.ts'
import { recallBlock } from './recall-block.ts'
import { hasVectorTable, searchText, searchVector } from './search.ts'
import { spanObserver } from './span-observer.ts'

// An embedding slower than this costs the turn its vector leg, never the turn.
export const EMBED_TIMEOUT_MS = 2_000
const QUERY_CHARS = 2_000

export type RecallOutcome = {
  query: string
  items: RecalledItem[]
  /** The system message, absent when nothing qualified (the prompt is then unchanged). */
  block: string | undefined
  mode: 'hybrid' | 'full-text'
  /** Why the vector leg was not used, when it was meant to be. */
  note?: string
  durationMs: number
}

export type Recall = {
  /**
   * Starts recall for one run beside its other preparation (nothing when recall is off), and
   * gives the observer that indexes the run's question and answer once it completes. With
   * `admitted`, the search (whose vector leg sends the query to the embedding model) waits until
   * the run may start, and is not made when it may not: a chat turn's prompt reaches no model
   * before its claim and its prompt hooks allowed it.
   */
  prepare(input: {
    run: RunRef
    query: string
    settings: MemorySettings
    signal?: AbortSignal
    admitted?: Promise<unknown>
  }): {
    recalling: Promise<RecallOutcome | undefined>
    observer: RunObserver
  }
  /** Recall for a query now (the memory-search tool, the bench). */
  search(
    query: string,
    options: { settings: MemorySettings; excludeSession?: string; signal?: AbortSignal },
  ): Promise<RecallOutcome>
  /** Embeds what has no vector for the current model yet (after writes; at most one at a time). */
  catchUp(settings: MemorySettings): Promise<void>
}

export function createRecall(deps: {
  db: Db
  models: GatewayModels
  log: Logger
  redact: (text: string) => string
}): Recall {
  const { db, log } = deps
  const vectors = createOnce(() => hasVectorTable(db))
  const embedderOf = (model: string): Embed => gatewayEmbedder(deps.models, model)
  let catching: Promise<void> | undefined

  const catchUp: Recall['catchUp'] = (settings) => {
    const model = settings.embeddingModel
    if (!model) return Promise.resolve()
    catching ??= (async () => {
      try {
        if (await vectors()) await embedPending(db, embedderOf(model), model)
      } catch (error) {
        log.warn('recall items could not be embedded; recall uses full text meanwhile', {
          model,
          error: errorMessage(error),
        })
      } finally {
        catching = undefined
      }
    })()
    return catching
  }

  const search: Recall['search'] = async (raw, options) => {
    const started = performance.now()
    const query = raw.slice(0, QUERY_CHARS)
    const model = options.settings.embeddingModel
    const vectorLeg = async () => {
      if (!model) return { candidates: [] }
      if (!(await vectors())) return { candidates: [], note: 'pgvector is not available' }
      try {
        const signal = AbortSignal.any([
          AbortSignal.timeout(EMBED_TIMEOUT_MS),
          ...(options.signal ? [options.signal] : []),
        ])
        const [vector] = await embedderOf(model)([query], signal)
        return { candidates: await searchVector(db, vector!, model, options.excludeSession) }
      } catch (error) {
        const note = `embeddings failed (${errorMessage(error).slice(0, 200)}); full-text recall only`
        log.warn('recall fell back to full text', { model, error: errorMessage(error) })
        return { candidates: [], note: deps.redact(note) }
      }
    }
    const [text, vector] = await Promise.all([
      searchText(db, query, options.excludeSession),
      vectorLeg(),
    ])
    const items = fuse([...text, ...vector.candidates], {
      budgetTokens: options.settings.recallBudgetTokens,
    })
    return {
      query,
      items,
      block: recallBlock(items),
      mode: model && !vector.note ? 'hybrid' : 'full-text',
      ...(vector.note && { note: vector.note }),
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    }
  }

  return {
    search,
    catchUp,
    prepare({ run, query, settings, signal, admitted }) {
      const observer = spanObserver({
        db,
        run,
        query,
        redact: deps.redact,
        log,
        after: () => catchUp(settings),
      })
      if (!settings.recallEnabled || !query.trim()) {
        return { recalling: Promise.resolve(undefined), observer }
      }
      void catchUp(settings)
      const searching = () =>
        search(query, {
          settings,
          ...(run.sessionId && { excludeSession: run.sessionId }),
          ...(signal && { signal }),
        }).catch((error: unknown) => {
          // Recall never fails a run: without it the run goes on as if nothing qualified.
          log.warn('recall failed; the run continues without it', { error: errorMessage(error) })
          return undefined
        })
      const recalling = admitted ? admitted.then(searching, () => undefined) : searching()
      return { recalling, observer }
    },
  }
}
