import { createEffect, createSignal, For, on, Show } from 'solid-js'
import {
  BROWSER_ACCESS_LEVELS,
  WORKSPACE_ACCESS_LEVELS,
} from '../../../runtime/contracts/agent-enums.ts'
import type { Agent, PatchAgentInput, ToolStatus } from '../../../runtime/contracts/agents.ts'
import { ErrorNote, Notice } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { patchAgent } from '../queries/agents.ts'
import { ToolPicker } from './tool-picker.tsx'

const LABELS: Record<string, string> = {
  displayName: 'Name',
  delegationDescription: 'Delegation description',
  instructions: 'Instructions',
  workspaceAccess: 'Workspace access',
  browserAccess: 'Browser access',
  delegationEligible: 'Delegation eligible',
  tools: 'Tools',
  modelOverride: 'Model override',
}

/** The editable fields of an agent; "no override" is an empty choice in the form, null on the wire. */
const fieldsOf = (a: Agent) => ({
  displayName: a.displayName,
  delegationDescription: a.delegationDescription,
  instructions: a.instructions,
  workspaceAccess: a.workspaceAccess,
  browserAccess: a.browserAccess,
  delegationEligible: a.delegationEligible,
  tools: a.tools,
  modelOverride: a.modelOverride ?? '',
})

/** Edits one agent; a save sends only the fields that changed, and shows the server's refusal. */
export function AgentEditor(props: {
  agent: Agent
  models: string[]
  knownTools: string[]
  /** The host's answer per saved tool; undefined while it loads or when the host did not answer. */
  toolStatuses?: ToolStatus[] | undefined
  toolStatusError?: unknown
}) {
  const form = createForm(fieldsOf(props.agent))
  // The saved agent (after a save, or another agent opened) is the new baseline.
  createEffect(
    on(
      () => props.agent,
      (a) => form.reset(fieldsOf(a)),
      { defer: true },
    ),
  )
  const { busy, error, setError, run } = createSubmission(LABELS)
  const [notice, setNotice] = createSignal<string>()
  const modelChoices = () => {
    const stored = props.agent.modelOverride
    return stored && !props.models.includes(stored) ? [stored, ...props.models] : props.models
  }

  const save = async (e: SubmitEvent) => {
    e.preventDefault()
    setError(undefined)
    setNotice(undefined)
    const changed = form.changed()
    const keys = form.changedKeys()
    if (keys.length === 0) return setNotice('Nothing changed.')
    const patch: PatchAgentInput = {
      ...changed,
      ...('modelOverride' in changed && { modelOverride: changed.modelOverride || null }),
    }
    await run(async () => {
      const saved = await patchAgent(props.agent.id, patch)
      form.reset(fieldsOf(saved))
      setNotice(`Saved ${keys.map((k) => LABELS[k] ?? k).join(', ')}.`)
    })
  }

  return (
    <form class="card stack" aria-label="Edit agent" onSubmit={save}>
      <h2>Settings</h2>
      <div class="grid-form">
        <label>
          Name
          <input
            value={form.values.displayName}
            onInput={(e) => form.set('displayName', e.currentTarget.value)}
          />
        </label>
        <label>
          Model override
          <select
            value={form.values.modelOverride}
            onChange={(e) => form.set('modelOverride', e.currentTarget.value)}
          >
            <option value="">none (the default model)</option>
            <For each={modelChoices()}>{(m) => <option value={m}>{m}</option>}</For>
          </select>
        </label>
        <label>
          Workspace access
          <select
            value={form.values.workspaceAccess}
            onChange={(e) =>
              form.set('workspaceAccess', e.currentTarget.value as Agent['workspaceAccess'])
            }
          >
            <For each={WORKSPACE_ACCESS_LEVELS}>{(v) => <option value={v}>{v}</option>}</For>
          </select>
        </label>
        <label>
          Browser access
          <select
            value={form.values.browserAccess}
            onChange={(e) =>
              form.set('browserAccess', e.currentTarget.value as Agent['browserAccess'])
            }
          >
            <For each={BROWSER_ACCESS_LEVELS}>{(v) => <option value={v}>{v}</option>}</For>
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={form.values.delegationEligible}
            onChange={(e) => form.set('delegationEligible', e.currentTarget.checked)}
          />
          Delegation eligible (the orchestrator may hand work to it)
        </label>
        <label class="wide">
          Delegation description
          <textarea
            rows={3}
            value={form.values.delegationDescription}
            onInput={(e) => form.set('delegationDescription', e.currentTarget.value)}
          />
        </label>
        <label class="wide">
          Instructions
          <textarea
            class="tall"
            value={form.values.instructions}
            onInput={(e) => form.set('instructions', e.currentTarget.value)}
          />
        </label>
        <ToolPicker
          saved={props.agent.tools}
          chosen={form.values.tools}
          knownTools={props.knownTools}
          statuses={props.toolStatuses}
          statusError={props.toolStatusError}
          onChange={(tools) => form.set('tools', tools)}
        />
      </div>
      <div class="actions">
        <button type="submit" disabled={busy()}>
          Save agent
        </button>
      </div>
      <Show when={notice()}>{(n) => <Notice>{n()}</Notice>}</Show>
      <ErrorNote error={error()} />
    </form>
  )
}
