import { Show } from 'solid-js'
import type { UsageReport } from '../../../runtime/contracts/observability.ts'

/** Dollars with enough digits for a single turn's cents. */
export const usd = (n: number) => `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`

/**
 * Tokens and cost in one line; models without a price show tokens only, and say so.
 *
 * @example <UsageLine report={usage.data()} />
 */
export function UsageLine(props: { report: UsageReport | undefined; label?: string }) {
  return (
    <Show when={props.report?.totals}>
      {(t) => (
        <span class="usage-line muted" title="From the observability database">
          {props.label ?? 'Usage'}: {t().inputTokens.toLocaleString()} in ·{' '}
          {t().outputTokens.toLocaleString()} out
          <Show when={t().cachedInputTokens > 0}> ({t().cachedInputTokens} cached)</Show> ·{' '}
          {usd(t().costUsd)}
          <Show when={t().unpricedModels.length > 0}>
            {' '}
            (no price for {t().unpricedModels.join(', ')})
          </Show>
        </span>
      )}
    </Show>
  )
}
