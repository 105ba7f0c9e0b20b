import { createSignal, Show } from 'solid-js'
import type { SessionView } from '../queries/sessions.ts'
import { Confirm } from '../components/confirm.tsx'
import { ExportSession } from './export-session.tsx'
import { UsageLine } from '../components/usage-cost.tsx'
import { createData } from '../queries/data.ts'
import { getRunUsage } from '../queries/observability.ts'

/** The open session's title and what can be done to it: rename, archive or restore, delete. */
export function SessionHeader(props: {
  session: SessionView
  repository?: string | undefined
  liveUsage?: { inputTokens: number; outputTokens: number } | undefined
  busy: boolean
  /** Resolves true when the new title was saved (the page shows any error). */
  onRename: (title: string) => Promise<boolean>
  onArchive: (archived: boolean) => Promise<void>
  onDelete: () => Promise<void>
}) {
  const [editing, setEditing] = createSignal(false)
  const [title, setTitle] = createSignal('')
  const [confirming, setConfirming] = createSignal(false)
  const archived = () => props.session.archivedAt !== null
  const usage = createData(() =>
    getRunUsage({ sessionId: props.session.id }, props.session.revision),
  )
  return (
    <header class="session-header">
      <Show
        when={editing()}
        fallback={
          <>
            <h1 class="session-title">
              {props.session.title}
              <Show when={archived()}>
                <span class="badge">archived</span>
              </Show>
            </h1>
            {/* Beside the title, not in it: the heading's name stays the session's title. */}
            <span class="session-repo" title="The repository this chat works in">
              in <strong>{props.repository ?? props.session.workspaceId}</strong>
            </span>
            <UsageLine report={usage.data()} label="Session" />
            {/* The session's usage is read once a turn is saved; the running turn counts here. */}
            <Show when={props.liveUsage}>
              {(u) => (
                <span class="usage-line muted live-usage">
                  This turn: {u().inputTokens.toLocaleString()} in ·{' '}
                  {u().outputTokens.toLocaleString()} out
                </span>
              )}
            </Show>
          </>
        }
      >
        <form
          class="row rename"
          onSubmit={async (e) => {
            e.preventDefault()
            const next = title().trim()
            if (!next) return
            if (await props.onRename(next)) setEditing(false)
          }}
        >
          <input
            aria-label="Session title"
            value={title()}
            maxLength={200}
            required
            ref={(el) => queueMicrotask(() => el.select())}
            onInput={(e) => setTitle(e.currentTarget.value)}
            on:keydown={(e) => {
              if (e.key !== 'Escape') return
              e.preventDefault()
              setEditing(false)
            }}
          />
          <button type="submit">Save</button>
          <button type="button" class="secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      </Show>
      <div class="row session-actions">
        <Show when={!editing()}>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setTitle(props.session.title)
              setEditing(true)
            }}
          >
            Rename
          </button>
        </Show>
        <Show
          when={archived()}
          fallback={
            <button
              type="button"
              class="secondary"
              disabled={props.busy}
              onClick={() => props.onArchive(true)}
            >
              Archive
            </button>
          }
        >
          <button type="button" onClick={() => props.onArchive(false)}>
            Restore
          </button>
        </Show>
        <ExportSession sessionId={props.session.id} />
        <button
          type="button"
          class="secondary"
          disabled={props.busy}
          onClick={() => setConfirming(true)}
        >
          Delete
        </button>
      </div>
      <Show when={confirming()}>
        <Confirm
          message={
            <>
              Delete “{props.session.title}”? Its messages and the agents’ memory of it are removed;
              this cannot be undone.
            </>
          }
          confirmLabel="Delete session"
          onConfirm={() => {
            setConfirming(false)
            void props.onDelete()
          }}
          onCancel={() => setConfirming(false)}
        />
      </Show>
    </header>
  )
}
