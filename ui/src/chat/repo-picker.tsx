import { For } from 'solid-js'

/** The repository a new chat will work in, chosen beside the message box. */
export function RepoPicker(props: {
  workspaces: readonly { id: string; name: string; path: string }[]
  value: string | undefined
  onChange: (id: string) => void
}) {
  return (
    <label class="model-picker repo-picker">
      Repository
      <select value={props.value ?? ''} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <For each={props.workspaces}>
          {(w) => (
            <option value={w.id} title={w.path}>
              {w.name}
            </option>
          )}
        </For>
      </select>
    </label>
  )
}
