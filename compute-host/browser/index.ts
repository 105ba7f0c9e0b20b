import type { Db } from '../../db/index.ts'
import type { Logger } from '../log.ts'
import type { TaskObserver } from '../tasks/lifecycle.ts'
import { createBrowserServer } from './server-connection.ts'
import { createBrowserSessions } from './sessions.ts'
import { socketLinkOpener } from './mcp-link.ts'
import { browserToolForRun, browserToolStatus } from './tool-binding.ts'
import type { OpenLink } from './types.ts'

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
}) {
  const server = createBrowserServer({
    socketPath: options.socketPath,
    openLink: options.openLink ?? socketLinkOpener({ socketPath: options.socketPath }),
    log: options.log,
  })
  const sessions = createBrowserSessions({ db: options.db, server })
  const deps = { server, sessions, navigation: { allowLoopback: options.allowLoopback } }
  /** A task's browser session closes when its attempt stops (a retry opens a fresh one). */
  const taskObserver: TaskObserver = async (event) => {
    if (event.type !== 'TaskStop' && event.type !== 'interrupted') return
    const how = event.type === 'TaskStop' ? event.outcome : 'interrupted'
    await sessions.close({ taskId: event.task.id }, `the task attempt ended (${how})`)
  }
  return {
    server,
    sessions,
    tool: browserToolStatus(deps),
    toolForRun: browserToolForRun(deps),
    taskObserver,
    /** A chat session ended or was archived (SessionEnd). */
    sessionEnded: (sessionId: string, reason: string) =>
      sessions.close({ chatSessionId: sessionId }, `the chat session was ${reason}`),
    async close() {
      await sessions.closeAll('the host stopped')
      await server.close()
    },
  }
}
