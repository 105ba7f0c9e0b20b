import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { retryDelayMs } from '../../runtime/net/retry-after.ts'
import { currentCallScope, runInCallScope, type CallScope } from './call-scope.ts'
import { McpClientError, type McpErrorCode } from './errors.ts'
import { mcpLimits, type McpLimits } from './limits.ts'
import { parseToolResult, type McpToolResult } from './result-parts.ts'
import { loadMcpSdk, loadedMcpSdk, type McpSdk } from './sdk.ts'
import { toToolDescriptors, type McpToolDescriptor } from './tool-list.ts'
import { openTransport, type McpEndpoint } from './transports.ts'

export type McpConnectionStatus = 'idle' | 'connecting' | 'connected' | 'failed' | 'closed'

/** What health and the API show for one server. No header, argument or result ever appears. */
export type McpConnectionState = {
  status: McpConnectionStatus
  /** Tools in the cached list; undefined until a list was read. */
  toolCount: number | undefined
  lastError: { code: McpErrorCode; message: string; at: string } | undefined
  serverInfo: { name: string; version: string } | undefined
  connectedAt: string | undefined
  /** Failed connection attempts since the last success. */
  failures: number
  /** While backing off: the earliest next attempt. */
  retryAt: string | undefined
  /** A stdio server's last stderr lines (bounded); empty for HTTP. */
  stderrTail: string
}

export type McpConnectionOptions = {
  /** For messages and logs: the server's name as its owner gave it. */
  name: string
  endpoint: McpEndpoint
  limits?: Partial<McpLimits>
  /** Told after the tool list was re-read because the server said it changed. */
  onToolsChanged?: (tools: readonly McpToolDescriptor[]) => void
  now?: () => number
}

export type McpCallOptions = {
  /** The run's signal: stopping the run stops the call and tells the server. */
  signal?: AbortSignal
  timeoutMs?: number
}

type Session = {
  /** The SDK, loaded by the first connection (sdk.ts). */
  sdk: McpSdk
  client: Client
  stderrTail: () => string
  /** Set when the transport failed in a way that explains why pending calls were closed. */
  fatal: McpClientError | undefined
  tools: Promise<McpToolDescriptor[]> | undefined
  dropped: boolean
}

const CLIENT_INFO = { name: 'popagent', version: '1' }
const MESSAGE_CHARS = 500

/**
 * One MCP server, connected lazily and kept: the first call connects, concurrent first calls
 * share that one handshake (like runtime/once.ts: kept on success, forgotten on failure), a lost
 * connection is forgotten so the next call reconnects, and failed attempts back off
 * (runtime/net/retry-after.ts) so a server that is down is not hammered. Every call is bounded in size
 * and time, follows the run's signal, and ends in a typed result or a McpClientError.
 */
export class McpConnection {
  readonly name: string
  readonly #endpoint: McpEndpoint
  readonly #limits: McpLimits
  readonly #now: () => number
  readonly #onToolsChanged: ((tools: readonly McpToolDescriptor[]) => void) | undefined
  #pending: Promise<Session> | undefined
  #session: Session | undefined
  #failures = 0
  #retryAt: number | undefined
  #lastError: McpConnectionState['lastError']
  #serverInfo: McpConnectionState['serverInfo']
  #connectedAt: number | undefined
  #toolCount: number | undefined
  #lostSinceConnected = false
  #lastStderr = ''
  #closed = false

  constructor(options: McpConnectionOptions) {
    this.name = options.name
    this.#endpoint = options.endpoint
    this.#limits = mcpLimits(options.limits)
    this.#now = options.now ?? Date.now
    this.#onToolsChanged = options.onToolsChanged
  }

  get limits(): McpLimits {
    return this.#limits
  }

  /** The server's `Mcp-Session-Id` of the live session (Streamable HTTP only), if it gave one. */
  sessionId(): string | undefined {
    const transport = this.#session?.client.transport as { sessionId?: unknown } | undefined
    return typeof transport?.sessionId === 'string' ? transport.sessionId : undefined
  }

