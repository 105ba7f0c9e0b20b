import { A } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import type { Schedule } from '../../../runtime/contracts/schedules.ts'
import type { TaskState } from '../../../runtime/contracts/tasks.ts'
import { LIVE_TASK_STATES } from '../../../runtime/contracts/task-enums.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { inZone, when } from '../components/dates.ts'
import { createPolling } from '../components/polling.ts'
import { StateBadge } from '../components/state-badge.tsx'
import { ErrorNote } from '../components/status.tsx'
import { Empty, ListTable } from '../components/list-table.tsx'
import { describeError } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import { getModels } from '../queries/models.ts'
import {
  deleteSchedule,
  getSchedules,
  patchSchedule,
  refreshSchedules,
  runSchedule,
} from '../queries/schedules.ts'
import { getWorkspaces } from '../queries/workspaces.ts'
import { ScheduleForm } from '../schedules/schedule-form.tsx'
import { SkipHistory } from '../schedules/skip-history.tsx'
import './admin.css'

const LIVE: readonly TaskState[] = LIVE_TASK_STATES

/**
 * Cron schedules: the list with the server's timezone and each one's last run, enable/disable,
 * run now, edit and delete per row, and a create form whose cron expression is checked by the
 * compute host as it is typed.
 */
export default function Schedules() {
  const schedules = createData(() => getSchedules())
  const workspaces = createData(() => getWorkspaces())
  const models = createData(() => getModels())
  // A schedule just enabled gets its next run from the host's scheduler within about a second;
  // a last run still in flight shows its state as it ends.
  createPolling(refreshSchedules, () =>
    (schedules.data()?.schedules ?? []).some(
      (s) => (s.enabled && !s.nextRunAt) || (s.lastTask && LIVE.includes(s.lastTask.state)),
    ),
  )
  const [editing, setEditing] = createSignal<Schedule>()
  const [previewZone, setPreviewZone] = createSignal<string>()
  // Every schedule carries the server's timezone; with none listed yet, the preview tells it.
  const timezone = () =>
    schedules.data()?.schedules.find((s) => s.timezone)?.timezone ?? previewZone()
  const workspaceName = (id: string) =>
    workspaces.data()?.workspaces.find((w) => w.id === id)?.name ?? id
  const [rowError, setRowError] = createSignal<unknown>()
  const toggle = async (s: Schedule, enabled: boolean) => {
    setRowError(undefined)
    try {
      await patchSchedule(s.id, { enabled })
    } catch (err) {
      setRowError(describeError(err))
      // The checkbox shows what was clicked: the list read again shows what the server holds.
      await refreshSchedules()
    }
  }
  const runNow = async (s: Schedule) => {
    setRowError(undefined)
    try {
      await runSchedule(s.id)
    } catch (err) {
      setRowError(describeError(err))
    }
  }

  return (
    <section class="stack admin">
      <div class="page-head">
        <h1>Schedules</h1>
        <p class="muted" aria-label="Server timezone">
          <Show
            when={timezone()}
            fallback="Server timezone unknown (the compute host did not answer)"
          >
            {(tz) => (
              <>
                Times are in the server's timezone: <strong>{tz()}</strong>
              </>
            )}
          </Show>
        </p>
      </div>
      <ErrorNote error={schedules.error()} />
      <ErrorNote error={rowError()} />
      <Show when={editing()} keyed>
        {(s) => (
          <ScheduleForm
            workspaces={workspaces.data()?.workspaces ?? []}
            models={models.data()?.models ?? []}
            onTimezone={setPreviewZone}
            schedule={s}
            onDone={() => setEditing(undefined)}
          />
        )}
      </Show>
      <Show when={schedules.data()}>
        {(list) => (
          <Show when={list().schedules.length > 0} fallback={<Empty>No schedules yet.</Empty>}>
            <ListTable
              label="Schedules"
              head={
                <>
                  <th>Name</th>
                  <th>Cron</th>
                  <th>Enabled</th>
                  <th class="nowrap">Next run</th>
                  <th class="nowrap">Last run</th>
                  <th class="hide-narrow">Max attempts</th>
                  <th class="hide-narrow">Source</th>
                  <th class="hide-narrow">Workspace</th>
                  <th>
                    <span class="hide-narrow">Actions</span>
                  </th>
                </>
              }
            >
              <For each={list().schedules}>
                {(s) => (
                  <tr data-schedule-id={s.id}>
                    <td>{s.name}</td>
                    <td class="mono nowrap">{s.cron}</td>
                    <td>
                      <label class="check">
                        <input
                          type="checkbox"
                          checked={s.enabled}
                          aria-label={`Enabled: ${s.name}`}
                          onChange={(e) => void toggle(s, e.currentTarget.checked)}
                        />
                        <StateBadge state={s.enabled ? 'on' : 'off'}>
                          {s.enabled ? 'on' : 'off'}
                        </StateBadge>
                      </label>
                    </td>
                    <td class="nowrap">
                      {s.nextRunAt
                        ? s.timezone
                          ? inZone(s.nextRunAt, s.timezone, 'medium')
                          : s.nextRunAt
                        : s.enabled
                          ? 'being computed'
                          : '—'}
                    </td>
                    <td class="nowrap">
                      <Show when={s.lastTask} fallback="—">
                        {(last) => (
                          <A href={`/tasks/${last().id}`} title={`Task ${last().id}`}>
                            <StateBadge state={last().state} /> {when(last().createdAt)}
                          </A>
                        )}
                      </Show>
                      <Show when={s.skippedCount}>
                        <SkipHistory id={s.id} count={s.skippedCount} />
                      </Show>
                    </td>
                    <td class="hide-narrow">{s.maxAttempts}</td>
                    <td class="hide-narrow">{s.source}</td>
                    <td class="hide-narrow">{workspaceName(s.workspaceId)}</td>
                    <td>
                      <div class="actions">
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Run ${s.name} now`}
                          onClick={() => void runNow(s)}
                        >
                          Run now
                        </button>
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Edit ${s.name}`}
                          onClick={() => setEditing(s)}
                        >
                          Edit
                        </button>
                        <Show
                          when={s.source === 'user'}
                          fallback={<span class="muted">system</span>}
                        >
                          <ConfirmAction
                            label="Delete"
                            name={`Delete ${s.name}`}
                            question={`Delete “${s.name}”?`}
                            confirmLabel="Yes, delete"
                            onConfirm={() => deleteSchedule(s.id)}
                          />
                        </Show>
                      </div>
                    </td>
                  </tr>
                )}
              </For>
            </ListTable>
          </Show>
        )}
      </Show>
      <ScheduleForm
        workspaces={workspaces.data()?.workspaces ?? []}
        models={models.data()?.models ?? []}
        onTimezone={setPreviewZone}
      />
    </section>
  )
}
