import type { Db } from '../../db/index.ts'
import type { Logger } from '../log.ts'
import type { TaskObserver } from '../tasks/lifecycle.ts'
import { createBrowserServer } from './server-connection.ts'
import { createBrowserSessions } from './sessions.ts'
import { socketLinkOpener } from './mcp-link.ts'
import { browserToolForRun, browserToolStatus } from './tool-binding.ts'
import type { OpenLink } from './types.ts'
import { closeAllBrowserSessions } from '../../runtime/browser/sessions.ts'
import { failAbandonedBrowserRecordings } from '../../runtime/browser/recordings.ts'
import { createBrowserRecordings } from './recordings.ts'
import * as Secrets from '../../runtime/secrets/index.ts'
import type { Vault } from '../secrets/vault.ts'
import type { SecretSource } from './secret-fill.ts'

export type Browser = ReturnType<typeof createBrowser>

export { defaultBrowserSocket } from './socket-path.ts'

/**
 * The browser room (docs/browser.md): the connection to the owner's browser MCP server, the
 * browser sessions, the agents' `browser` tool (a per-run tool provider entry) and the observers
 * that close sessions. Built by the engines; `close` when the host stops.
 */
export function createBrowser(options: {
  db: Db
  socketPath: string
  log: Logger
  /** The owner's consent to point the browser at loopback addresses. */
  allowLoopback: boolean
  /** The connection behind the room; the socket link by default. */
  openLink?: OpenLink
  /**
   * Whether this host is the only one on its database (the embedded one): then every browser
   * session row left open is one a previous run of this process held, and it is closed at start.
   */
  ownsEveryRow?: boolean
  /** The vault, for `useBrowserSecret`; without one (no POPAGENT_SECRET_KEY) there is no fill. */
  vault?: Pick<Vault, 'available' | 'reveal'>
  /**
   * The host's redactor, over every text a browser result brings back: a page shows what was
   * filled into it (an accessibility snapshot includes a password field's value), and a page may
   * show any other secret the host knows.
   */
  redact?: (text: string) => string
  /** Recordings: the server's output directory, where they go, and how long they are kept. */
  recordings?: { serverOutputDir: string; dir: string; retentionDays: number }
}) {
  const server = createBrowserServer({
    socketPath: options.socketPath,
    openLink: options.openLink ?? socketLinkOpener({ socketPath: options.socketPath }),
    log: options.log,
  })
  // A crash leaves rows open whose MCP sessions died with the process (the next call of their
  // chat would replace them anyway; the list should not show them open meanwhile).
  const closingLeftOpen = options.ownsEveryRow
    ? Promise.all([
        closeAllBrowserSessions(options.db, 'popagent restarted'),
        failAbandonedBrowserRecordings(options.db),
      ]).catch(() => 0)
    : Promise.resolve(0)
  const sessions = createBrowserSessions({ db: options.db, server, startup: closingLeftOpen })
  const recordings =
    options.recordings &&
    createBrowserRecordings({
      db: options.db,
      sessions,
      ...options.recordings,
      log: options.log,
    })
  const sweep = recordings?.startSweep()
  const vault = options.vault?.available ? options.vault : undefined
  const secrets: SecretSource | undefined = vault && {
    byName: async (name) => (await Secrets.list(options.db)).find((s) => s.name === name),
    reveal: (id) => vault.reveal(id),
  }
  const deps = {
    server,
    sessions,
    navigation: { allowLoopback: options.allowLoopback },
    redact: options.redact ?? ((text: string) => text),
    ...(secrets && { secrets }),
  }
  /** A task's browser session closes when its attempt stops (a retry opens a fresh one). */
  const taskObserver: TaskObserver = async (event) => {
    if (event.type !== 'TaskStop' && event.type !== 'interrupted') return
    const how = event.type === 'TaskStop' ? event.outcome : 'interrupted'
    await sessions.close({ taskId: event.task.id }, `the task attempt ended (${how})`)
  }
  return {
    server,
    sessions,
    recordings,
    tool: browserToolStatus(deps),
    toolForRun: browserToolForRun(deps),
    taskObserver,
    /** A chat session ended or was archived (SessionEnd). */
    sessionEnded: (sessionId: string, reason: string) =>
      sessions.close({ chatSessionId: sessionId }, `the chat session was ${reason}`),
    async close() {
      sweep?.stop()
      await closingLeftOpen
      await sessions.closeAll('the host stopped')
      await server.close()
    },
  }
}
