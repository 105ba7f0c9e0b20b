import { createEffect, createSignal, For, onCleanup, Show } from 'solid-js'
import type {
  CronPreviewAnswer,
  Schedule,
  ScheduleCatchUp,
} from '../../../runtime/contracts/schedules.ts'
import { SCHEDULE_CATCH_UPS } from '../../../runtime/contracts/task-enums.ts'
import type { Workspace } from '../../../runtime/contracts/workspaces.ts'
import { inZone } from '../components/dates.ts'
import { ErrorNote, Notice } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission, describeError } from '../forms/submission.ts'
import { createSchedule, patchSchedule, previewCron } from '../queries/schedules.ts'
import { DeliverToField } from '../channels/deliver-to.tsx'

const LABELS = {
  name: 'Name',
  workspaceId: 'Workspace',
  cron: 'Cron expression',
  prompt: 'Prompt',
  model: 'Model',
  maxAttempts: 'Max attempts',
  catchUp: 'Missed runs',
  deliverTo: 'Deliver result to',
}

type Preview = CronPreviewAnswer | { error: string } | undefined

const valuesOf = (s: Schedule | undefined) => ({
  name: s?.name ?? '',
  workspaceId: s?.workspaceId ?? '',
  cron: s?.cron ?? '0 9 * * 1-5',
  prompt: s?.prompt ?? '',
  model: s?.model ?? '',
  maxAttempts: String(s?.maxAttempts ?? 3),
  catchUp: s?.catchUp ?? ('latest' as ScheduleCatchUp),
  enabled: s?.enabled ?? true,
  deliverTo: s?.deliverTo ?? '',
})

/**
 * The create form, or with `schedule` the same form filled in to edit it (a PATCH of the fields
 * changed; a system schedule takes only its cron and enabled). The host checks the cron
 * expression as it is typed.
 */
export function ScheduleForm(props: {
  workspaces: Pick<Workspace, 'id' | 'name'>[]
  models: string[]
  onTimezone: (tz: string) => void
  schedule?: Schedule
  onDone?: () => void
}) {
  // The form is made for one schedule: the page keys it, so another one is a new form.
  const editing = props.schedule
  const form = createForm(valuesOf(editing))
  const { busy, error, run } = createSubmission(LABELS)
  const [created, setCreated] = createSignal<string>()
  const [preview, setPreview] = createSignal<Preview>()
  const [checking, setChecking] = createSignal(false)
  const chosenWorkspace = () => form.values.workspaceId || props.workspaces[0]?.id || ''
  const system = editing !== undefined && editing.source !== 'user'
  const previewId = editing ? 'cron-preview-edit' : 'cron-preview'
  // A model the catalog no longer lists stays choosable: the form must show what is stored.
  const models = () => [...new Set([...(editing?.model ? [editing.model] : []), ...props.models])]

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

  const save = async (s: Schedule) => {
    const { maxAttempts, model, deliverTo, workspaceId: _fixed, ...rest } = form.changed()
    await patchSchedule(s.id, {
      ...rest,
      ...(maxAttempts !== undefined && { maxAttempts: Number(maxAttempts) }),
      // An emptied model drops the override; the server's default applies again.
      ...(model !== undefined && { model: model || null }),
      // "None" stops the posting (null).
      ...(deliverTo !== undefined && { deliverTo: deliverTo || null }),
    })
    props.onDone?.()
  }
  const create = async () => {
    const { name, cron, prompt, enabled, maxAttempts, model, catchUp, deliverTo } = form.values
    const schedule = await createSchedule({
      name,
      workspaceId: chosenWorkspace(),
      cron,
      prompt,
      enabled,
      catchUp,
      maxAttempts: Number(maxAttempts),
      ...(model && { model }),
      ...(deliverTo && { deliverTo }),
    })
    setCreated(`Created “${schedule.name}”.`)
    form.set('name', '')
    form.set('prompt', '')
  }
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    setCreated(undefined)
    return run(async () => {
      if (!editing) return create()
      if (form.changedKeys().length > 0) await save(editing)
      else props.onDone?.()
    })
  }

  return (
    <form
      class="card stack"
      aria-label={editing ? 'Edit schedule' : 'New schedule'}
      onSubmit={submit}
    >
      <h2>{editing ? `Edit “${editing.name}”` : 'New schedule'}</h2>
      <div class="grid-form">
        <label>
          Name
          <input
            value={form.values.name}
            onInput={(e) => form.set('name', e.currentTarget.value)}
            disabled={system}
            required
          />
        </label>
        <label>
          Workspace
          <select
            value={chosenWorkspace()}
            onChange={(e) => form.set('workspaceId', e.currentTarget.value)}
            disabled={!!editing}
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
            aria-describedby={previewId}
            required
          />
          <span class="field-hint">minute hour day-of-month month day-of-week, or @daily</span>
        </label>
        <div
          id={previewId}
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
            disabled={system}
            required
          />
        </label>
        <label>
          Model
          <select
            value={form.values.model}
            onChange={(e) => form.set('model', e.currentTarget.value)}
            disabled={system}
          >
            <option value="">Default</option>
            <For each={models()}>{(m) => <option value={m}>{m}</option>}</For>
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
            disabled={system}
          />
        </label>
        <label>
          Missed runs
          <select
            value={form.values.catchUp}
            onChange={(e) => form.set('catchUp', e.currentTarget.value as ScheduleCatchUp)}
          >
            <For each={SCHEDULE_CATCH_UPS}>{(c) => <option>{c}</option>}</For>
          </select>
          <span class="field-hint">
            while no host ran: fire the latest, each (24 at most), or none
          </span>
        </label>
        <DeliverToField
          value={form.values.deliverTo}
          onChange={(v) => form.set('deliverTo', v)}
          disabled={system}
        />
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
          {editing ? 'Save schedule' : 'Create schedule'}
        </button>
        <Show when={editing}>
          <button type="button" class="secondary" onClick={() => props.onDone?.()}>
            Cancel
          </button>
        </Show>
      </div>
      <Show when={created()}>{(c) => <Notice>{c()}</Notice>}</Show>
      <ErrorNote error={error()} />
    </form>
  )
}
