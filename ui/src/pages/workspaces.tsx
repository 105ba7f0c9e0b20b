import { A, useParams } from '@solidjs/router'
import { createResource, createSignal, For, Show } from 'solid-js'
import { api, ok } from '../api.ts'
import { ErrorNote } from '../components/status.tsx'

/** Registered repositories: register one, and read a workspace's repository brief. */
export default function Workspaces() {
  const params = useParams()
  const [list, { refetch }] = createResource(() => ok(api.workspaces.$get()))
  const [name, setName] = createSignal('')
  const [path, setPath] = createSignal('')
  const [error, setError] = createSignal<unknown>()
  const register = async (e: SubmitEvent) => {
    e.preventDefault()
    setError(undefined)
    try {
      await ok(api.workspaces.$post({ json: { name: name(), path: path() } }))
      setName('')
      setPath('')
      await refetch()
    } catch (err) {
      setError(err)
    }
  }
  return (
    <section class="stack">
      <h1>Workspaces</h1>
      <ErrorNote error={list.error} />
      <table class="list">
        <thead>
          <tr>
            <th>Name</th>
            <th>Path</th>
            <th>Id</th>
          </tr>
        </thead>
        <tbody>
          <For each={list()?.workspaces}>
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
          Name <input value={name()} onInput={(e) => setName(e.currentTarget.value)} required />
        </label>
        <label>
          Path under the workspace root
          <input value={path()} onInput={(e) => setPath(e.currentTarget.value)} required />
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
  const [brief] = createResource(
    () => {
      const q = asked()
      return q ? { id: props.workspaceId, q } : undefined
    },
    (key) =>
      ok(api.workspaces[':id']['repo-brief'].$get({ param: { id: key.id }, query: { q: key.q } })),
  )
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
      <ErrorNote error={brief.error} />
      <Show when={brief()}>{(b) => <pre class="brief">{b().text}</pre>}</Show>
    </div>
  )
}
