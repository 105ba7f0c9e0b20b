import { For, Match, Show, Switch } from 'solid-js'
import type { Field } from './fields.ts'

/** One setting's input by its field type, with its hint and the server's problems with it. */
export function SettingInput(props: {
  field: Field<string>
  value: string | boolean
  models: string[]
  problems: string[] | undefined
  onChange: (value: string | boolean) => void
}) {
  const text = () => (typeof props.value === 'string' ? props.value : '')
  const invalid = () => (props.problems ? 'true' : undefined)
  const problem = (
    <>
      <Show when={props.field.hint}>
        <span class="field-hint">{props.field.hint}</span>
      </Show>
      <Show when={props.field.notBuilt}>
        {(why) => <span class="field-hint">Not built yet: {why()}.</span>}
      </Show>
      <Show when={props.problems}>{(p) => <span class="field-error">{p().join(', ')}</span>}</Show>
    </>
  )
  return (
    <Switch>
      <Match when={props.field.type === 'bool'}>
        <div>
          <label class="check">
            <input
              type="checkbox"
              checked={props.value === true && !props.field.notBuilt}
              disabled={props.field.notBuilt !== undefined}
              aria-invalid={invalid()}
              onChange={(e) => props.onChange(e.currentTarget.checked)}
            />
            {props.field.label}
          </label>
          {problem}
        </div>
      </Match>
      <Match when={props.field.type === 'textarea'}>
        <label class="wide">
          {props.field.label}
          <textarea
            rows={3}
            value={text()}
            aria-invalid={invalid()}
            onInput={(e) => props.onChange(e.currentTarget.value)}
          />
          {problem}
        </label>
      </Match>
      <Match when={props.field.type === 'select' || props.field.type === 'model'}>
        <label>
          {props.field.label}
          <select
            value={text()}
            aria-invalid={invalid()}
            onChange={(e) => props.onChange(e.currentTarget.value)}
          >
            <For each={optionsOf(props.field, props.models, text())}>
              {(o) => <option value={o}>{o === '' ? 'none' : o}</option>}
            </For>
          </select>
          {problem}
        </label>
      </Match>
      <Match when={true}>
        <label>
          {props.field.label}
          <input
            type={props.field.type === 'number' ? 'number' : 'text'}
            step={props.field.type === 'number' ? (props.field.step ?? '1') : undefined}
            value={text()}
            aria-invalid={invalid()}
            onInput={(e) => props.onChange(e.currentTarget.value)}
          />
          {problem}
        </label>
      </Match>
    </Switch>
  )
}

/**
 * A select's options; a model picker always lists the stored model, even one the catalog lacks,
 * and `none` first when the setting may be null.
 */
function optionsOf(field: Field<string>, models: string[], current: string): readonly string[] {
  if (field.type === 'select') return field.options
  const listed = current && !models.includes(current) ? [current, ...models] : models
  return field.nullable ? ['', ...listed] : listed
}
