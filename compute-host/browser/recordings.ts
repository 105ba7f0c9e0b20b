import { lstat, mkdir, open, rm } from 'node:fs/promises'
import { constants } from 'node:fs'
import { join } from 'node:path'
import type { Db } from '../../db/index.ts'
import {
  activeBrowserRecording,
  deleteBrowserRecording,
  failAbandonedBrowserRecordings,
  finishBrowserRecording,
  getBrowserRecording,
  startBrowserRecording,
  type BrowserRecordingView,
} from '../../runtime/browser/recordings.ts'
import { AppError } from '../../runtime/errors.ts'
import type { Logger } from '../log.ts'
import { sweepBrowserRecordings } from './recording-retention.ts'
import type { BrowserSessions } from './sessions.ts'
import { isTraceName, packTrace } from './trace-pack.ts'
import type { BrowserCallResult, BrowserLink } from './types.ts'

/** A packed trace larger than this is refused (and the recording marked failed). */
export const MAX_RECORDING_BYTES = 200 * 1024 * 1024
const HOUR_MS = 3_600_000
const MCP_SESSION = /^[A-Za-z0-9-]{8,100}$/

export const BrowserRecordingRefused = AppError.define(
  'BROWSER_RECORDING_REFUSED',
  409,
  'this browser session cannot be recorded',
)
export const BrowserRecordingNotRecording = AppError.define(
  'BROWSER_RECORDING_NOT_RECORDING',
  409,
  'this browser session is not recording',
)
// 409, not 502: the edge passes a 4xx on with its reason (a 5xx would read "host unavailable").
export const BrowserRecordingFailed = AppError.define(
  'BROWSER_RECORDING_FAILED',
  409,
  'the browser server could not record',
)
export const BrowserRecordingFileMissing = AppError.define(
  'BROWSER_RECORDING_FILE_MISSING',
  404,
  'that recording has no file',
)
export const BrowserSessionNotLiveHere = AppError.define(
  'BROWSER_SESSION_NOT_LIVE',
  404,
  'that browser session is not open on this host',
)

export type BrowserRecordings = ReturnType<typeof createBrowserRecordings>

const textOf = (result: BrowserCallResult) =>
  result.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')

/** The trace's name from the server's answer: the `.trace` link it gives (its folder is ours). */
function traceNameIn(result: BrowserCallResult): string | undefined {
  for (const match of textOf(result).matchAll(/\]\(([^)\s]+)\.trace\)/g)) {
    const name = match[1]!.split('/').at(-1)!
    if (isTraceName(name)) return name
  }
  return undefined
}

/**
 * Recordings of browser sessions (docs/browser.md, "Recordings"): a Playwright trace the owner
 * starts and stops per session through the server's `browser_start_tracing` and
 * `browser_stop_tracing`, packed into one zip under POPAGENT_DATA_DIR/browser-recordings
 * (folder 0700, files 0600, at most 200 MiB) and listed in `popagent_browser_recordings`.
 *
 * Where the trace is read from: the reference server (`popagent browser-server --recordings`)
 * gives each MCP session its own folder `<output dir>/<Mcp-Session-Id>`, so a trace is found at
 * `<output dir>/<session>/traces/<name>.trace` and no session's trace can name another's files.
 * The output directory must be ours alone (a directory, our uid, mode 0700).
 *
 * A trace keeps the pages' DOM, typed values included, so a recording stops before a vault
 * secret is typed in its session (the sessions' `beforeSecretFill` hook) and none starts there
 * afterwards. A session that closes stops its recording first and keeps it; one whose MCP session
 * was lost fails it (the server's trace is gone). Rows and files past the retention are deleted
 * at start and hourly; files whose row is gone (a deleted chat) go with them.
 */
