import { A, useParams } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import type { Workspace } from '../../../runtime/contracts/workspaces.ts'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import {
  getRepoBrief,
  getWorkspaces,
  patchWorkspace,
  registerWorkspace,
} from '../queries/workspaces.ts'

/**
 * Registered repositories: register one, choose per workspace whether agents may edit the files
 * that run code later, and read a workspace's repository brief.
 */
export default function Workspaces() {
  const params = useParams()
  const list = createData(() => getWorkspaces())
  const form = createForm({ name: '', path: '' })
  const [error, setError] = createSignal<unknown>()
  const register = async (e: SubmitEvent) => {
    e.preventDefault()
    setError(undefined)
    try {
      await registerWorkspace({ ...form.values })
      form.reset({ name: '', path: '' })
    } catch (err) {
      setError(err)
    }
  }
  return (
    <section class="stack">
      <h1>Workspaces</h1>
      <ErrorNote error={list.error()} />
      <div class="table-wrap">
        <table class="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Path</th>
              <th>Agents may edit files that run code</th>
              <th>Id</th>
            </tr>
          </thead>
          <tbody>
            <For each={list.data()?.workspaces}>
              {(w) => (
                <tr classList={{ selected: params.id === w.id }}>
                  <td>
                    <A href={`/workspaces/${w.id}`}>{w.name}</A>
                  </td>
                  <td>{w.path}</td>
                  <td>
                    <ExecTriggerSwitch workspace={w} />
                  </td>
                  <td class="mono">{w.id}</td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </div>
      <p class="muted" id="exec-trigger-note">
        Switched on, the agents' file tools may write the files that make git or your tools run code
        on your machine later (.gitattributes, .gitmodules, the git hooks folder, .envrc, VS Code
        tasks and settings, dev container and pre-commit configuration) in that workspace; off, they
        are refused, and a turn whose shell changes one is flagged either way.
      </p>
      <form class="card row" onSubmit={register}>
        <label>
          Name{' '}
          <input
            value={form.values.name}
            onInput={(e) => form.set('name', e.currentTarget.value)}
            required
          />
        </label>
        <label>
          Path under the workspace root
          <input
            value={form.values.path}
            onInput={(e) => form.set('path', e.currentTarget.value)}
            required
          />
        </label>
        <button type="submit">Register</button>
        <ErrorNote error={error()} />
      </form>
      <Show when={params.id}>{(id) => <RepoBrief workspaceId={id()} />}</Show>
    </section>
  )
}

function RepoBrief(props: { workspaceId: string }) {
  const [query, setQuery] = createSignal('')
  const [asked, setAsked] = createSignal<string>()
  const brief = createData(() => {
    const q = asked()
    return q ? getRepoBrief(props.workspaceId, q) : undefined
  })
  return (
    <div class="card stack">
      <h2>Repository brief</h2>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault()
          setAsked(query())
        }}
      >
        <input
          aria-label="Brief query"
          placeholder="What are you about to change?"
          value={query()}
          onInput={(e) => setQuery(e.currentTarget.value)}
        />
        <button type="submit">Brief</button>
      </form>
      <ErrorNote error={brief.error()} />
      <Show when={brief.data()}>{(b) => <pre class="brief">{b().text}</pre>}</Show>
    </div>
  )
}

/** The owner's per-workspace switch for the files that run code later (off by default). */
function ExecTriggerSwitch(props: { workspace: Workspace }) {
  const action = createSubmission()
  return (
    <>
      <label class="check">
        <input
          type="checkbox"
          role="switch"
          aria-label={`Let agents edit files that run code in ${props.workspace.name}`}
          aria-describedby="exec-trigger-note"
          checked={props.workspace.allowExecTriggerWrites}
          disabled={action.busy()}
          onChange={async (e) => {
            const input = e.currentTarget
            const allowExecTriggerWrites = input.checked
            await action.run(() => patchWorkspace(props.workspace.id, { allowExecTriggerWrites }))
            // A refused change puts the switch back as the server has it. Only then: after a
            // saved one the list is reloaded and `props.workspace` is the old row's stale value,
            // so restoring from it flipped the switch the owner had just moved.
            if (action.error()) input.checked = !allowExecTriggerWrites
          }}
        />
        {props.workspace.allowExecTriggerWrites ? 'allowed' : 'refused'}
      </label>
      <ErrorNote error={action.error()} />
    </>
  )
}
