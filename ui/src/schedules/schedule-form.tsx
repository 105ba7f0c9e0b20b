import { createEffect, createSignal, For, onCleanup, Show } from 'solid-js'
import type { CronPreviewAnswer } from '../../../runtime/contracts/schedules.ts'
import type { Workspace } from '../../../runtime/contracts/workspaces.ts'
import { inZone } from '../components/dates.ts'
import { ErrorNote, Notice } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission, describeError } from '../forms/submission.ts'
import { createSchedule, previewCron } from '../queries/schedules.ts'

const LABELS = {
  name: 'Name',
  workspaceId: 'Workspace',
  cron: 'Cron expression',
  prompt: 'Prompt',
  model: 'Model',
  maxAttempts: 'Max attempts',
}

type Preview = CronPreviewAnswer | { error: string } | undefined

/** The create form; the host checks the cron expression as it is typed. */
export function CreateSchedule(props: {
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
