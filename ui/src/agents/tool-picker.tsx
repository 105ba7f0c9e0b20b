import { createSignal, For, Show } from 'solid-js'

/**
 * An agent's tools as checkboxes: the ones it has (`saved`) and any added here, in the order they
 * were offered. A tool added by name is checked at once; the server checks each against the
 * agent's role and access, and names a tool it refuses.
 */
export function ToolPicker(props: {
  saved: string[]
  chosen: string[]
  knownTools: string[]
  onChange: (tools: string[]) => void
}) {
  const [added, setAdded] = createSignal<string[]>([])
  const [newTool, setNewTool] = createSignal('')
  const offered = () => [...new Set([...props.saved, ...added()])]
  const toggle = (tool: string, on: boolean) =>
    props.onChange(
      on
        ? offered().filter((t) => t === tool || props.chosen.includes(t))
        : props.chosen.filter((t) => t !== tool),
    )
  const add = () => {
    const tool = newTool().trim()
    if (!tool) return
    if (!offered().includes(tool)) setAdded([...added(), tool])
    toggle(tool, true)
    setNewTool('')
  }
  return (
    <fieldset class="wide">
      <legend>Tools</legend>
      <div class="chips">
        <For each={offered()}>
          {(tool) => (
            <label class="check">
              <input
                type="checkbox"
                checked={props.chosen.includes(tool)}
                onChange={(e) => toggle(tool, e.currentTarget.checked)}
              />
              <span class="mono">{tool}</span>
            </label>
          )}
        </For>
        <Show when={offered().length === 0}>
          <span class="muted">No tools.</span>
        </Show>
      </div>
      <div class="row spaced-top">
        <label>
          Add a tool
          <input
            class="mono"
            list="known-tools"
            value={newTool()}
            onInput={(e) => setNewTool(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault()
                add()
              }
            }}
          />
        </label>
        <datalist id="known-tools">
          <For each={props.knownTools.filter((t) => !offered().includes(t))}>
            {(t) => <option value={t} />}
          </For>
        </datalist>
        <button type="button" class="secondary" onClick={add}>
          Add tool
        </button>
      </div>
      <p class="field-hint">The server checks each tool against the agent's role and access.</p>
    </fieldset>
  )
}
