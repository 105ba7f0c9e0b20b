import { A, useParams } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createData } from '../queries/data.ts'
import { getRepoBrief, getWorkspaces, registerWorkspace } from '../queries/workspaces.ts'

/** Registered repositories: register one, and read a workspace's repository brief. */
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
      <table class="list">
        <thead>
          <tr>
            <th>Name</th>
            <th>Path</th>
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
                <td class="mono">{w.id}</td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
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
