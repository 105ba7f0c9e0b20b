import { checkBrowserSocket } from './socket-check.ts'
import { compileCatalog, type BrowserCatalog } from './catalog.ts'
import { BrowserError, type BrowserContentPart, type BrowserLink, type OpenLink } from './types.ts'

/** Waits between failed connection attempts: base, twice that, … up to the cap. */
const RETRY_BASE_MS = 250
const RETRY_CAP_MS = 30_000

export type ConnectionState =
  | { status: 'connected'; since: string; serverInfo: { name: string; version: string } | null }
  | { status: 'connecting'; since: string }
  | { status: 'down'; since: string; reason: string; retryAt: string }

/** Health with its three parts apart: a socket can be fine while the browser cannot start. */
export type BrowserServerHealth = {
  socket: { ok: boolean; path: string; reason?: string }
  mcp: {
    ok: boolean
    state: ConnectionState['status']
    serverInfo?: { name: string; version: string } | null
    tools?: number
    reason?: string
  }
  browser: { ok: boolean; reason?: string }
}

export type BrowserServer = ReturnType<typeof createBrowserServer>

/**
 * The host's connection to the owner's browser MCP server: a control MCP session that holds the
 * operation catalog and answers health, and fresh MCP sessions for each browser session
 * (sessions.ts), each checked at the socket first (socket-check.ts).
 *
 * The state is told as it is: `connected` only while the control session is alive, `down` with
 * the reason and the time of the next attempt the moment it is lost, never a stale "connected".
 * A lost connection is retried by itself with backoff (a timer, so health shows the recovery),
 * and a call asked for meanwhile fails at once with the reason instead of hanging; when the
 * server is back, the next call works without a restart.
 */
