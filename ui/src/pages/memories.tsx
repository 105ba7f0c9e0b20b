import { useNavigate, useParams } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import { MEMORY_OWNERS } from '../../../runtime/contracts/memory-enums.ts'
import { when } from '../components/dates.ts'
import { ErrorNote } from '../components/status.tsx'
import { createData } from '../queries/data.ts'
import { createMemory, getMemories } from '../queries/memories.ts'
import { MemoryDetail, Provenance } from '../memories/memory-detail.tsx'

type Owner = (typeof MEMORY_OWNERS)[number]

/** Long-term memories (X1): search and filter them, write your own, open one for its history. */
export default function Memories() {
  const params = useParams()
  const navigate = useNavigate()
  const [search, setSearch] = createSignal('')
  const [owner, setOwner] = createSignal<Owner | ''>('')
  const [applied, setApplied] = createSignal<{ q: string; owner: Owner | '' }>({ q: '', owner: '' })
  const list = createData(() => {
    const f = applied()
    return getMemories({ ...(f.q && { q: f.q }), ...(f.owner && { owner: f.owner }) })
  })
  const [draft, setDraft] = createSignal('')
  const [error, setError] = createSignal<unknown>()
  const add = async (e: SubmitEvent) => {
    e.preventDefault()
    setError(undefined)
    try {
      const created = await createMemory(draft())
      setDraft('')
      navigate(`/memories/${created.id}`)
    } catch (err) {
      setError(err)
    }
  }
  return (
    <section class="stack">
      <h1>Memories</h1>
      <form class="card row" onSubmit={add} aria-label="New memory">
        <label class="grow">
          Remember
          <input
            value={draft()}
            placeholder="Something every session should know"
            onInput={(e) => setDraft(e.currentTarget.value)}
            required
          />
        </label>
        <button type="submit">Add memory</button>
        <ErrorNote error={error()} />
      </form>
      <form
        class="row"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          setApplied({ q: search().trim(), owner: owner() })
        }}
      >
        <input
          aria-label="Search memories"
          placeholder="Search"
          value={search()}
          onInput={(e) => setSearch(e.currentTarget.value)}
        />
        <select
          aria-label="Written by"
          value={owner()}
          onChange={(e) => setOwner(e.currentTarget.value as Owner | '')}
        >
          <option value="">Anyone</option>
          <For each={MEMORY_OWNERS}>{(o) => <option value={o}>{o}</option>}</For>
        </select>
        <button type="submit">Search</button>
      </form>
      <ErrorNote error={list.error()} />
      <table class="list">
        <thead>
          <tr>
            <th>Memory</th>
            <th>By</th>
            <th>From</th>
            <th>Written</th>
          </tr>
        </thead>
        <tbody>
          <For
            each={list.data()?.memories}
            fallback={
              <tr>
                <td colSpan={4} class="muted">
                  No memories yet.
                </td>
              </tr>
            }
          >
            {(m) => (
              <tr classList={{ selected: params.id === m.id }}>
                <td>
                  <a href={`#/memories/${m.id}`}>{m.content}</a>
                </td>
                <td>
                  {m.owner}
                  <Show when={m.key}>{(k) => <div class="mono muted">{k()}</div>}</Show>
                </td>
                <td>
                  <Provenance memory={m} />
                </td>
                <td>{when(m.createdAt)}</td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
      <Show when={params.id} keyed>
        {(id) => <MemoryDetail id={id} onDeleted={() => navigate('/memories')} />}
      </Show>
    </section>
  )
}
