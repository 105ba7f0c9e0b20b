import { createEffect, createSignal, on, Show } from 'solid-js'
import type { Doc } from '../../../runtime/contracts/docs.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { ErrorNote, Notice } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { Markdown } from '../markdown/markdown.tsx'
import { createDoc, deleteDoc, patchDoc } from '../queries/docs.ts'

const LABELS = { slug: 'Slug', title: 'Title', body: 'Markdown' }
const EMPTY = { slug: '', title: '', body: '' }
const fieldsOf = (d: Doc) => ({ slug: d.slug, title: d.title, body: d.body })

/**
 * Writes a new document or edits one: slug, title and Markdown, with the rendered preview beside
 * the text (the same safe renderer as chat replies). A save sends only what changed; the server's
 * refusal names the field.
 */
export function DocEditor(props: {
  workspaceId: string
  doc?: Doc | undefined
  onSaved: (doc: Doc) => void
  onDeleted?: () => void
}) {
  const form = createForm(props.doc ? fieldsOf(props.doc) : EMPTY)
  createEffect(
    on(
      () => props.doc,
      (d) => form.reset(d ? fieldsOf(d) : EMPTY),
      { defer: true },
    ),
  )
  const [preview, setPreview] = createSignal(false)
  const [notice, setNotice] = createSignal<string>()
  const { busy, error, run } = createSubmission(LABELS)
  const save = (e: SubmitEvent) => {
    e.preventDefault()
    setNotice(undefined)
    void run(async () => {
      const doc = props.doc
      if (!doc) return props.onSaved(await createDoc(props.workspaceId, { ...form.values }))
      if (form.changedKeys().length === 0) return setNotice('Nothing changed.')
      const saved = await patchDoc(props.workspaceId, doc.id, form.changed())
      form.reset(fieldsOf(saved))
      setNotice('Saved.')
      props.onSaved(saved)
    })
  }
  return (
    <form
      class="card stack"
      aria-label={props.doc ? 'Edit document' : 'New document'}
      onSubmit={save}
    >
      <div class="grid-form">
        <label>
          Title
          <input
            value={form.values.title}
            onInput={(e) => form.set('title', e.currentTarget.value)}
          />
        </label>
        <label>
          Slug
          <input
            class="mono"
            placeholder="guides/getting-started"
            value={form.values.slug}
            onInput={(e) => form.set('slug', e.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={preview()}
            onChange={(e) => setPreview(e.currentTarget.checked)}
          />
          Show the preview
        </label>
      </div>
      <div classList={{ 'doc-edit': true, 'with-preview': preview() }}>
        <label class="wide">
          Markdown
          <textarea
            class="tall mono"
            value={form.values.body}
            onInput={(e) => form.set('body', e.currentTarget.value)}
          />
        </label>
        <Show when={preview()}>
          <div class="doc-preview" aria-label="Preview">
            <Markdown text={form.values.body} />
          </div>
        </Show>
      </div>
      <div class="actions">
        <button type="submit" disabled={busy()}>
          {props.doc ? 'Save document' : 'Create document'}
        </button>
        <Show when={props.doc}>
          {(doc) => (
            <ConfirmAction
              label="Delete"
              name={`Delete ${doc().slug}`}
              question={`Delete ${doc().title}? Agents stop finding it at once.`}
              confirmLabel="Yes, delete"
              onConfirm={async () => {
                await deleteDoc(props.workspaceId, doc().id)
                props.onDeleted?.()
              }}
            />
          )}
        </Show>
      </div>
      <Show when={notice()}>{(n) => <Notice>{n()}</Notice>}</Show>
      <ErrorNote error={error()} />
    </form>
  )
}
