import { createContext, createSignal, useContext, type JSX } from 'solid-js'
import { createDrafts } from './drafts.ts'
import { createLiveTurn } from './live-turn.ts'

/**
 * What the chat keeps while the owner visits other pages: the turn in flight, each session's
 * draft, the picked model and the sidebar's choices. Provided once at the layout (app.tsx), so a
 * second view or a test gets its own state instead of sharing module-level signals.
 */
function createChatState() {
  const drafts = createDrafts()
  const [pickedModel, setPickedModel] = createSignal<string>()
  const [workspaceFilter, setWorkspaceFilter] = createSignal('')
  const [archivedOpen, setArchivedOpen] = createSignal(false)
  /** The owner chose to chat although the gateway's catalog looked empty (first-run.tsx). */
  const [setupDismissed, setSetupDismissed] = createSignal(false)
  return {
    ...drafts,
    ...createLiveTurn(drafts),
    pickedModel,
    setPickedModel,
    workspaceFilter,
    setWorkspaceFilter,
    archivedOpen,
    setArchivedOpen,
    setupDismissed,
    setSetupDismissed,
  }
}
export type ChatState = ReturnType<typeof createChatState>

const ChatContext = createContext<ChatState>()

export function ChatProvider(props: { children: JSX.Element }) {
  return <ChatContext.Provider value={createChatState()}>{props.children}</ChatContext.Provider>
}

export function useChat(): ChatState {
  const state = useContext(ChatContext)
  if (!state) throw new Error('useChat() needs a <ChatProvider> above it (app.tsx)')
  return state
}