  state(): McpConnectionState {
    const status: McpConnectionStatus = this.#closed
      ? 'closed'
      : this.#session
        ? 'connected'
        : this.#pending
          ? 'connecting'
          : this.#failures > 0 || this.#lostSinceConnected
            ? 'failed'
            : 'idle'
    return {
      status,
      toolCount: this.#toolCount,
      lastError: this.#lastError,
      serverInfo: this.#serverInfo,
      connectedAt: this.#connectedAt ? new Date(this.#connectedAt).toISOString() : undefined,
      failures: this.#failures,
      retryAt:
        this.#retryAt !== undefined && this.#retryAt > this.#now()
          ? new Date(this.#retryAt).toISOString()
          : undefined,
      stderrTail: this.#session?.stderrTail() ?? this.#lastStderr,
    }
  }

  /** The server's tools, read once per connection and again when it says they changed. */
  async listTools(options: McpCallOptions = {}): Promise<readonly McpToolDescriptor[]> {
    return this.#withSession(options.signal, (session) => this.#tools(session, options.signal))
  }

  /**
   * Asks the server to answer now (MCP `ping`), connecting if need be: what health uses, since
   * the tool list is cached per connection and says nothing about whether the server is there.
   */
  async ping(options: McpCallOptions = {}): Promise<void> {
    await this.#withSession(options.signal, (session) =>
      this.#request(session, options, (signal) =>
        session.client.ping({ signal, timeout: options.timeoutMs ?? this.#limits.listTimeoutMs }),
      ),
    )
  }

  /** Calls one tool; the result is parsed strictly (result-parts.ts). */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<McpToolResult> {
    const params = { name, arguments: args }
    const size = Buffer.byteLength(
      JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'tools/call', params }),
    )
    if (size > this.#limits.maxRequestBytes) {
      throw new McpClientError(
        'request-too-large',
        `the call to ${name} is ${size} bytes, over the ${this.#limits.maxRequestBytes}-byte bound`,
      )
    }
    const raw = await this.#withSession(options.signal, (session) =>
      this.#request(session, options, (signal) =>
        session.client.request({ method: 'tools/call', params }, session.sdk.ResultSchema, {
          signal,
          timeout: options.timeoutMs ?? this.#limits.callTimeoutMs,
        }),
      ),
    )
    try {
      return parseToolResult(raw)
    } catch (error) {
      // A malformed result says something about the server; a tool's own failure does not.
      if (isMcpErrorCode(error, 'malformed')) this.#record(error as McpClientError)
      throw error
    }
  }

  /** Closes the connection for good (a stdio server is stopped); later calls fail. */
  async close(): Promise<void> {
    this.#closed = true
    const session = this.#session
    this.#pending = undefined
    this.#session = undefined
    if (session) await this.#drop(session)
  }

  /**
   * Runs `work` on a live session. A session the server no longer knows (HTTP 404 after a
   * restart) is replaced once and the work retried: the server never started it. A connection
   * lost under the work is forgotten, so the next call reconnects.
   */
  async #withSession<T>(
    signal: AbortSignal | undefined,
    work: (session: Session) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.#connected(signal)
      try {
        return await work(session)
      } catch (error) {
        if (isMcpErrorCode(error, 'connection-lost')) this.#lose(session, error)
        if (error instanceof SessionGone && attempt === 0) continue
        throw error
      }
    }
  }

  async #connected(signal: AbortSignal | undefined): Promise<Session> {
    if (this.#closed) throw new McpClientError('unavailable', `${this.name} is closed`)
    if (signal?.aborted) throw new McpClientError('aborted', 'the run was stopped')
    if (!this.#pending) {
      if (this.#retryAt !== undefined && this.#now() < this.#retryAt) {
        throw new McpClientError(
          'unavailable',
          `${this.name} is unavailable (${this.#lastError?.message ?? 'connection failed'}); next try at ${new Date(this.#retryAt).toISOString()}`,
          { retryAt: new Date(this.#retryAt) },
        )
      }
      this.#pending = this.#open().then(
        (session) => {
          this.#failures = 0
          this.#retryAt = undefined
          this.#lostSinceConnected = false
          return session
        },
        (error: unknown) => {
          this.#pending = undefined
          this.#failures += 1
          this.#retryAt =
            this.#now() + retryDelayMs(this.#failures, undefined, this.#limits.reconnect)
          const failure = connectFailure(error)
          this.#record(failure)
          throw failure
        },
      )
    }
    return abortable(this.#pending, signal)
  }

  async #open(): Promise<Session> {
    const sdk = await loadMcpSdk()
    const opened = openTransport(sdk, this.#endpoint, this.#limits)
    const client = new sdk.Client(CLIENT_INFO, { capabilities: {} })
    const session: Session = {
      sdk,
      client,
      stderrTail: opened.stderrTail,
      fatal: undefined,
      tools: undefined,
      dropped: false,
    }
    client.onerror = (error) => this.#transportError(session, error)
    client.onclose = () => this.#lose(session, undefined)
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      this.#toolsChanged(session)
    })
    try {
      await client.connect(opened.transport, { timeout: this.#limits.connectTimeoutMs })
    } catch (error) {
      this.#lastStderr = opened.stderrTail()
      await this.#drop(session)
      throw session.fatal ?? error
    }
    const info = client.getServerVersion()
    this.#serverInfo = info ? { name: info.name, version: info.version } : undefined
    this.#connectedAt = this.#now()
    this.#session = session
    return session
  }

  #tools(session: Session, signal: AbortSignal | undefined): Promise<McpToolDescriptor[]> {
    session.tools ??= this.#readTools(session, signal).catch((error: unknown) => {
      session.tools = undefined
      throw error
    })
    return abortable(session.tools, signal)
  }

  async #readTools(
    session: Session,
    signal: AbortSignal | undefined,
  ): Promise<McpToolDescriptor[]> {
    const all = []
    let cursor: string | undefined
    // The page count is bounded too: a server that hands out cursors forever is not followed.
    for (let page = 0; page < 64; page++) {
      const result = await this.#request(session, { signal }, (scopeSignal) =>
        session.client.listTools(cursor ? { cursor } : undefined, {
          signal: scopeSignal,
          timeout: this.#limits.listTimeoutMs,
        }),
      )
      all.push(...result.tools)
      if (all.length > this.#limits.maxTools) break
      cursor = result.nextCursor
      if (!cursor) break
    }
    const tools = toToolDescriptors(all, this.#limits.maxTools)
    if (this.#session === session) this.#toolCount = tools.length
    return tools
  }

  #toolsChanged(session: Session): void {
    if (session.dropped) return
    session.tools = undefined
    this.#tools(session, undefined).then(
      (tools) => this.#onToolsChanged?.(tools),
      (error: unknown) => this.#record(classify(error, undefined, session)),
    )
  }

  /**
   * One JSON-RPC request inside its call scope (call-scope.ts), its failure made typed. The scope
   * lets the transport fail exactly this request when its answer breaks a bound or its stream
   * is cut.
   */
  async #request<T>(
    session: Session,
    options: McpCallOptions,
    send: (signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const stop = new AbortController()
    let failure: McpClientError | undefined
    let settled = false
    const signal = options.signal ? AbortSignal.any([stop.signal, options.signal]) : stop.signal
    const scope: CallScope = {
      signal,
      get settled() {
        return settled
      },
      fail(error) {
        if (settled || failure) return
        failure = error
        stop.abort(error)
      },
    }
    try {
      return await runInCallScope(scope, () => send(signal))
    } catch (error) {
      const typed = failure ?? classify(error, options.signal, session)
      if (!options.signal?.aborted && typed.code !== 'tool-error') this.#record(typed)
      // The request is over: its POST stream, if still open, closes with it.
      if (!stop.signal.aborted) stop.abort(typed)
      throw typed
    } finally {
      settled = true
    }
  }

  #transportError(session: Session, error: Error): void {
    const message = error.message
    if (/ReadBuffer exceeded maximum size/.test(message)) {
      session.fatal = new McpClientError(
        'response-too-large',
        `a message from the server passed the ${this.#limits.maxResponseBytes}-byte bound and was dropped`,
      )
      return
    }
    // A message the SDK could not use, parsed while a call waits: that call gets the typed
    // error now rather than a timeout later. The SDK's message may quote the server's bytes, so
    // only our own words go into ours.
    const scope = currentCallScope()
    if (!scope) return
    if (/unknown message ID/.test(message)) {
      scope.fail(new McpClientError('malformed', 'the server answered a request it was not sent'))
    } else if (error instanceof SyntaxError || hasIssues(error)) {
      scope.fail(new McpClientError('malformed', 'the server sent a message that is not JSON-RPC'))
    }
  }

  /** Forgets a session that stopped working, so the next call reconnects. */
  #lose(session: Session, cause: unknown): void {
    if (session.dropped) return
    if (this.#session === session) {
      this.#session = undefined
      this.#pending = undefined
      this.#toolCount = undefined
      this.#lostSinceConnected = true
      this.#lastStderr = session.stderrTail()
      if (cause === undefined && !this.#closed) {
        this.#record(
          session.fatal ??
            new McpClientError('connection-lost', `${this.name} closed the connection`),
        )
      }
    }
    void this.#drop(session)
  }

  async #drop(session: Session): Promise<void> {
    if (session.dropped) return
    session.dropped = true
    await session.client.close().catch(() => {})
  }

  #record(error: McpClientError): void {
    this.#lastError = {
      code: error.code,
      message: error.message.slice(0, MESSAGE_CHARS),
      at: new Date(this.#now()).toISOString(),
    }
  }
}

