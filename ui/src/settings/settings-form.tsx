import { createEffect, createSignal, For, on, Show, type JSX } from 'solid-js'
import { ErrorNote, Notice } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission, describeError, fieldProblems } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import { getSettings, patchSettings, type SettingsName } from '../queries/settings.ts'
import type { Field, Group } from './fields.ts'
import { SettingInput } from './setting-input.tsx'

type Values = Record<string, unknown>
type Inputs = Record<string, string | boolean>

// Inputs hold strings; a number field is sent as a number when it reads as one, and as typed
// otherwise, so the server names the field it refuses.
const toInput = (value: unknown) => (typeof value === 'boolean' ? value : String(value ?? ''))
function toWire(field: Field<string>, value: string | boolean): unknown {
  if (field.nullable && value === '') return null
  if (field.type !== 'number' || typeof value !== 'string') return value
  const n = Number(value)
  return value.trim() !== '' && Number.isFinite(n) ? n : value
}

/**
 * One settings singleton as a form driven by its field table. It sends only the fields that
 * changed; the server validates (ranges, model ids against the catalog) and a refusal shows
 * next to the field it names.
 */
export function SettingsForm<K extends string>(props: {
  name: SettingsName
  title: string
  groups: Group<K>[]
  models: string[]
  summary?: (values: Values) => JSX.Element
}) {
  const fields = () => props.groups.flatMap((g) => g.fields)
  const labels = () => Object.fromEntries(fields().map((f) => [f.key, f.label]))
  const inputsOf = (values: Values): Inputs =>
    Object.fromEntries(fields().map((f) => [f.key, toInput(values[f.key])]))
  const saved = createData(() => getSettings(props.name))
  const form = createForm<Inputs>({})
  // What the server holds is the baseline: on the first load and after each save.
  createEffect(on(saved.data, (values) => values && form.reset(inputsOf(values))))
  const { busy, error, setError, run } = createSubmission()
  const [notice, setNotice] = createSignal<string>()
  const changed = () => {
    const keys = new Set(form.changedKeys())
    return fields().filter((f) => keys.has(f.key))
  }
  const submit = async (e: SubmitEvent) => {
    e.preventDefault()
    setError(undefined)
    setNotice(undefined)
    const fieldsChanged = changed()
    if (fieldsChanged.length === 0) return setNotice('Nothing changed.')
    await run(async () => {
      const patch = Object.fromEntries(
        fieldsChanged.map((f) => [f.key, toWire(f, form.values[f.key]!)]),
      )
      form.reset(inputsOf(await patchSettings(props.name, patch)))
      setNotice(`Saved: ${fieldsChanged.map((f) => f.label).join(', ')}.`)
    })
  }
  const problems = () => fieldProblems(error())

  return (
    <form
      class="card stack"
      id={`settings-${props.name}`}
      aria-label={`${props.title} settings`}
      onSubmit={submit}
    >
      <h2>{props.title}</h2>
      <ErrorNote error={saved.error()} />
      <Show when={saved.data()}>
        {(values) => (
          <>
            {props.summary?.(values())}
            <For each={props.groups}>
              {(group) => (
                <fieldset>
                  <legend>{group.legend}</legend>
                  <div class="grid-form">
                    <For each={group.fields}>
                      {(field) => (
                        <SettingInput
                          field={field}
                          value={form.values[field.key] ?? ''}
                          models={props.models}
                          problems={problems()[field.key]}
                          onChange={(v) => {
                            form.set(field.key, v)
                            setNotice(undefined)
                          }}
                        />
                      )}
                    </For>
                  </div>
                </fieldset>
              )}
            </For>
            <div class="actions">
              <button type="submit" disabled={busy()}>
                Save {props.title.toLowerCase()}
              </button>
              <Show when={changed().length > 0}>
                <span class="field-hint">
                  {changed().length} unsaved change{changed().length === 1 ? '' : 's'}
                </span>
              </Show>
            </div>
            <Show when={notice()}>{(n) => <Notice>{n()}</Notice>}</Show>
            <Show when={error()}>
              <ErrorNote error={`Not saved. ${describeError(error(), labels())}`} />
            </Show>
          </>
        )}
      </Show>
    </form>
  )
}
