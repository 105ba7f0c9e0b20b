import { A } from '@solidjs/router'
import { createSignal, For, Show } from 'solid-js'
import type { Memory } from '../../../runtime/contracts/memories.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { when } from '../components/dates.ts'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createData } from '../queries/data.ts'
import { deleteMemory, getMemory, updateMemory } from '../queries/memories.ts'

/** Where a memory came from, with a link to the session it was told or learnt in. */
export function Provenance(props: { memory: Memory }) {
  const p = () => props.memory.provenance
  return (
    <span class="muted">
      <Show when={p().sessionId} fallback="written here">
        {(id) => <A href={`/sessions/${id()}`}>session {id()}</A>}
      </Show>
      <Show when={p().turnId}>{(t) => <> · turn {t()}</>}</Show>
      <Show when={p().taskId}>
        {(t) => (
          <>
            {' '}
            · <A href={`/tasks/${t()}`}>task {t()}</A>
          </>
        )}
      </Show>
    </span>
  )
}

/**
 * One memory: the user's own can be edited and deleted; an agent's or evolution's fact is shown
 * read-only with every version of its key (it changes only by being superseded), and may be deleted.
 */
export function MemoryDetail(props: { id: string; onDeleted: () => void }) {
  const memory = createData(() => getMemory(props.id))
  return (
    <div class="card stack" aria-label="Memory">
      <ErrorNote error={memory.error()} />
      <Show when={memory.data()}>
        {(m) => (
          <>
            <h2>
              {m().owner === 'user' ? 'Your memory' : `${m().owner} fact`}
              <Show when={m().key}>{(k) => <span class="mono"> {k()}</span>}</Show>
            </h2>
            <Show when={m().owner === 'user'} fallback={<History versions={m().history} />}>
              <EditUserMemory memory={m()} />
            </Show>
            <ConfirmAction
              label="Delete"
              name="Delete memory"
              question={m().key ? 'Delete this fact and its history?' : 'Delete this memory?'}
              confirmLabel="Delete"
              onConfirm={async () => {
                await deleteMemory(m().id)
                props.onDeleted()
              }}
            />
          </>
        )}
      </Show>
    </div>
  )
}

function EditUserMemory(props: { memory: Memory }) {
  const form = createForm({ content: props.memory.content })
  const [error, setError] = createSignal<unknown>()
  const [saved, setSaved] = createSignal(false)
  const save = async (e: SubmitEvent) => {
    e.preventDefault()
    setError(undefined)
    setSaved(false)
    try {
      const next = await updateMemory(props.memory.id, form.values.content)
      form.reset({ content: next.content })
      setSaved(true)
    } catch (err) {
      setError(err)
    }
  }
  return (
    <form class="stack" onSubmit={save}>
      <textarea
        aria-label="Memory text"
        rows={4}
        value={form.values.content}
        onInput={(e) => form.set('content', e.currentTarget.value)}
      />
      <div class="row">
        <button type="submit" disabled={form.changedKeys().length === 0}>
          Save
        </button>
        <Show when={saved()}>
          <span class="muted">Saved</span>
        </Show>
        <Provenance memory={props.memory} />
      </div>
      <ErrorNote error={error()} />
    </form>
  )
}

function History(props: { versions: Memory[] }) {
  return (
    <ol class="stack" aria-label="History">
      <For each={props.versions}>
        {(v) => (
          <li classList={{ muted: v.supersededAt !== null }}>
            <div>{v.content}</div>
            <div class="row">
              <span>{v.supersededAt ? `superseded ${when(v.supersededAt)}` : 'current'}</span>
              <span>· {when(v.createdAt)} ·</span>
              <Provenance memory={v} />
            </div>
          </li>
        )}
      </For>
    </ol>
  )
}
