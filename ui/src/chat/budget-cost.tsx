import { Show } from 'solid-js'
import type { BudgetReport } from '../../../runtime/contracts/chat.ts'

const usd = (n: number) => `$${n.toFixed(n >= 1 ? 2 : 4)}`

/**
 * The cost part of a turn's budget line, beside its tokens: what the priced calls cost of the cap,
 * and which models the cap did not count because they have no price (or that none was priced
 * because the price table could not be read). Turns saved before cost caps show nothing.
 */
export function BudgetCost(props: { budget: BudgetReport }) {
  const b = () => props.budget
  return (
    <>
      <Show when={b().limits.costUsd !== undefined}>
        {' · '}
        {usd(b().used.costUsd ?? 0)} of {usd(b().limits.costUsd ?? 0)} cost cap
      </Show>
      <Show when={b().pricesUnavailable}>
        {' · '}
        <span class="muted">cost not counted: the model prices could not be read</span>
      </Show>
      <Show when={!b().pricesUnavailable && b().unpricedModels?.length}>
        {' · '}
        <span class="muted" title="Add a price under Observability → prices to cap its cost">
          no price for {b().unpricedModels!.join(', ')}: counted under the token limits only
        </span>
      </Show>
    </>
  )
}
