import { For, Show } from 'solid-js'
import { when } from '../components/dates.ts'
import { getSchedules } from '../queries/schedules.ts'
import { getTasks } from '../queries/tasks.ts'
import { createData } from '../queries/data.ts'
import { ListCard } from './autonomy-list.tsx'

// The newest self-update runs shown; the Tasks page has them all.
const SHOWN = 5

/**
 * Self-update, read only: each workspace's system schedule (on or off, when it runs next) and
 * the newest self-update tasks with their state, each linking to its page. It reads the routes
 * the Schedules and Tasks pages read; changing anything happens there.
 */
export function SelfUpdatePanel() {
  const schedules = createData(() => getSchedules())
  const tasks = createData(() => getTasks())
  const own = () => schedules.data()?.schedules.filter((s) => s.source === 'self-update') ?? []
  const runs = () =>
    tasks
      .data()
      ?.tasks.filter((t) => t.source === 'self-update')
      .slice(0, SHOWN)
  return (
    <ListCard
      title="Self-update"
      note={
        <Show
          when={own().length > 0}
          fallback="No workspace has a self-update schedule (it needs self-update on in Settings and an eligible workspace)."
        >
          <For each={own()}>
            {(s) => (
              <span>
                <a href="#/schedules">{s.name}</a> ({s.workspaceId}):{' '}
                {s.enabled ? `on, next ${s.nextRunAt ? when(s.nextRunAt) : 'not set'}` : 'off'}
                .{' '}
              </span>
            )}
          </For>
        </Show>
      }
      label="Self-update runs"
      error={schedules.error() ?? tasks.error()}
      items={runs()}
      empty="No self-update has run yet."
      columns={['When', 'Task', 'State']}
      row={(t) => (
        <tr>
          <td class="hide-narrow">{when(t.createdAt)}</td>
          <td>
            <a href={`#/tasks/${t.id}`}>{t.title}</a>
          </td>
          <td>
            {t.state}
            <Show when={t.lastError}>{(e) => <div class="muted">{e()}</div>}</Show>
          </td>
        </tr>
      )}
    />
  )
}
