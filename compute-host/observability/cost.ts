/** A model's price per million tokens; a null cache price means cached tokens cost as input. */
export type Price = {
  inputUsdPerMtok: number
  outputUsdPerMtok: number
  cacheReadUsdPerMtok: number | null
}

/**
 * What tokens cost at a price. Cached input tokens are part of the input count (the gateway
 * reports them that way), so they are taken out of it and charged at the cache price instead.
 *
 * @example costUsd({ inputTokens: 1000, cachedInputTokens: 800, outputTokens: 100 }, sonnet) // 0.00234
 */
export function costUsd(
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number },
  price: Price,
): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens)
  const cacheRate = price.cacheReadUsdPerMtok ?? price.inputUsdPerMtok
  const micro =
    (usage.inputTokens - cached) * price.inputUsdPerMtok +
    cached * cacheRate +
    usage.outputTokens * price.outputUsdPerMtok
  // Rounded to a millionth of a cent: float sums otherwise print as 0.0023400000000000003.
  return Math.round(micro * 100) / 1e8
}
