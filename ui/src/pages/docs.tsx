import { A, useNavigate, useParams } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import { createPolling } from '../components/polling.ts'
import { StateBadge } from '../components/state-badge.tsx'
import { ErrorNote, Notice } from '../components/status.tsx'
import { Empty, ListTable } from '../components/list-table.tsx'
import { DocEditor } from '../docs/doc-editor.tsx'
import { DocSearch } from '../docs/doc-search.tsx'
import { createSubmission } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import { getDoc, getDocs, importDocs, refreshDocs } from '../queries/docs.ts'
import { getWorkspaces } from '../queries/workspaces.ts'
import './admin.css'
import './docs.css'

/**
 * A workspace's documentation (W7): its documents with their index state (refreshed while the
 * host indexes), an import of the repository's own Markdown, a Markdown editor with preview, and
 * the search the agents' `docs-search` tool runs.
 */
export default function Docs() {
  const params = useParams<{ workspaceId?: string; docId?: string }>()
  const navigate = useNavigate()
  const workspaces = createData(() => getWorkspaces())
  const workspaceId = () => params.workspaceId ?? workspaces.data()?.workspaces[0]?.id
  const docs = createData(() => {
    const id = workspaceId()
    return id ? getDocs(id) : undefined
  })
  createPolling(
    async () => {
      const id = workspaceId()
      if (id) await refreshDocs(id)
    },
    () =>
      (docs.data()?.docs ?? []).some(
        (d) => d.indexState === 'pending' || d.indexState === 'indexing',
      ),
  )
  const selected = createData(() => {
    const id = workspaceId()
    return id && params.docId && params.docId !== 'new' ? getDoc(id, params.docId) : undefined
  })
  const current = () => (selected.data()?.id === params.docId ? selected.data() : undefined)
  const [imported, setImported] = createSignal<string>()
  const importing = createSubmission()
  const runImport = () =>
    importing.run(async () => {
      setImported(undefined)
      const r = await importDocs(workspaceId()!)
      setImported(`Imported: ${r.created} new, ${r.updated} updated, ${r.unchanged} unchanged.`)
    })
  const base = () => `/docs/${workspaceId()}`

  return (
    <section class="stack admin">
      <div class="page-head">
        <h1>Documentation</h1>
        <label>
          Workspace{' '}
          <select
            value={workspaceId() ?? ''}
            onChange={(e) => navigate(`/docs/${e.currentTarget.value}`)}
          >
            <For each={workspaces.data()?.workspaces}>
              {(w) => <option value={w.id}>{w.name}</option>}
            </For>
          </select>
        </label>
      </div>
      <ErrorNote error={workspaces.error() ?? docs.error()} />
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={importing.busy() || !workspaceId()}
          onClick={runImport}
        >
          Import README and docs/ from the repository
        </button>
        <button type="button" onClick={() => navigate(`${base()}/new`)}>
          New document
        </button>
      </div>
      <Show when={imported()}>{(n) => <Notice>{n()}</Notice>}</Show>
      <ErrorNote error={importing.error()} />
      <Show when={docs.data()}>
        {(list) => (
          <Show
            when={list().docs.length > 0}
            fallback={<Empty>No documents in this workspace yet.</Empty>}
          >
            <ListTable
              label="Documents"
              head={
                <>
                  <th>Title</th>
                  <th>Slug</th>
                  <th class="hide-narrow">Source</th>
                  <th>Index</th>
                  <th class="hide-narrow">Chunks</th>
                </>
              }
            >
              <For each={list().docs}>
                {(d) => (
                  <tr classList={{ selected: params.docId === d.id }} data-doc={d.slug}>
                    <td>
                      <A href={`${base()}/${d.id}`}>{d.title}</A>
                    </td>
                    <td class="mono">{d.slug}</td>
                    <td class="hide-narrow">
                      {d.sourcePath ? `imported from ${d.sourcePath}` : 'written'}
                    </td>
                    <td title={d.indexError ?? undefined}>
                      <StateBadge
                        state={
                          d.indexState === 'indexed'
                            ? 'completed'
                            : d.indexState === 'failed'
                              ? 'failed'
                              : 'queued'
                        }
                      >
                        {d.indexState}
                      </StateBadge>
                      <Show when={d.indexError}>{(e) => <div class="field-hint">{e()}</div>}</Show>
                    </td>
                    <td class="hide-narrow">{d.chunkCount}</td>
                  </tr>
                )}
              </For>
            </ListTable>
          </Show>
        )}
      </Show>
      <Show when={params.docId === 'new' && workspaceId()}>
        {(id) => (
          <DocEditor workspaceId={id()} onSaved={(doc) => navigate(`${base()}/${doc.id}`)} />
        )}
      </Show>
      <ErrorNote error={selected.error()} />
      <Show when={current()}>
        {(doc) => (
          <DocEditor
            workspaceId={doc().workspaceId}
            doc={doc()}
            onSaved={() => {}}
            onDeleted={() => navigate(base())}
          />
        )}
      </Show>
      <Show when={workspaceId()}>{(id) => <DocSearch workspaceId={id()} />}</Show>
    </section>
  )
}
