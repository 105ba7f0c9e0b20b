import { Show } from 'solid-js'
import type { SessionView } from '../queries/sessions.ts'
import { SessionHeader } from './session-header.tsx'

/**
 * The bar above the conversation: the button that opens the sessions drawer (on a phone), and the
 * open session's header, or what stands in its place (a new chat, loading, not found).
 */
export function ConversationTop(props: {
  sidebarOpen: boolean
  onToggleSidebar: () => void
  session: SessionView | undefined
  /** The name of the repository the session works in. */
  repository?: string | undefined
  /** Tokens of the turn running now, not yet in the session's usage. */
  liveUsage?: { inputTokens: number; outputTokens: number } | undefined
  /** The title while no session is shown. */
  placeholder: string
  busy: boolean
  onRename: (title: string) => Promise<boolean>
  onArchive: (archived: boolean) => Promise<void>
  onDelete: () => Promise<void>
}) {
  return (
    <div class="conversation-top">
      <button
        type="button"
        class="secondary sidebar-toggle"
        aria-expanded={props.sidebarOpen}
        aria-controls="chat-sessions"
        onClick={() => {
          props.onToggleSidebar()
          if (props.sidebarOpen)
            document.querySelector<HTMLElement>('#chat-sessions .new-chat')?.focus()
        }}
      >
        Sessions
      </button>
      <Show when={props.session} fallback={<h1 class="session-title">{props.placeholder}</h1>}>
        {(s) => (
          <SessionHeader
            session={s()}
            repository={props.repository}
            liveUsage={props.liveUsage}
            busy={props.busy}
            onRename={props.onRename}
            onArchive={props.onArchive}
            onDelete={props.onDelete}
          />
        )}
      </Show>
    </div>
  )
}
