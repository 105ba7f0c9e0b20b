import { sql } from '../../drizzle-orm.ts'
import { check, numeric, pgTable, text, timestamp, unique, uuid } from '../../drizzle-pg-core.ts'

const usdPerMtok = () => numeric({ precision: 14, scale: 6, mode: 'number' })

/**
 * What a model costs, in US dollars per million tokens, from `effective_from` on. Usage is stored
 * as token counts; cost is computed when read, from the price in effect at the time, because
 * Mastra's own price table does not know models by their gateway names. A price change is a new
 * row, so past figures keep the price they had.
 */
export const modelPrices = pgTable(
  'popagent_model_prices',
  {
    id: uuid().primaryKey().defaultRandom(),
    provider: text().notNull(),
    model: text().notNull(),
    inputUsdPerMtok: usdPerMtok().notNull(),
    outputUsdPerMtok: usdPerMtok().notNull(),
    /** Null when the model has no separate price for cached tokens. */
    cacheReadUsdPerMtok: usdPerMtok(),
    cacheWriteUsdPerMtok: usdPerMtok(),
    effectiveFrom: timestamp({ withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp({ withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    unique('popagent_model_prices_effective').on(t.provider, t.model, t.effectiveFrom),
    check(
      'popagent_model_prices_nonnegative',
      sql`${t.inputUsdPerMtok} >= 0 and ${t.outputUsdPerMtok} >= 0
        and coalesce(${t.cacheReadUsdPerMtok}, 0) >= 0 and coalesce(${t.cacheWriteUsdPerMtok}, 0) >= 0`,
    ),
  ],
)