export function createBrowserRecordings(options: {
  db: Db
  sessions: BrowserSessions
  /** The browser server's output directory. */
  serverOutputDir: string
  /** POPAGENT_DATA_DIR/browser-recordings. */
  dir: string
  retentionDays: number
  log: Pick<Logger, 'warn' | 'info'>
  maxBytes?: number
}) {
  const { db, sessions, log } = options
  const maxBytes = options.maxBytes ?? MAX_RECORDING_BYTES
  const fileOf = (id: string) => join(options.dir, `${id}.zip`)

  async function ownDirectory() {
    await mkdir(options.dir, { recursive: true, mode: 0o700 })
    const stat = await lstat(options.dir)
    if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0) {
      throw new Error(`${options.dir} must be a directory owned by this user with mode 0700`)
    }
  }

  async function traceDirOf(link: BrowserLink) {
    const out = await lstat(options.serverOutputDir).catch(() => undefined)
    if (!out?.isDirectory() || out.uid !== process.getuid?.() || (out.mode & 0o077) !== 0) {
      throw new Error(
        `the browser server's output directory ${options.serverOutputDir} must be a directory owned by this user with mode 0700`,
      )
    }
    const session = link.mcpSessionId
    if (!session || !MCP_SESSION.test(session)) throw new Error('the MCP session has no usable id')
    return join(options.serverOutputDir, session, 'traces')
  }

  /** Stops the server's trace and keeps it; the row says how it ended. Runs in the queue. */
  async function stopIn(id: string, link: BrowserLink, reason: string) {
    const active = await activeBrowserRecording(db, id)
    if (!active) return undefined
    try {
      const result = await link.call('browser_stop_tracing', {}, AbortSignal.timeout(30_000))
      const name = result.isError ? undefined : traceNameIn(result)
      if (!name) throw new Error(`the server did not stop a trace: ${textOf(result).slice(0, 300)}`)
      await ownDirectory()
      const packed = await packTrace({
        traceDir: await traceDirOf(link),
        name,
        target: fileOf(active.id),
        maxBytes,
      })
      return await finishBrowserRecording(db, active.id, { state: 'ready', ...packed, reason })
    } catch (error) {
      const message = (error as Error).message
      log.warn('browser recording failed', { recording: active.id, error: message })
      await finishBrowserRecording(db, active.id, { state: 'failed', error: message, reason })
      throw new BrowserRecordingFailed({ id: active.id }, { message })
    }
  }

  sessions.setRecordingHooks({
    beforeSecretFill: async (id, link) => {
      await stopIn(id, link, 'stopped before a vault secret was typed')
    },
    beforeClose: async (id, link) => {
      await stopIn(id, link, 'the browser session closed')
    },
    dropped: (id) => {
      const why = 'the browser session ended without a stop (its server or host went away)'
      void failAbandonedBrowserRecordings(db, [id], why).catch(() => {})
    },
  })

  const sweep = () =>
    sweepBrowserRecordings({ db, dir: options.dir, retentionDays: options.retentionDays })

  return {
    /** Starts a trace in a live session: refused after a secret fill there, or while recording. */
    async start(id: string): Promise<BrowserRecordingView> {
      const done = await sessions.onSession(id, async (link, state) => {
        if (state.secretFilled) {
          throw new BrowserRecordingRefused(
            { id },
            {
              message:
                'a vault secret was typed in this browser session; a trace would keep it, so it is not recorded',
            },
          )
        }
        const row = await startBrowserRecording(db, id)
        const result = await link
          .call('browser_start_tracing', {}, AbortSignal.timeout(30_000))
          .catch((error: unknown) => ({
            isError: true,
            content: [{ type: 'text' as const, text: (error as Error).message }],
          }))
        if (result.isError) {
          const message = textOf(result).slice(0, 500)
          await finishBrowserRecording(db, row.id, {
            state: 'failed',
            error: message,
            reason: 'the server did not start it',
          })
          throw new BrowserRecordingFailed({ id }, { message })
        }
        return row
      })
      if (!done) throw new BrowserSessionNotLiveHere({ id })
      return done.value
    },
    /** Stops the session's trace and stores it. */
    async stop(id: string): Promise<BrowserRecordingView> {
      const done = await sessions.onSession(id, (link) => stopIn(id, link, 'the owner stopped it'))
      if (!done) throw new BrowserSessionNotLiveHere({ id })
      if (!done.value) throw new BrowserRecordingNotRecording({ id })
      return done.value
    },
    /** The packed file, opened without following links; the caller streams and closes it. */
    async file(id: string) {
      const row = await getBrowserRecording(db, id)
      if (row.state !== 'ready') throw new BrowserRecordingFileMissing({ id })
      const handle = await open(fileOf(id), constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => {
        throw new BrowserRecordingFileMissing({ id })
      })
      const stat = await handle.stat()
      if (!stat.isFile() || stat.size > maxBytes) {
        await handle.close()
        throw new BrowserRecordingFileMissing({ id })
      }
      return { row, handle, size: stat.size }
    },
    /** Deletes the file, then the row (a recording in progress is stopped first, not deleted). */
    async delete(id: string) {
      const row = await getBrowserRecording(db, id)
      if (row.state === 'recording') {
        throw new BrowserRecordingRefused({ id }, { message: 'stop the recording first' })
      }
      await rm(fileOf(id), { force: true })
      await deleteBrowserRecording(db, id)
      return { deleted: true as const }
    },
    /** Retention; also run at start and hourly by `startSweep`. */
    sweep,
    startSweep() {
      const run = () =>
        sweep().then(
          (n) => n && log.info('browser recordings past retention deleted', { deleted: n }),
          (error: unknown) =>
            log.warn('browser recording retention failed', { error: (error as Error).message }),
        )
      void run()
      const timer = setInterval(() => void run(), HOUR_MS)
      timer.unref()
      return { stop: () => clearInterval(timer) }
    },
  }
}
