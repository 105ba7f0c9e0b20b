import { createSignal, For, Show } from 'solid-js'
import type { DocSearchResult } from '../../../runtime/contracts/docs.ts'
import { Empty } from '../components/list-table.tsx'
import { ErrorNote } from '../components/status.tsx'
import { createSubmission } from '../forms/submission.ts'
import { searchDocs } from '../queries/docs.ts'

/** The search the agents' `docs-search` tool runs, with what it would hand them. */
export function DocSearch(props: { workspaceId: string }) {
  const [text, setText] = createSignal('')
  const [result, setResult] = createSignal<DocSearchResult>()
  const { busy, error, run } = createSubmission()
  const search = (e: SubmitEvent) => {
    e.preventDefault()
    void run(async () =>
      setResult(await searchDocs(props.workspaceId, { query: text(), limit: 5 })),
    )
  }
  return (
    <div class="card stack">
      <h2>Search as the agents do</h2>
      <form class="row" onSubmit={search}>
        <input
          aria-label="Search the documentation"
          placeholder="A question an agent might ask"
          value={text()}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy() || !text().trim()}>
          Search
        </button>
      </form>
      <ErrorNote error={error()} />
      <Show when={result()}>
        {(r) => (
          <>
            <p class="field-hint">{r().method}</p>
            <Show when={r().results.length > 0} fallback={<Empty>No section matches.</Empty>}>
              <ol class="doc-hits" aria-label="Search results">
                <For each={r().results}>
                  {(hit) => (
                    <li>
                      <strong>{hit.title}</strong> <span class="mono muted">{hit.slug}</span>
                      <Show when={hit.headingPath}>
                        <div class="muted">{hit.headingPath}</div>
                      </Show>
                      <pre class="doc-excerpt">{hit.excerpt}</pre>
                    </li>
                  )}
                </For>
              </ol>
            </Show>
          </>
        )}
      </Show>
    </div>
  )
}
