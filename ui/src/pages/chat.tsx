import { useNavigate, useParams } from '@solidjs/router'
import {
  createComputed,
  createEffect,
  createMemo,
  createResource,
  createSignal,
  on,
  onCleanup,
  onMount,
  Show,
  type Resource,
} from 'solid-js'
import { ApiError } from '../api.ts'
import {
  createSession,
  deleteSession,
  getHealth,
  getModels,
  getSession,
  listSessions,
  listWorkspaces,
  patchSession,
  saveMessages,
  type SessionView,
} from '../chat/client.ts'
import { Composer } from '../chat/composer.tsx'
import { FirstRun } from '../chat/first-run.tsx'
import {
  clearRefusal,
  liveTurn,
  runTurn,
  savedAfterTurn,
  stopTurn,
  turnBusy,
  turnRefused,
} from '../chat/live-turn.ts'
import { newMessageId, replyMessage, withoutExchange } from '../chat/messages.ts'
import { ModelPicker } from '../chat/model-picker.tsx'
import { SessionHeader } from '../chat/session-header.tsx'
import { Sidebar } from '../chat/sidebar.tsx'
import {
  archivedOpen,
  draft,
  pickedModel,
  setArchivedOpen,
  setDraft,
  setPickedModel,
  setSetupDismissed,
  setupDismissed,
  setWorkspaceFilter,
  workspaceFilter,
} from '../chat/state.ts'
import { setupProblem } from '../chat/setup-check.ts'
import { Transcript } from '../chat/transcript.tsx'
import { ErrorNote, Notice } from '../components/status.tsx'
import './chat.css'

/** A resource's value, or undefined while it failed (reading a failed resource throws). */
const valueOf = <T,>(resource: Resource<T>) => (resource.error ? undefined : resource())

/**
 * Chat: the sessions sidebar, the conversation with the reply streaming in (and the agents'
 * activity inside it), the model picker and the message box.
 */
