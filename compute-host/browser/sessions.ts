import type { Db } from '../../db/index.ts'
import {
  closeAllBrowserSessions,
  closeBrowserSession,
  openBrowserSession,
  recordBrowserCall,
  type BrowserSessionOwner,
} from '../../runtime/browser/sessions.ts'
import type { BrowserServer } from './server-connection.ts'
import { BrowserError, type BrowserCallResult, type BrowserLink } from './types.ts'

/** A browser session nobody called for this long is closed (its browser holds memory). */
const IDLE_CLOSE_MS = 30 * 60_000

type Live = {
  id: string
  owner: BrowserSessionOwner
  link: BrowserLink
  /** The tail of this session's calls: each waits for the one before (calls are serialised). */
  tail: Promise<unknown>
  idle?: ReturnType<typeof setTimeout>
  /** A vault secret was typed into this session's pages: it is never recorded from then on. */
  secretFilled?: boolean
}

/**
 * What the recordings (recordings.ts) need to hear from the sessions, each run in the session's
 * queue: before a secret is typed (stop recording: a trace holds the page's DOM, typed values
 * included) and before the session closes (stop and keep what was recorded); and when its MCP
 * session is gone without a close (whatever the server recorded is gone with it).
 */
export type SessionRecordingHooks = {
  beforeSecretFill(id: string, link: BrowserLink): Promise<void>
  beforeClose(id: string, link: BrowserLink): Promise<void>
  dropped(id: string): void
}

export type BrowserSessions = ReturnType<typeof createBrowserSessions>

/**
 * The live browser sessions of this host, one per chat session or task, each its own MCP session
 * with the browser server (its own isolated pages). Calls of one session run one after another:
 * a page is one shared thing, and two agents clicking at once would each see the other's page.
 * Sessions of different owners run side by side.
 *
 * Each call is recorded in one statement that also answers who controls the session; while the
 * owner has taken it over, interactive calls are refused (`BROWSER_TAKEN_OVER`) and reads go on.
 * A session closes when its chat session ends or is archived, its task ends, it sat idle 30
 * minutes, or the server was lost (its pages are gone with the MCP session).
 */
