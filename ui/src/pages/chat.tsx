import { useNavigate, useParams } from '@solidjs/router'
import { createEffect, createMemo, createSignal, on, onCleanup, onMount, Show } from 'solid-js'
import { useChat } from '../chat/chat-context.tsx'
import { chatKeys } from '../chat/chat-keys.ts'
import { Composer } from '../chat/composer.tsx'
import { FirstRun } from '../chat/first-run.tsx'
import { followScroll } from '../chat/follow-scroll.ts'
import { newMessageId, replyMessage, usageOf } from '../chat/messages.ts'
import { ModelPicker } from '../chat/model-picker.tsx'
import { ConversationTop } from '../chat/conversation-top.tsx'
import { EmptyChat } from '../chat/empty-chat.tsx'
import { lastRepository, rememberRepository, repositoryForNewChat } from '../chat/repo-choice.ts'
import { RepoPicker } from '../chat/repo-picker.tsx'
import { createSessionActions } from '../chat/session-actions.ts'
import { setupProblem } from '../chat/setup-check.ts'
import { Sidebar } from '../chat/sidebar.tsx'
import { Transcript, type Resend } from '../chat/transcript.tsx'
import { ErrorNote, Notice } from '../components/status.tsx'
import { createData } from '../queries/data.ts'
import { getHealth, refreshHealth } from '../queries/health.ts'
import { getModels, refreshModels } from '../queries/models.ts'
import {
  createSession,
  getSession,
  getSessions,
  refreshSession,
  type SessionView,
} from '../queries/sessions.ts'
import { undoTurn } from '../queries/turn-changes.ts'
import { getWorkspaces } from '../queries/workspaces.ts'
import './chat.css'

const LIST_REFRESH_MS = 5_000
const refreshSessionLists = () => refreshSession()

/**
 * Chat: the sessions sidebar, the conversation with the reply streaming in (and the agents'
 * activity inside it), the model picker and the message box. One route serves `/` and
 * `/sessions/:id`, so a new chat's first message moves the address without remounting the page.
 */
