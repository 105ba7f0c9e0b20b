import type { Db } from '../../db/index.ts'
import type { Logger } from '../log.ts'
import type { RunPrices } from '../runs/cost-cap.ts'
import type { Price } from './cost.ts'
import { currentPrices } from './model-prices.ts'

// How long a read of the price table serves runs before it is read again in the background.
const FRESH_MS = 60_000
// With no table read yet, how long a run waits for it, and for how long after a failed or slow
// read runs go on unpriced at once instead of waiting again.
const WAIT_MS = 1_000
const RETRY_MS = 30_000

/**
 * The price table as the run path reads it before every run (the cost cap, issue 41): read once,
 * then served from memory and re-read in the background once a minute, so a chat turn never
 * waits on the observability database after the first. A price set through this host is seen by
 * its next run (`invalidate`); one set through another host within a minute.
 *
 * A read that fails keeps the last good table. With none yet, a run waits for the first read at
 * most a second, and after a failed or slow read runs go on at once for 30 s while it is retried
 * in the background: an observability database that is away never holds a turn up. Such a run is
 * told why (`unavailable`): its calls are then unpriced, and the budget it reports says so.
 */
export function createPriceCache(db: Db, log: Logger) {
  let held: { prices: RunPrices; at: number } | undefined
  let reading: Promise<RunPrices> | undefined
  let missedAt = Number.NEGATIVE_INFINITY
  const unavailable = (why: string): RunPrices => ({ lookup: () => undefined, unavailable: why })
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
        missedAt = Date.now()
        return held?.prices ?? unavailable('the price table could not be read')
      })
      .finally(() => {
        reading = undefined
      }))
  }
  return {
    /** The prices for a run about to start. */
    async current(): Promise<RunPrices> {
      if (held) {
        if (Date.now() - held.at > FRESH_MS) void read()
        return held.prices
      }
      const pending = read()
      if (Date.now() - missedAt < RETRY_MS) return unavailable('the price table could not be read')
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<RunPrices>((resolve) => {
        timer = setTimeout(() => {
          missedAt = Date.now()
          resolve(unavailable(`the price table did not answer within ${WAIT_MS / 1000} s`))
        }, WAIT_MS)
      })
      return Promise.race([pending, late]).finally(() => clearTimeout(timer))
    },
    /** A price was just set: the next run reads the table again. */
    invalidate() {
      generation += 1
      held = undefined
      reading = undefined
      // It was just written, so it answers again.
      missedAt = Number.NEGATIVE_INFINITY
    },
  }
}

export type PriceCache = ReturnType<typeof createPriceCache>
