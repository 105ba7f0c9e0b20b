import type { Db } from '../../db/index.ts'
import type { Logger } from '../log.ts'
import type { RunPrices } from '../runs/cost-cap.ts'
import type { Price } from './cost.ts'
import { currentPrices } from './model-prices.ts'

// How long a read of the price table serves runs before it is read again in the background.
const FRESH_MS = 60_000

/**
 * The price table as the run path reads it before every run (the cost cap, issue 41): read once,
 * then served from memory and re-read in the background once a minute, so a chat turn never
 * waits on the observability database after the first. A price set through this host is seen by
 * its next run (`invalidate`); one set through another host within a minute.
 *
 * A read that fails keeps the last good table. With none yet, the run is told why (`unavailable`):
 * its calls are then unpriced, and the budget it reports says so.
 */
export function createPriceCache(db: Db, log: Logger) {
  let held: { prices: RunPrices; at: number } | undefined
  let reading: Promise<RunPrices> | undefined
  // A read started before the last `invalidate` must not keep what it read.
  let generation = 0
  const read = (): Promise<RunPrices> => {
    const started = generation
    return (reading ??= currentPrices(db)
      .then((rows): RunPrices => {
        const byModel = new Map<string, Price>(rows.map((row) => [row.model, row]))
        const prices = { lookup: (model: string) => byModel.get(model) }
        if (started === generation) held = { prices, at: Date.now() }
        return prices
      })
      .catch((error: unknown): RunPrices => {
        log.warn('could not read the model prices; runs keep the last ones read', { error })
        if (held) return held.prices
        return { lookup: () => undefined, unavailable: `the price table could not be read` }
      })
      .finally(() => {
        reading = undefined
      }))
  }
  return {
    /** The prices for a run about to start. */
    async current(): Promise<RunPrices> {
      if (!held) return read()
      if (Date.now() - held.at > FRESH_MS) void read()
      return held.prices
    },
    /** A price was just set: the next run reads the table again. */
    invalidate() {
      generation += 1
      held = undefined
      reading = undefined
    },
  }
}

export type PriceCache = ReturnType<typeof createPriceCache>
