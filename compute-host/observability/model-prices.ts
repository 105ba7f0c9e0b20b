import { and, desc, eq, lte } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { modelPrices } from '../../db/observability/schema/index.ts'
import type { ModelPrice, SetModelPrice } from '../../runtime/contracts/observability.ts'
import type { Price } from './cost.ts'
import { USAGE_PROVIDER } from './store-tracer.ts'

/**
 * The owner's price table (popagent_model_prices, in the observability database). A change is a
 * new row from its `effectiveFrom` on, so a figure keeps the price it had at its time.
 */
export async function setModelPrice(db: Db, body: SetModelPrice): Promise<ModelPrice> {
  const [row] = await db
    .insert(modelPrices)
    .values({
      provider: USAGE_PROVIDER,
      model: body.model,
      inputUsdPerMtok: body.inputUsdPerMtok,
      outputUsdPerMtok: body.outputUsdPerMtok,
      cacheReadUsdPerMtok: body.cacheReadUsdPerMtok ?? null,
      effectiveFrom: body.effectiveFrom ? new Date(body.effectiveFrom) : new Date(),
    })
    .onConflictDoUpdate({
      target: [modelPrices.provider, modelPrices.model, modelPrices.effectiveFrom],
      set: {
        inputUsdPerMtok: body.inputUsdPerMtok,
        outputUsdPerMtok: body.outputUsdPerMtok,
        cacheReadUsdPerMtok: body.cacheReadUsdPerMtok ?? null,
      },
    })
    .returning()
  return toPrice(row!)
}

/** The price of each model in effect now: the newest row not in the future. */
export async function currentPrices(db: Db, at = new Date()): Promise<ModelPrice[]> {
  const rows = await db
    .select()
    .from(modelPrices)
    .where(and(eq(modelPrices.provider, USAGE_PROVIDER), lte(modelPrices.effectiveFrom, at)))
    .orderBy(desc(modelPrices.effectiveFrom))
  const newest = new Map<string, ModelPrice>()
  for (const row of rows) if (!newest.has(row.model)) newest.set(row.model, toPrice(row))
  return [...newest.values()].sort((a, b) => a.model.localeCompare(b.model))
}

/** Looks a model's price up as of a time; the rows are read once per report. */
export async function priceBook(db: Db): Promise<(model: string, at: Date) => Price | undefined> {
  const rows = await db
    .select()
    .from(modelPrices)
    .where(eq(modelPrices.provider, USAGE_PROVIDER))
    .orderBy(desc(modelPrices.effectiveFrom))
  return (model, at) => {
    const row = rows.find((r) => r.model === model && r.effectiveFrom <= at)
    return row && toPrice(row)
  }
}

function toPrice(row: typeof modelPrices.$inferSelect): ModelPrice {
  return {
    model: row.model,
    inputUsdPerMtok: row.inputUsdPerMtok,
    outputUsdPerMtok: row.outputUsdPerMtok,
    cacheReadUsdPerMtok: row.cacheReadUsdPerMtok,
    effectiveFrom: row.effectiveFrom.toISOString(),
  }
}
