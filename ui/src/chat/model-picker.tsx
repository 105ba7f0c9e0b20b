import { For, Show } from 'solid-js'
import type { ModelsBody as ModelsView } from '../../../runtime/contracts/models.ts'
import { contextSize } from './messages.ts'

/**
 * The model for the next turn, from `GET /api/models` (the gateway's catalog and the effective
 * default), each with its context window when the catalog gives one.
 */
export function ModelPicker(props: {
  models: ModelsView | undefined
  value: string | undefined
  onChange: (id: string) => void
}) {
  const windowOf = (id: string) => props.models?.contextWindows[id]
  const label = (id: string) => {
    const size = windowOf(id)
    const context = size ? `${contextSize(size)} context` : 'context unknown'
    return `${id}${id === props.models?.defaultModel ? ' (default)' : ''} — ${context}`
  }
  return (
    <label class="model-picker">
      <span>Model</span>
      <Show when={props.models} fallback={<span class="muted">loading…</span>}>
        <select value={props.value ?? ''} onChange={(e) => props.onChange(e.currentTarget.value)}>
          <For each={props.models?.models}>{(id) => <option value={id}>{label(id)}</option>}</For>
        </select>
      </Show>
    </label>
  )
}
