import { A } from '@solidjs/router'
import { For, Show, type JSX } from 'solid-js'
import type { Workspace } from '../../../runtime/contracts/workspaces.ts'
import { ErrorNote } from '../components/status.tsx'
import type { SessionSummaryView } from '../queries/sessions.ts'

/**
 * The sessions: a workspace filter, a new-session button, the active list and the archived list
 * behind a toggle. At phone width the page shows it behind its own toggle (`open`).
 */
export function Sidebar(props: {
  open: boolean
  currentId: string | undefined
  workspaces: Pick<Workspace, 'id' | 'name'>[]
  workspaceId: string
  onWorkspace: (id: string) => void
  active: SessionSummaryView[] | undefined
  archived: SessionSummaryView[] | undefined
  archivedOpen: boolean
  onArchivedOpen: (open: boolean) => void
  error: unknown
  /** Messages a turn has added to a session that its summary does not count yet. */
  pending?: (s: SessionSummaryView) => number
  onNew: () => void
  onPick: () => void
  /** Closes the drawer at phone width. */
  onClose: () => void
}) {
  const count = (s: SessionSummaryView) => s.messageCount + (props.pending?.(s) ?? 0)
  const item = (s: SessionSummaryView) => (
    <li>
      <A
        href={`/sessions/${s.id}`}
        class="session-link"
        aria-current={s.id === props.currentId ? 'page' : undefined}
        onClick={() => props.onPick()}
      >
        <span class="session-name">{s.title}</span>
        <span class="session-meta">
          {/* A turn is running there (in any tab or none: it runs on the server). */}
          <Show when={s.liveTurn}>
            <span class="session-running" title="A reply is being written">
              <span class="streaming-dot" aria-hidden="true" /> running
            </span>{' '}
            ·{' '}
          </Show>
          <Show when={!props.workspaceId && props.workspaces.length > 1}>
            {props.workspaces.find((w) => w.id === s.workspaceId)?.name ?? s.workspaceId} ·{' '}
          </Show>
          {count(s)} {count(s) === 1 ? 'message' : 'messages'} · {shortTime(s.updatedAt)}
        </span>
      </A>
    </li>
  )
  return (
    <aside id="chat-sessions" class="chat-sidebar" classList={{ open: props.open }}>
      <button type="button" class="secondary sidebar-close" onClick={() => props.onClose()}>
        Close
      </button>
      <button type="button" class="new-chat" onClick={() => props.onNew()}>
        New chat
      </button>
      <label>
        Workspace
        <select
          value={props.workspaceId}
          onChange={(e) => props.onWorkspace(e.currentTarget.value)}
        >
          <option value="">All workspaces</option>
          <For each={props.workspaces}>{(w) => <option value={w.id}>{w.name}</option>}</For>
        </select>
      </label>
      <ErrorNote error={props.error} />
      <h2 class="list-heading">Active</h2>
      <SessionList sessions={props.active} empty="No sessions yet." label="Active sessions">
        {item}
      </SessionList>
      <button
        type="button"
        class="secondary archived-toggle"
        aria-expanded={props.archivedOpen}
        aria-controls="archived-sessions"
        onClick={() => props.onArchivedOpen(!props.archivedOpen)}
      >
        Archived{props.archived ? ` (${props.archived.length})` : ''}
      </button>
      <div id="archived-sessions" hidden={!props.archivedOpen}>
        <SessionList sessions={props.archived} empty="Nothing archived." label="Archived sessions">
          {item}
        </SessionList>
      </div>
    </aside>
  )
}

function SessionList(props: {
  sessions: SessionSummaryView[] | undefined
  empty: string
  label: string
  children: (s: SessionSummaryView) => JSX.Element
}) {
  return (
    <Show
      when={props.sessions?.length}
      fallback={<p class="muted empty">{props.sessions ? props.empty : 'Loading…'}</p>}
    >
      <ul class="session-list" aria-label={props.label}>
        <For each={props.sessions}>{(s) => props.children(s)}</For>
      </ul>
    </Show>
  )
}

function shortTime(iso: string) {
  const date = new Date(iso)
  const today = new Date().toDateString() === date.toDateString()
  return today
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
}