export default function Chat() {
  const params = useParams<{ id?: string }>()
  const navigate = useNavigate()

  const workspaceId = workspaceFilter
  const [sidebarOpen, setSidebarOpen] = createSignal(false)
  const [workspaces] = createResource(listWorkspaces)
  const [models, { refetch: refetchModels }] = createResource(getModels)
  const [health, { refetch: refetchHealth }] = createResource(getHealth)
  // An object source: '' (all workspaces) is falsy, and a falsy source would never fetch.
  const [active, { refetch: refetchActive }] = createResource(
    () => ({ ws: workspaceId() }),
    ({ ws }) => listSessions('active', ws || undefined),
  )
  const [archived, { refetch: refetchArchived }] = createResource(
    () => ({ ws: workspaceId() }),
    ({ ws }) => listSessions('archived', ws || undefined),
  )
  const [session, { mutate: setSession, refetch: refetchSession }] = createResource(
    () => params.id,
    getSession,
  )

  const [notice, setNotice] = createSignal<string>()
  const [error, setError] = createSignal<unknown>()
  let input: HTMLTextAreaElement | undefined

  const current = (): SessionView | undefined => {
    const s = valueOf(session)
    return s && s.id === params.id ? s : undefined
  }
  const selectedModel = () => pickedModel() ?? valueOf(models)?.defaultModel
  const running = turnBusy
  // The live copy of a turn in this session, until the saved session holds the same exchange.
  const liveHere = () => {
    const t = liveTurn()
    if (!t || t.sessionId !== params.id) return undefined
    return current()?.messages.some((m) => m.id === t.user.id) ? undefined : t
  }
  const busyHere = () => {
    const t = liveTurn()
    return running() && t?.sessionId === params.id
  }
  const refusal = () => {
    const r = turnRefused()
    return r && r.sessionId === params.id ? r.error : undefined
  }
  const refetchLists = () => Promise.all([refetchActive(), refetchArchived()])

  // What keeps the chat from working (gateway down, no models): the first-run panel takes the
  // message box's place. Never during a turn, whose Stop button must stay.
  const problem = createMemo(() => setupProblem(valueOf(health), valueOf(models)))
  const blocking = () => {
    const p = problem()
    if (!p || busyHere() || (p.kind === 'no-models' && setupDismissed())) return undefined
    return p
  }
  const [checking, setChecking] = createSignal(false)
  async function recheck() {
    setChecking(true)
    await Promise.allSettled([refetchHealth(), refetchModels()])
    setChecking(false)
  }

  // A new session, another open session: the notice and error were about the previous one.
  createEffect(
    on(
      () => params.id,
      () => {
        setNotice(undefined)
        setError(undefined)
        clearRefusal()
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
    const created = await run(() => createSession(workspaceId() || undefined))
    if (!created) return
    setSidebarOpen(false)
    navigate(`/sessions/${created.id}`)
    await refetchActive()
    input?.focus()
  }

  async function send() {
    const text = draft().trim()
    if (!text || running()) return
    setNotice(undefined)
    setError(undefined)
    let target = current()
    if (!target) {
      if (params.id) return
      const created = await run(() => createSession(workspaceId() || undefined))
      if (!created) return
      // This page is remounted for the new route; the turn and the draft live outside it.
      navigate(`/sessions/${created.id}`)
      target = created
      void refetchActive()
    }
    if (target.archivedAt) return
    const model = selectedModel()
    setDraft('')
    await runTurn(
      {
        sessionId: target.id,
        workspaceId: target.workspaceId,
        // The default goes unnamed: the server resolves it, even when the catalog lacks it.
        ...(model && model !== valueOf(models)?.defaultModel && { model }),
        message: { id: newMessageId(), role: 'user', parts: [{ type: 'text', text }] },
      },
      text,
    )
  }

  // A finished turn comes back saved: show it in place of the live copy, and the new title. A
  // computation, not an effect, so the saved session is in place before the transcript renders
  // without the live turn: the reply keeps its rendered row instead of being built again.
  createComputed(
    on(
      savedAfterTurn,
      (saved) => {
        if (saved && saved.id === params.id) setSession(saved)
      },
      { defer: true },
    ),
  )
  createEffect(on(savedAfterTurn, () => void refetchLists(), { defer: true }))

  async function rename(title: string) {
    const s = current()
    if (!s) return false
    const saved = await run(() => patchSession(s.id, { title }))
    if (!saved) return false
    setSession(saved)
    void refetchLists()
    return true
  }

  async function archive(archivedNow: boolean) {
    const s = current()
    if (!s) return
    const saved = await run(() => patchSession(s.id, { archived: archivedNow }))
    if (!saved) return
    setSession(saved)
    if (archivedNow) setArchivedOpen(true)
    await refetchLists()
  }

  async function remove() {
    const s = current()
    if (!s) return
    const done = await run(() => deleteSession(s.id))
    if (!done) return
    setSession(undefined)
    navigate('/')
    await refetchLists()
  }

  /**
   * Removes an exchange from the transcript with a save under the revision this page saw. When
   * the session changed meanwhile (another tab, a turn from the CLI) the server answers 409: the
   * page reloads the session and says so, and the draft in the message box stays as it is.
   */
  async function removeExchange(userMessageId: string) {
    const s = current()
    if (!s) return
    setNotice(undefined)
    setError(undefined)
    try {
      const saved = await saveMessages(s.id, {
        revision: s.revision,
        messages: withoutExchange(s.messages, userMessageId),
      })
      setSession(saved)
      void refetchLists()
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) return setError(err)
      await refetchSession()
      setNotice(
        'This session changed elsewhere, so it was reloaded and nothing was removed. Your draft is kept.',
      )
      void refetchLists()
    }
  }

  // On a wide screen the message box takes the focus (on a phone that would open the keyboard).
  onMount(() => {
    if (window.matchMedia('(min-width: 701px)').matches) input?.focus()
  })

  // Keyboard: Escape stops a running turn; Alt+ArrowUp/ArrowDown opens the previous/next session.
  onMount(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return
      if (e.key === 'Escape') {
        if (liveTurn()?.phase === 'streaming') {
          e.preventDefault()
          stopTurn()
        } else if (sidebarOpen()) setSidebarOpen(false)
        return
      }
      if (!e.altKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return
      const list = [
        ...(valueOf(active)?.sessions ?? []),
        ...(archivedOpen() ? (valueOf(archived)?.sessions ?? []) : []),
      ]
      if (list.length === 0) return
      e.preventDefault()
      const at = list.findIndex((s) => s.id === params.id)
      const step = e.key === 'ArrowUp' ? -1 : 1
      const next = at === -1 ? 0 : Math.min(list.length - 1, Math.max(0, at + step))
      if (list[next]!.id !== params.id) navigate(`/sessions/${list[next]!.id}`)
    }
    document.addEventListener('keydown', onKey)
    onCleanup(() => document.removeEventListener('keydown', onKey))
  })

  // Follow the reply as it streams, unless the reader scrolled up. The conversation's size is
  // observed rather than each chunk: the observer runs once per frame, after layout, so following
  // costs no extra layout however fast the reply streams.
  let follow = true
  let conversation: HTMLElement | undefined
  onMount(() => {
    const onScroll = () => {
      follow = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80
    }
    window.addEventListener('scroll', onScroll, { passive: true })
    const grows = new ResizeObserver(() => {
      if (follow) window.scrollTo({ top: document.documentElement.scrollHeight })
    })
    if (conversation) grows.observe(conversation)
    onCleanup(() => {
      window.removeEventListener('scroll', onScroll)
      grows.disconnect()
    })
  })

  const composerDisabled = () => {
    if (running() && !busyHere()) {
      return 'A reply is still streaming in another session; Escape stops it.'
    }
    if (current()?.archivedAt) return 'This session is archived; restore it to continue.'
    if (params.id && session.error) return 'This session could not be opened.'
    return undefined
  }

  return (
    <div class="chat">
      <Sidebar
        open={sidebarOpen()}
        currentId={params.id}
        workspaces={valueOf(workspaces)?.workspaces ?? []}
        workspaceId={workspaceId()}
        onWorkspace={setWorkspaceFilter}
        active={valueOf(active)?.sessions}
        archived={valueOf(archived)?.sessions}
        archivedOpen={archivedOpen()}
        onArchivedOpen={setArchivedOpen}
        error={active.error ?? archived.error ?? workspaces.error}
        onNew={() => void newChat()}
        onPick={() => setSidebarOpen(false)}
        onClose={() => setSidebarOpen(false)}
      />
      <Show when={sidebarOpen()}>
        <div class="sidebar-backdrop" onClick={() => setSidebarOpen(false)} />
      </Show>
      <section class="conversation" aria-label="Chat" ref={conversation}>
        <div class="conversation-top">
          <button
            type="button"
            class="secondary sidebar-toggle"
            aria-expanded={sidebarOpen()}
            aria-controls="chat-sessions"
            onClick={() => {
              setSidebarOpen(!sidebarOpen())
              if (sidebarOpen())
                document.querySelector<HTMLElement>('#chat-sessions .new-chat')?.focus()
            }}
          >
            Sessions
          </button>
          <Show
            when={current()}
            fallback={
              <h1 class="session-title">
                {params.id ? (session.error ? 'Session not found' : 'Loading…') : 'New chat'}
              </h1>
            }
          >
            {(s) => (
              <SessionHeader
                session={s()}
                busy={busyHere()}
                onRename={rename}
                onArchive={archive}
                onDelete={remove}
              />
            )}
          </Show>
        </div>
        <Show when={!blocking() && valueOf(models)?.warning}>
          {(warning) => (
            <p class="gateway-warning" role="alert">
              Model gateway unavailable: {warning()}
            </p>
          )}
        </Show>
        <ErrorNote error={models.error} />
        <Show when={params.id && session.error}>
          <ErrorNote error={session.error} />
        </Show>
        <Show when={notice()}>{(text) => <Notice>{text()}</Notice>}</Show>
        <ErrorNote error={error() ?? refusal()} />
        <Show
          when={current()?.messages.length || liveHere()}
          fallback={
            <Show when={!blocking()}>
              <p class="muted empty-chat">
                {params.id
                  ? 'No messages yet.'
                  : 'Start a new chat: write a message below, or pick a session.'}
              </p>
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
              running() || current()?.archivedAt ? undefined : (id) => void removeExchange(id)
            }
          />
        </Show>
        <Show
          when={blocking()}
          fallback={
            <Composer
              ref={(el) => (input = el)}
              draft={draft()}
              onDraft={setDraft}
              running={busyHere()}
              disabled={composerDisabled()}
              onSend={() => void send()}
              onStop={stopTurn}
              picker={
                <ModelPicker
                  models={valueOf(models)}
                  value={selectedModel()}
                  onChange={setPickedModel}
                />
              }
            />
          }
        >
          {(p) => (
            <FirstRun
              problem={p()}
              checking={checking()}
              onRetry={() => void recheck()}
              onContinue={() => setSetupDismissed(true)}
            />
          )}
        </Show>
      </section>
    </div>
  )
}