function isMcpErrorCode(error: unknown, code: McpErrorCode): boolean {
  return error instanceof McpClientError && error.code === code
}

function hasIssues(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    Array.isArray((error as { issues?: unknown }).issues)
  )
}

/** Makes any failure of a request typed; the message never carries the server's payload. */
function classify(
  error: unknown,
  runSignal: AbortSignal | undefined,
  session: Session,
): McpClientError {
  if (error instanceof McpClientError) return error
  if (runSignal?.aborted)
    return new McpClientError('aborted', 'the run was stopped', { cause: error })
  const { McpError, ErrorCode, StreamableHTTPError } = session.sdk
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return new McpClientError(
        'timeout',
        'the server did not answer in time; the call was cancelled',
      )
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      return (
        session.fatal ??
        new McpClientError('connection-lost', 'the server went away during the call', {
          cause: error,
        })
      )
    }
    return new McpClientError(
      'protocol',
      `the server refused: ${error.message.slice(0, MESSAGE_CHARS)}`,
    )
  }
  if (error instanceof StreamableHTTPError) return httpFailure(error)
  if (error instanceof SyntaxError || hasIssues(error)) {
    return new McpClientError('malformed', 'the server answered something that is not MCP', {
      cause: error,
    })
  }
  return new McpClientError('connection-lost', `the connection failed: ${describe(error)}`, {
    cause: error,
  })
}

