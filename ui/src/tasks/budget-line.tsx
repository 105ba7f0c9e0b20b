import { Show } from 'solid-js'
import type { BudgetReport } from '../../../runtime/contracts/chat.ts'

/**
 * The budget used so far, as a step or the budget's end recorded it: tokens, tool calls, and the
 * cost of the tree's cap (with the models it does not count, having no price).
 */
export function BudgetLine(props: { record: Record<string, unknown> }) {
  const budget = () => {
    const b = props.record.budget ?? (props.record.used ? props.record : undefined)
    return b && typeof b === 'object' ? (b as Partial<BudgetReport>) : undefined
  }
  return (
    <Show when={budget()?.used}>
      {(used) => (
        <p class="muted">
          budget used: {used().inputTokens} / {budget()?.limits?.inputTokens} input tokens ·{' '}
          {used().outputTokens} / {budget()?.limits?.outputTokens} output tokens ·{' '}
          {used().toolCalls} / {budget()?.limits?.toolCalls} tool calls
          <Show when={budget()?.limits?.costUsd !== undefined}>
            {' · '}
            {(used().costUsd ?? 0).toFixed(4)} / {budget()?.limits?.costUsd} USD cost cap
          </Show>
          <Show when={budget()?.unpricedModels?.length}>
            {' · '}no price for {budget()?.unpricedModels?.join(', ')}: tokens only
          </Show>
          <Show when={budget()?.exhausted}>{(k) => <strong> · ended by {k()}</strong>}</Show>
        </p>
      )}
    </Show>
  )
}
