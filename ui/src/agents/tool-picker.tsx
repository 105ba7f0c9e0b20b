import { createSignal, For, Show } from 'solid-js'
import type { ToolStatus } from '../../../runtime/contracts/agents.ts'
import { ToolState } from './tool-state.tsx'

/**
 * An agent's tools as checkboxes: the ones it has (`saved`) and any added here, in the order they
 * were offered. A tool added by name is checked at once; the server checks each against the
 * agent's role and access, and names a tool it refuses. Beside each saved tool sits the host's
 * answer: whether a run gets it, and if not, why.
 */
export function ToolPicker(props: {
  saved: string[]
  chosen: string[]
  knownTools: string[]
  statuses?: ToolStatus[] | undefined
  statusError?: unknown
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
            // The host's answer sits beside the label, not in it: the checkbox keeps the tool's
            // name as its accessible name.
            <span class="tool-chip" data-tool={tool}>
              <label class="check">
                <input
                  type="checkbox"
                  checked={props.chosen.includes(tool)}
                  onChange={(e) => toggle(tool, e.currentTarget.checked)}
                />
                <span class="mono">{tool}</span>
              </label>
              <ToolState
                status={props.statuses?.find((s) => s.tool === tool)}
                saved={props.saved.includes(tool)}
                loaded={props.statuses !== undefined}
              />
            </span>
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
      <Show when={props.statusError}>
        <p class="field-hint" role="status">
          The host did not say which tools it can run:{' '}
          {props.statusError instanceof Error
            ? props.statusError.message
            : String(props.statusError)}
        </p>
      </Show>
    </fieldset>
  )
}