function connectFailure(error: unknown): McpClientError {
  if (error instanceof McpClientError) {
    return error.code === 'unauthorized' || error.code === 'unavailable'
      ? error
      : new McpClientError('unavailable', `connecting failed: ${error.message}`, { cause: error })
  }
  // Not loaded (its import failed): then the error is not one of the SDK's.
  const sdk = loadedMcpSdk()
  if (sdk && error instanceof sdk.StreamableHTTPError) {
    const failure = httpFailure(error)
    if (failure.code === 'unauthorized') return failure
  }
  if (sdk && error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout) {
    return new McpClientError('unavailable', 'connecting failed: the handshake timed out')
  }
  return new McpClientError('unavailable', `connecting failed: ${describe(error)}`, {
    cause: error,
  })
}

/** HTTP 404 on a session: the server restarted or expired it, before it read the request. */
class SessionGone extends McpClientError {
  constructor() {
    super('connection-lost', 'the server no longer knows this session (HTTP 404)')
  }
}

function httpFailure(error: StreamableHTTPError): McpClientError {
  const status = error.code ?? 0
  if (status === 404) return new SessionGone()
  if (status === 401 || status === 403) {
    return new McpClientError('unauthorized', `the server refused our credentials (HTTP ${status})`)
  }
  if (status === 429 || status >= 500) {
    return new McpClientError('unavailable', `the server is unavailable (HTTP ${status})`)
  }
  return new McpClientError('protocol', `the server answered HTTP ${status}`)
}

/** A short reason from an error of the network or the process, not from the server's body. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error'
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined
  const code = (error as { code?: unknown }).code ?? cause?.code
  const text = typeof code === 'string' ? `${code}: ${error.message}` : error.message
  return text.slice(0, MESSAGE_CHARS)
}

/** A shared promise a single caller may stop waiting for without cancelling it for others. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(new McpClientError('aborted', 'the run was stopped'))
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new McpClientError('aborted', 'the run was stopped'))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