export function createBrowserSessions(options: {
  db: Db
  server: BrowserServer
  /** Settles once rows an earlier run left open are closed; no session opens before it. */
  startup?: Promise<unknown>
}) {
  const { db, server } = options
  const live = new Map<string, Live>()
  const opening = new Map<string, Promise<Live>>()
  let hooks: SessionRecordingHooks | undefined

  const keyOf = (owner: BrowserSessionOwner) =>
    'chatSessionId' in owner ? `chat:${owner.chatSessionId}` : `task:${owner.taskId}`

  // The server went away: every MCP session on it is gone, with its pages.
  server.onLost((reason) => {
    for (const [key, session] of live)
      void drop(key, session, `the browser server was lost: ${reason}`)
  })

  async function drop(key: string, session: Live, reason: string) {
    if (live.get(key) !== session) return
    live.delete(key)
    if (session.idle) clearTimeout(session.idle)
    hooks?.dropped(session.id)
    await closeBrowserSession(db, session.id, reason).catch(() => {})
    await session.link.close().catch(() => {})
  }

  async function sessionFor(owner: BrowserSessionOwner): Promise<Live> {
    const key = keyOf(owner)
    const known = live.get(key)
    if (known) return known
    const pending = opening.get(key)
    if (pending) return pending
    const made = (async () => {
      await options.startup
      const link = await server.openSession()
      try {
        const row = await openBrowserSession(db, owner, link.mcpSessionId)
        const session: Live = { id: row.id, owner, link, tail: Promise.resolve() }
        live.set(key, session)
        link.onLost(() => void drop(key, session, 'its MCP session was lost'))
        return session
      } catch (error) {
        await link.close()
        throw error
      }
    })()
    opening.set(key, made)
    try {
      return await made
    } finally {
      opening.delete(key)
    }
  }

  function touch(key: string, session: Live) {
    if (session.idle) clearTimeout(session.idle)
    session.idle = setTimeout(() => void drop(key, session, 'idle for 30 minutes'), IDLE_CLOSE_MS)
    session.idle.unref()
  }

  return {
    /** The id of the owner's live session, if it has one on this host. */
    idOf: (owner: BrowserSessionOwner) => live.get(keyOf(owner))?.id,
    /**
     * Runs one operation in the owner's session (opened on first use), after the session's
     * earlier calls. `browserSessionId`, when the model names one, must be the owner's own.
     */
    async call(input: {
      owner: BrowserSessionOwner
      browserSessionId?: string
      operation: string
      args: Record<string, unknown>
      interactive: boolean
      /** This call types a vault secret: any recording stops first, and none starts after. */
      secretFill?: boolean
      signal?: AbortSignal
    }): Promise<{ browserSessionId: string; result: BrowserCallResult }> {
      const session = await sessionFor(input.owner)
      if (input.browserSessionId && input.browserSessionId !== session.id) {
        throw new BrowserError(
          'BROWSER_SESSION_NOT_YOURS',
          `browser session ${input.browserSessionId} is not this run's; its session is ${session.id}`,
        )
      }
      const key = keyOf(input.owner)
      const run = session.tail.then(async () => {
        const controller = await recordBrowserCall(db, session.id, {
          operation: input.operation,
          interactive: input.interactive,
        })
        if (controller === undefined) {
          throw new BrowserError(
            'BROWSER_SESSION_CLOSED',
            `browser session ${session.id} is closed`,
          )
        }
        if (controller === 'human' && input.interactive) {
          throw new BrowserError(
            'BROWSER_TAKEN_OVER',
            'the owner has taken over this browser; interactive operations are refused until they hand it back (reads still work)',
          )
        }
        touch(key, session)
        if (input.secretFill) {
          session.secretFilled = true
          await hooks?.beforeSecretFill(session.id, session.link)
        }
        const result = await session.link.call(input.operation, input.args, input.signal)
        return { browserSessionId: session.id, result }
      })
      // The next call waits for this one however it ends.
      session.tail = run.catch(() => {})
      return run
    },
    /** Closes the owner's session (its chat session ended or was archived, its task ended). */
    async close(owner: BrowserSessionOwner, reason: string) {
      const key = keyOf(owner)
      const session = live.get(key) ?? (await opening.get(key)?.catch(() => undefined))
      if (!session) return false
      // After the calls already queued: an ending run's last call is not cut off mid-page.
      await session.tail
      await hooks?.beforeClose(session.id, session.link).catch(() => {})
      await session.link.call('browser_close', {}, AbortSignal.timeout(5_000)).catch(() => {})
      await drop(key, session, reason)
      return true
    },
    /** Closes every session (the host stops); rows left open by an earlier run are closed too. */
    async closeAll(reason: string) {
      await Promise.allSettled([...live].map(([key, session]) => drop(key, session, reason)))
      await closeAllBrowserSessions(db, reason)
    },
    setRecordingHooks(next: SessionRecordingHooks) {
      hooks = next
    },
    /**
     * Runs `fn` with a live session's MCP link, in the session's queue (after its calls, before
     * the next); undefined when the session is not open on this host.
     */
    async onSession<T>(
      id: string,
      fn: (link: BrowserLink, state: { secretFilled: boolean }) => Promise<T>,
    ): Promise<{ value: T } | undefined> {
      const session = [...live.values()].find((s) => s.id === id)
      if (!session) return undefined
      const run = session.tail.then(() =>
        fn(session.link, { secretFilled: session.secretFilled === true }),
      )
      session.tail = run.catch(() => {})
      return { value: await run }
    },
    /** A screenshot of the session's page for the owner (the UI during a takeover). */
    async ownerScreenshot(
      id: string,
      signal?: AbortSignal,
    ): Promise<BrowserCallResult | undefined> {
      const session = [...live.values()].find((s) => s.id === id)
      if (!session) return undefined
      const run = session.tail.then(() =>
        session.link.call('browser_take_screenshot', { type: 'png', scale: 'css' }, signal),
      )
      session.tail = run.catch(() => {})
      return run
    },
  }
}