export function createBrowserServer(options: {
  socketPath: string
  openLink: OpenLink
  log?: { warn(message: string, data?: object): void; info(message: string, data?: object): void }
}) {
  const { socketPath, openLink, log } = options
  let state: ConnectionState = {
    status: 'down',
    since: now(),
    reason: 'not connected yet',
    retryAt: now(),
  }
  let control: { link: BrowserLink; catalog: BrowserCatalog } | undefined
  let connecting: Promise<{ link: BrowserLink; catalog: BrowserCatalog }> | undefined
  let failures = 0
  let retryTimer: ReturnType<typeof setTimeout> | undefined
  let closed = false
  let socketWasTheProblem = false
  const lostListeners = new Set<(reason: string) => void>()

  function markDown(reason: string) {
    failures += 1
    const wait = Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.min(20, failures - 1))
    state = {
      status: 'down',
      since: now(),
      reason,
      retryAt: new Date(Date.now() + wait).toISOString(),
    }
    if (retryTimer) clearTimeout(retryTimer)
    if (!closed) {
      retryTimer = setTimeout(() => void connect().catch(() => {}), wait)
      retryTimer.unref()
    }
  }

  function lost(reason: string) {
    if (!control) return
    const old = control
    control = undefined
    void old.link.close()
    log?.warn('browser server connection lost', { reason })
    markDown(reason)
    for (const listener of lostListeners) listener(reason)
  }

  async function connect() {
    if (control) return control
    if (connecting) return connecting
    if (closed) throw new BrowserError('BROWSER_UNAVAILABLE', 'the browser connection is closed')
    state = { status: 'connecting', since: now() }
    connecting = (async () => {
      const socket = await checkBrowserSocket(socketPath)
      socketWasTheProblem = !socket.ok
      if (!socket.ok) throw new BrowserError('BROWSER_SOCKET_REFUSED', socket.reason)
      const link = await openLink()
      try {
        const catalog = await compileCatalog(await link.listOperations())
        return { link, catalog }
      } catch (error) {
        await link.close()
        throw error
      }
    })()
    try {
      const made = await connecting
      control = made
      failures = 0
      state = { status: 'connected', since: now(), serverInfo: made.link.serverInfo ?? null }
      made.link.onLost((reason) => lost(reason))
      // The next run's tool enum is the new list (a run already built keeps the one it had).
      made.link.onOperationsChanged((operations) => {
        // Ajv came with the first catalog; should this fail anyway, the catalog it had stays.
        void compileCatalog(operations).then(
          (catalog) => {
            if (control === made) made.catalog = catalog
          },
          () => {},
        )
      })
      log?.info('browser server connected', { operations: made.catalog.names.length })
      return made
    } catch (error) {
      markDown(error instanceof Error ? error.message : String(error))
      throw error
    } finally {
      connecting = undefined
    }
  }

  /**
   * The connection, or at once a clear error while it is down and backing off. One exception to
   * the wait: when the last attempt found no usable socket and one is there now (the owner started
   * the server again), the call tries at once; a cheap lstat, not a connection, decides it.
   */
  async function ready() {
    if (control) return control
    if (state.status === 'down' && Date.parse(state.retryAt) > Date.now()) {
      if (socketWasTheProblem && (await checkBrowserSocket(socketPath)).ok) return connect()
      throw new BrowserError(
        'BROWSER_UNAVAILABLE',
        `the browser server is unreachable (${state.reason}); popagent retries by itself at ${state.retryAt}`,
      )
    }
    return connect()
  }

  return {
    socketPath,
    state: (): ConnectionState => state,
    /** The live catalog, connecting first when needed. */
    async catalog(): Promise<BrowserCatalog> {
      return (await ready()).catalog
    },
    /** The catalog as last known, without waiting (the agent editor's view). */
    knownCatalog: (): BrowserCatalog | undefined => control?.catalog,
    /** A fresh MCP session for one browser session; the socket is checked again first. */
    async openSession(): Promise<BrowserLink> {
      await ready()
      const socket = await checkBrowserSocket(socketPath)
      if (!socket.ok) throw new BrowserError('BROWSER_SOCKET_REFUSED', socket.reason)
      const link = await openLink()
      link.onLost((reason) => lost(reason))
      return link
    },
    /** Hears every loss of the connection (browser sessions drop their links). */
    onLost(listener: (reason: string) => void) {
      lostListeners.add(listener)
    },
    /** A call on a session's link failed as a lost connection: the whole server is treated so. */
    reportLost: lost,
    async health(): Promise<BrowserServerHealth> {
      const socket = await checkBrowserSocket(socketPath)
      const made = await ready().catch((error: unknown) => error as Error)
      if (made instanceof Error) {
        return {
          socket: { ok: socket.ok, path: socketPath, ...(!socket.ok && { reason: socket.reason }) },
          mcp: { ok: false, state: state.status, reason: made.message },
          browser: { ok: false, reason: 'no MCP connection to ask' },
        }
      }
      // The browser itself starts lazily on the server: listing tabs is what makes it start.
      const browser = await made.link
        .call('browser_tabs', { action: 'list' }, AbortSignal.timeout(15_000))
        .then(
          (result) =>
            result.isError
              ? { ok: false, reason: firstText(result.content) ?? 'the browser did not start' }
              : { ok: true },
          (error: unknown) => ({
            ok: false,
            reason: error instanceof Error ? error.message : String(error),
          }),
        )
      return {
        socket: { ok: socket.ok, path: socketPath, ...(!socket.ok && { reason: socket.reason }) },
        mcp: {
          ok: true,
          state: state.status,
          serverInfo: made.link.serverInfo ?? null,
          tools: made.catalog.names.length,
        },
        browser,
      }
    },
    async close() {
      closed = true
      if (retryTimer) clearTimeout(retryTimer)
      const old = control
      control = undefined
      await old?.link.close()
    },
  }
}

function now() {
  return new Date().toISOString()
}

function firstText(content: readonly BrowserContentPart[]): string | undefined {
  const part = content.find((p) => p.type === 'text')
  return part?.type === 'text' ? part.text.slice(0, 500) : undefined
}
