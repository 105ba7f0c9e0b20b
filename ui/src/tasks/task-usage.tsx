import { Show } from 'solid-js'
import type { Task } from '../../../runtime/contracts/tasks.ts'
import { UsageLine } from '../components/usage-cost.tsx'
import { createData } from '../queries/data.ts'
import { getRunUsage } from '../queries/observability.ts'

/**
 * Tokens in and out over all the task's attempts, priced from the observability database; the
 * task's own budget figures when that has none (observability off or its records expired).
 */
export function TaskUsage(props: { task: Task }) {
  const usage = createData(() => getRunUsage({ taskId: props.task.id }, props.task.attemptCount))
  const priced = () => {
    const totals = usage.data()?.totals
    return totals && totals.inputTokens + totals.outputTokens > 0
  }
  return (
    <Show
      when={priced()}
      fallback={
        <Show when={props.task.budgetUsed}>
          {(used) => (
            <span class="usage-line muted">
              Usage: {used().inputTokens.toLocaleString()} in ·{' '}
              {used().outputTokens.toLocaleString()} out · {used().toolCalls} tool calls
            </span>
          )}
        </Show>
      }
    >
      <UsageLine report={usage.data()} />
    </Show>
  )
}
