import { createEffect, createSignal, For, onCleanup, Show } from 'solid-js'
import type { CronPreviewAnswer, Schedule } from '../../../runtime/contracts/schedules.ts'
import type { Workspace } from '../../../runtime/contracts/workspaces.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { inZone } from '../components/dates.ts'
import { createPolling } from '../components/polling.ts'
import { StateBadge } from '../components/state-badge.tsx'
import { ErrorNote, Notice } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission, describeError } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import { getModels } from '../queries/models.ts'
import {
  createSchedule,
  deleteSchedule,
  getSchedules,
  patchSchedule,
  previewCron,
  refreshSchedules,
} from '../queries/schedules.ts'
import { getWorkspaces } from '../queries/workspaces.ts'
import './admin.css'

const LABELS = {
  name: 'Name',
  workspaceId: 'Workspace',
  cron: 'Cron expression',
  prompt: 'Prompt',
  model: 'Model',
  maxAttempts: 'Max attempts',
}

/**
 * Cron schedules: the list with the server's timezone, enable/disable and delete per row, and a
 * create form whose cron expression is checked by the compute host as it is typed.
 */
export default function Schedules() {
  const schedules = createData(() => getSchedules())
  const workspaces = createData(() => getWorkspaces())
  const models = createData(() => getModels())
  // A schedule just enabled gets its next run from the host's scheduler within about a second.
  createPolling(refreshSchedules, () =>
    (schedules.data()?.schedules ?? []).some((s) => s.enabled && !s.nextRunAt),
  )
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
      <Show when={schedules.data()}>
        {(list) => (
          <Show
            when={list().schedules.length > 0}
            fallback={<p class="muted">No schedules yet.</p>}
          >
            <div class="table-wrap">
              <table class="list" aria-label="Schedules">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Cron</th>
                    <th>Enabled</th>
                    <th class="nowrap">Next run</th>
                    <th class="hide-narrow">Max attempts</th>
                    <th class="hide-narrow">Source</th>
                    <th class="hide-narrow">Workspace</th>
                    <th>
                      <span class="hide-narrow">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
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
                        <td class="hide-narrow">{s.maxAttempts}</td>
                        <td class="hide-narrow">{s.source}</td>
                        <td class="hide-narrow">{workspaceName(s.workspaceId)}</td>
                        <td>
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
                        </td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </div>
          </Show>
        )}
      </Show>
      <CreateSchedule
        workspaces={workspaces.data()?.workspaces ?? []}
        models={models.data()?.models ?? []}
        onTimezone={setPreviewZone}
      />
    </section>
  )
}

type Preview = CronPreviewAnswer | { error: string } | undefined

function CreateSchedule(props: {
  workspaces: Pick<Workspace, 'id' | 'name'>[]
  models: string[]
  onTimezone: (tz: string) => void
}) {
  const form = createForm({
    name: '',
    workspaceId: '',
    cron: '0 9 * * 1-5',
    prompt: '',
    model: '',
    maxAttempts: '3',
    enabled: true,
  })
  const { busy, error, run } = createSubmission(LABELS)
  const [created, setCreated] = createSignal<string>()
  const [preview, setPreview] = createSignal<Preview>()
  const [checking, setChecking] = createSignal(false)
  const chosenWorkspace = () => form.values.workspaceId || props.workspaces[0]?.id || ''

  // The host checks the expression as it is typed, 300 ms after the last keystroke; an answer to
  // an older expression never replaces a newer one.
  let timer: ReturnType<typeof setTimeout> | undefined
  let asked = 0
  createEffect(() => {
    const expression = form.values.cron.trim()
    clearTimeout(timer)
    const mine = ++asked
    setChecking(!!expression)
    if (!expression) return setPreview(undefined)
    timer = setTimeout(async () => {
      let answer: Preview
      try {
        answer = await previewCron(expression)
        props.onTimezone(answer.timezone)
      } catch (err) {
        answer = { error: describeError(err, LABELS) }
      }
      if (mine !== asked) return
      setPreview(answer)
      setChecking(false)
    }, 300)
  })
  onCleanup(() => clearTimeout(timer))

  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    setCreated(undefined)
    return run(async () => {
      const { name, cron, prompt, enabled, maxAttempts, model } = form.values
      const schedule = await createSchedule({
        name,
        workspaceId: chosenWorkspace(),
        cron,
        prompt,
        enabled,
        maxAttempts: Number(maxAttempts),
        ...(model && { model }),
      })
      setCreated(`Created “${schedule.name}”.`)
      form.set('name', '')
      form.set('prompt', '')
    })
  }

  return (
    <form class="card stack" aria-label="New schedule" onSubmit={submit}>
      <h2>New schedule</h2>
      <div class="grid-form">
        <label>
          Name
          <input
            value={form.values.name}
            onInput={(e) => form.set('name', e.currentTarget.value)}
            required
          />
        </label>
        <label>
          Workspace
          <select
            value={chosenWorkspace()}
            onChange={(e) => form.set('workspaceId', e.currentTarget.value)}
          >
            <For each={props.workspaces}>{(w) => <option value={w.id}>{w.name}</option>}</For>
          </select>
        </label>
        <label>
          Cron expression
          <input
            class="mono"
            value={form.values.cron}
            onInput={(e) => form.set('cron', e.currentTarget.value)}
            spellcheck={false}
            autocomplete="off"
            aria-describedby="cron-preview"
            required
          />
          <span class="field-hint">minute hour day-of-month month day-of-week, or @daily</span>
        </label>
        <div
          id="cron-preview"
          class="wide"
          classList={{ stale: checking() }}
          aria-live="polite"
          aria-busy={checking()}
          aria-label="Cron preview"
        >
          <Show when={preview()} keyed>
            {(answer) =>
              'error' in answer ? (
                <p class="error" role="alert">
                  {answer.error}
                </p>
              ) : (
                <div>
                  <span class="muted">Next occurrences ({answer.timezone}):</span>
                  <ul class="occurrences">
                    <For each={answer.next}>{(at) => <li>{inZone(at, answer.timezone)}</li>}</For>
                  </ul>
                </div>
              )
            }
          </Show>
        </div>
        <label class="wide">
          Prompt
          <textarea
            rows={3}
            value={form.values.prompt}
            onInput={(e) => form.set('prompt', e.currentTarget.value)}
            required
          />
        </label>
        <label>
          Model
          <select
            value={form.values.model}
            onChange={(e) => form.set('model', e.currentTarget.value)}
          >
            <option value="">Default</option>
            <For each={props.models}>{(m) => <option value={m}>{m}</option>}</For>
          </select>
        </label>
        <label>
          Max attempts
          <input
            type="number"
            min="1"
            max="10"
            value={form.values.maxAttempts}
            onInput={(e) => form.set('maxAttempts', e.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={form.values.enabled}
            onChange={(e) => form.set('enabled', e.currentTarget.checked)}
          />
          Enabled
        </label>
      </div>
      <div class="actions">
        <button type="submit" disabled={busy()}>
          Create schedule
        </button>
      </div>
      <Show when={created()}>{(c) => <Notice>{c()}</Notice>}</Show>
      <ErrorNote error={error()} />
    </form>
  )
}