export default function Chat() {
  const params = useParams<{ id?: string }>()
  const navigate = useNavigate()
  const chat = useChat()

  const workspaceId = () => chat.workspaceFilter() || undefined
  const [sidebarOpen, setSidebarOpen] = createSignal(false)
  const workspaces = createData(() => getWorkspaces())
  const models = createData(() => getModels())
  const health = createData(() => getHealth())
  const active = createData(() => getSessions('active', workspaceId()))
  const archived = createData(() => getSessions('archived', workspaceId()))
  const session = createData(() => (params.id ? getSession(params.id) : undefined))

  const [notice, setNotice] = createSignal<string>()
  const [error, setError] = createSignal<unknown>()
  let input: HTMLTextAreaElement | undefined

  const current = () => {
    const s = session.data()
    return s && s.id === params.id ? s : undefined
  }
  const selectedModel = () => chat.pickedModel() ?? models.data()?.defaultModel
  // The repository a new chat goes to: picked here, else the sidebar's filter, else the last used.
  const [pickedRepo, setPickedRepo] = createSignal<string>()
  const registered = () => workspaces.data()?.workspaces ?? []
  const newChatRepo = () =>
    repositoryForNewChat(registered(), pickedRepo(), chat.workspaceFilter(), lastRepository())
  const repoName = (id: string | undefined) => registered().find((w) => w.id === id)?.name
  // The live copy of a turn in this session, until the session shown is the one that saved it
  // (or, for a turn that never said, holds the same exchange).
  const liveHere = () => {
    const t = chat.liveTurn(params.id)
    if (!t) return undefined
    const s = current()
    if (t.savedAs !== undefined) return s && s.revision >= t.savedAs ? undefined : t
    return s?.messages.some((m) => m.id === t.user.id) ? undefined : t
  }
  // A turn this page follows counts in the lists and the header before its save is read back:
  // its exchange (two messages) and the tokens its reply reports as it goes.
  const unsaved = (t: ReturnType<typeof chat.liveTurn>, revision: number) =>
    !!t &&
    (t.savedAs === undefined
      ? t.phase === 'streaming' || t.phase === 'settling'
      : revision < t.savedAs)
  const pendingMessages = (s: { id: string; revision: number }) =>
    unsaved(chat.liveTurn(s.id), s.revision) ? 2 : 0
  const liveUsage = () => {
    const t = liveHere()
    const s = current()
    if (!t || !s || !unsaved(t, s.revision)) return undefined
    const lines = usageOf(t.reply.metadata)
    if (lines.length === 0) return undefined
    return lines.reduce(
      (sum, u) => ({
        inputTokens: sum.inputTokens + u.inputTokens,
        outputTokens: sum.outputTokens + u.outputTokens,
      }),
      { inputTokens: 0, outputTokens: 0 },
    )
  }
  // Turns run on the server, one per session: another session's turn does not hold this one.
  const busyHere = () => chat.turnBusy(params.id)
  const refusal = () => {
    const r = chat.turnRefused()
    return r && r.sessionId === params.id ? r.error : undefined
  }

  // What keeps the chat from working (gateway down, no models): the first-run panel takes the
  // message box's place. Never during a turn, whose Stop button must stay.
  const problem = createMemo(() => setupProblem(health.data(), models.data()))
  const blocking = () => {
    const p = problem()
    if (!p || busyHere() || (p.kind === 'no-models' && chat.setupDismissed())) return undefined
    return p
  }
  const [checking, setChecking] = createSignal(false)
  async function recheck() {
    setChecking(true)
    await Promise.allSettled([refreshHealth(), refreshModels()])
    setChecking(false)
  }

  // A new session, another open session: the notice and error were about the previous one.
  createEffect(
    on(
      () => params.id,
      () => {
        setNotice(undefined)
        setError(undefined)
        chat.clearRefusal()
      },
      { defer: true },
    ),
  )

  async function run<T>(work: () => Promise<T>): Promise<T | undefined> {
    setError(undefined)
    try {
      return await work()
    } catch (err) {
      setError(err)
      return undefined
    }
  }

  async function newChat() {
    const created = await run(() => createSession(newChatRepo()))
    if (!created) return
    setSidebarOpen(false)
    navigate(`/sessions/${created.id}`)
    input?.focus()
  }

  async function send() {
    const typedIn = params.id
    const text = chat.draft(typedIn).trim()
    if (!text || chat.turnBusy(typedIn)) return
    setNotice(undefined)
    setError(undefined)
    let target = current()
    if (!target) {
      if (typedIn) return
      const created = await run(() => createSession(newChatRepo()))
      if (!created) return
      // The same page follows to the new address: focus, the picked model and the turn stay.
      navigate(`/sessions/${created.id}`)
      target = created
    }
    if (target.archivedAt) return
    chat.setDraft(typedIn, '')
    await startTurn(target, text)
  }

  async function startTurn(target: Pick<SessionView, 'id' | 'workspaceId'>, text: string) {
    const model = selectedModel()
    rememberRepository(target.workspaceId)
    await chat.runTurn(
      {
        sessionId: target.id,
        workspaceId: target.workspaceId,
        // The default goes unnamed: the server resolves it, even when the catalog lacks it.
        ...(model && model !== models.data()?.defaultModel && { model }),
        message: { id: newMessageId(), role: 'user', parts: [{ type: 'text', text }] },
      },
      text,
    )
  }

  /**
   * Retry, regenerate, edit and resend: the last exchange is dropped from the transcript (under
   * the revision this page saw, so a session changed elsewhere is reloaded, not overwritten), then
   * the prompt goes again as a new turn. Undoing the old turn's files, when asked, comes first: a
   * refusal stops here, before anything is dropped.
   */
  const resend: Resend = async (userMessageId, text, options) => {
    const s = current()
    if (!s || s.archivedAt || busyHere()) return
    if (options?.undoTurnId) {
      const undoTurnId = options.undoTurnId
      if (!(await run(() => undoTurn(s.id, undoTurnId)))) return
    }
    if (!(await actions.removeExchange(userMessageId))) return
    await startTurn(s, text)
  }

  const actions = createSessionActions({
    current,
    run,
    onArchived: () => chat.setArchivedOpen(true),
    onDeleted: () => navigate('/'),
    setNotice,
    setError,
  })

  // On a wide screen the message box takes the focus (on a phone that would open the keyboard).
  onMount(() => {
    if (window.matchMedia('(min-width: 701px)').matches) input?.focus()
  })
  // A session whose turn is running (started elsewhere, or before a reload) is joined, so it
  // shows streaming to its end here too.
  createEffect(() => {
    const s = current()
    if (s?.liveTurn) void chat.rejoinTurn(s.id, s.liveTurn)
  })
  // While a listed session runs a turn this page does not follow, the lists are read again now
  // and then, so its mark goes when the turn ends.
  createEffect(() => {
    const listed = active.data()?.sessions ?? []
    if (!listed.some((s) => s.liveTurn && !chat.turnBusy(s.id))) return
    const timer = setInterval(() => void refreshSessionLists(), LIST_REFRESH_MS)
    onCleanup(() => clearInterval(timer))
  })
  chatKeys({
    streaming: () => chat.liveTurn(params.id)?.phase === 'streaming',
    stop: () => void chat.stopTurn(params.id),
    drawerOpen: sidebarOpen,
    closeDrawer: () => setSidebarOpen(false),
    listed: () => [
      ...(active.data()?.sessions ?? []),
      ...(chat.archivedOpen() ? (archived.data()?.sessions ?? []) : []),
    ],
    currentId: () => params.id,
    open: (id) => navigate(`/sessions/${id}`),
  })
  let pane: HTMLDivElement | undefined
  followScroll(() => pane)

  const composerDisabled = () => {
    if (current()?.archivedAt) return 'This session is archived; restore it to continue.'
    return undefined
  }

  return (
    <div class="chat">
      <Sidebar
        open={sidebarOpen()}
        currentId={params.id}
        workspaces={workspaces.data()?.workspaces ?? []}
        workspaceId={chat.workspaceFilter()}
        onWorkspace={chat.setWorkspaceFilter}
        active={active.data()?.sessions}
        archived={archived.data()?.sessions}
        archivedOpen={chat.archivedOpen()}
        onArchivedOpen={chat.setArchivedOpen}
        error={active.error() ?? archived.error() ?? workspaces.error()}
        pending={pendingMessages}
        onNew={() => void newChat()}
        onPick={() => setSidebarOpen(false)}
        onClose={() => setSidebarOpen(false)}
      />
      <Show when={sidebarOpen()}>
        <div class="sidebar-backdrop" onClick={() => setSidebarOpen(false)} />
      </Show>
      <section class="conversation" aria-label="Chat">
        <ConversationTop
          sidebarOpen={sidebarOpen()}
          onToggleSidebar={() => setSidebarOpen(!sidebarOpen())}
          session={current()}
          repository={repoName(current()?.workspaceId)}
          liveUsage={liveUsage()}
          placeholder={
            params.id ? (session.error() ? 'Session not found' : 'Loading…') : 'New chat'
          }
          busy={busyHere()}
          onRename={actions.rename}
          onArchive={actions.archive}
          onDelete={actions.remove}
        />
        <Show when={!blocking() && models.data()?.warning}>
          {(warning) => (
            <p class="gateway-warning" role="alert">
              Model gateway unavailable: {warning()}
            </p>
          )}
        </Show>
        <ErrorNote error={models.error()} />
        {/* A session that cannot be read says so once, here: no composer, no empty state. */}
        <Show when={params.id && session.error()}>
          <ErrorNote error={session.error()} />
        </Show>
        <Show when={notice()}>{(text) => <Notice>{text()}</Notice>}</Show>
        <ErrorNote error={error() ?? refusal()} />
        <div class="conversation-pane" ref={pane}>
          <div class="pane-content">
            <Show
              when={current()?.messages.length || liveHere()}
              fallback={
                <Show when={!blocking()}>
                  <Show
                    when={params.id}
                    fallback={
                      <EmptyChat
                        workspaces={registered()}
                        repository={newChatRepo()}
                        onPrompt={(text) => {
                          chat.setDraft(undefined, text)
                          input?.focus()
                        }}
                      />
                    }
                  >
                    {/* Only once the session is read: while loading, the header says so alone. */}
                    <Show when={current()}>
                      <p class="muted empty-chat">No messages yet.</p>
                    </Show>
                  </Show>
                </Show>
              }
            >
              <Transcript
                messages={current()?.messages ?? []}
                live={(() => {
                  const t = liveHere()
                  return t
                    ? {
                        user: t.user,
                        reply: replyMessage(t.reply, `live_${t.user.id}`),
                        streaming: t.phase === 'streaming',
                      }
                    : undefined
                })()}
                onRemove={
                  busyHere() || current()?.archivedAt
                    ? undefined
                    : (id) => void actions.removeExchange(id)
                }
                onResend={busyHere() || current()?.archivedAt ? undefined : resend}
              />
            </Show>
          </div>
        </div>
        <Show
          when={blocking()}
          fallback={
            <Show when={!(params.id && session.error())}>
              <Composer
                ref={(el) => (input = el)}
                draft={chat.draft(params.id)}
                onDraft={(text) => chat.setDraft(params.id, text)}
                running={busyHere()}
                disabled={composerDisabled()}
                onSend={() => void send()}
                onStop={() => void chat.stopTurn(params.id)}
                picker={
                  <>
                    <Show when={!params.id && registered().length > 0}>
                      <RepoPicker
                        workspaces={registered()}
                        value={newChatRepo()}
                        onChange={setPickedRepo}
                      />
                    </Show>
                    <ModelPicker
                      models={models.data()}
                      value={selectedModel()}
                      onChange={chat.setPickedModel}
                    />
                  </>
                }
              />
            </Show>
          }
        >
          {(p) => (
            <FirstRun
              problem={p()}
              checking={checking()}
              onRetry={() => void recheck()}
              onContinue={() => chat.setSetupDismissed(true)}
            />
          )}
        </Show>
      </section>
    </div>
  )
}
