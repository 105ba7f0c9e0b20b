import { A } from '@solidjs/router'
import { createSignal, For } from 'solid-js'
import { when } from '../components/dates.ts'
import { ErrorNote } from '../components/status.tsx'
import { createData } from '../queries/data.ts'
import { getScheduleHistory } from '../queries/schedules.ts'

/**
 * "7 skipped" under a schedule's last run; opened, its newest occurrences: each fired one links
 * its task, each skipped one says why. Read only when opened.
 */
export function SkipHistory(props: { id: string; count: number }) {
  const [open, setOpen] = createSignal(false)
  const history = createData(() => (open() ? getScheduleHistory(props.id) : undefined))
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{props.count} skipped</summary>
      <ErrorNote error={history.error()} />
      <ul class="occurrences">
        <For each={history.data()?.history}>
          {(o) => (
            <li>
              {when(o.occurrenceAt)}:{' '}
              {o.taskId ? <A href={`/tasks/${o.taskId}`}>fired</A> : o.reason}
            </li>
          )}
        </For>
      </ul>
    </details>
  )
}
