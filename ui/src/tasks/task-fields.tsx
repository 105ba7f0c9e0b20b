import { A } from '@solidjs/router'
import { Show } from 'solid-js'
import type { Task } from '../../../runtime/contracts/tasks.ts'
import { when } from '../components/dates.ts'

/** A task's internals, for the collapsed details below its result. */
export function TaskFields(props: { task: Task; workspace: string }) {
  const t = () => props.task
  return (
    <dl class="fields">
      <dt>Id</dt>
      <dd class="mono">{t().id}</dd>
      <dt>Kind</dt>
      <dd>{t().kind}</dd>
      <dt>Source</dt>
      <dd>{t().source}</dd>
      <dt>Workspace</dt>
      <dd>{props.workspace}</dd>
      <dt>Model</dt>
      <dd>{t().model ?? 'default'}</dd>
      <dt>Attempts</dt>
      <dd>
        {t().attemptCount} of at most {t().maxAttempts}
      </dd>
      <dt>Created</dt>
      <dd>{when(t().createdAt)}</dd>
      <dt>Finished</dt>
      <dd>{when(t().finishedAt)}</dd>
      <Show when={t().parentTaskId}>
        {(parent) => (
          <>
            <dt>Remediates</dt>
            <dd>
              <A href={`/tasks/${parent()}`}>the failed task</A>
            </dd>
          </>
        )}
      </Show>
      <Show when={t().scheduleId}>
        <dt>Schedule</dt>
        <dd>
          <A href="/schedules">from a schedule</A>
          {t().occurrenceAt ? `, its occurrence of ${when(t().occurrenceAt)}` : ', run now'}
        </dd>
      </Show>
      <Show when={t().resolvedAt}>
        <dt>Resolved</dt>
        <dd>{when(t().resolvedAt)}</dd>
      </Show>
      <dt>Prompt</dt>
      <dd>
        <pre class="box">{t().prompt}</pre>
      </dd>
    </dl>
  )
}
