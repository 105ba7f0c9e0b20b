/**
 * A loopback TCP proxy in front of PostgreSQL that can lose the reply to a commit. It reads the
 * frontend protocol far enough to see each statement a client sends (the text of a Parse or of a
 * simple Query). Once armed, the next statement that `matches` is let through to the server, its
 * whole reply up to ReadyForQuery is received (so the server has committed it: an autocommit
 * extended-protocol statement commits at its Sync, a simple `commit` before its reply) and
 * dropped, and both sides of that connection are cut. The client sees a connection error for a
 * write that is in fact committed.
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
import { listenOnLoopback } from './loopback-server.ts'

export type CutProxy = {
  url: string
  /** Cuts the next matching statement's connection; resolves once it is cut. */
  armCut(): Promise<void>
  /** Statements cut so far (each one committed on the server, its reply lost). */
  readonly cuts: number
  close(): Promise<void>
}

/** Splits a protocol stream into messages: a type byte and an int32 length (self-inclusive). */
function messageReader(startup: boolean, onMessage: (type: number, body: Buffer) => void) {
  let pending: Buffer = Buffer.alloc(0)
  let awaitingStartup = startup
  return (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
    for (;;) {
      // The startup message (and an SSL or GSS request before it) has no type byte.
      const header = awaitingStartup ? 4 : 5
      if (pending.length < header) return
      const length = pending.readInt32BE(header - 4)
      const total = header - 4 + length
      if (pending.length < total) return
      const body = pending.subarray(header, total)
      const type = awaitingStartup ? 0 : pending[0]!
      // An SSL/GSS request (code 80877103/80877104) is answered with one byte; none is sent
      // here (loopback without TLS), so the next untyped message is the startup itself.
      if (awaitingStartup && body.readInt32BE(0) !== 80877103) awaitingStartup = false
      onMessage(type, body)
      pending = pending.subarray(total)
    }
  }
}

const P = 'P'.charCodeAt(0)
const Q = 'Q'.charCodeAt(0)
const S = 'S'.charCodeAt(0)
const Z = 'Z'.charCodeAt(0)

/** The SQL text of a Parse (after the statement name) or of a simple Query. */
function statementText(type: number, body: Buffer): string | undefined {
  if (type === Q) return body.toString('utf8', 0, body.indexOf(0))
  if (type === P) {
    const nameEnd = body.indexOf(0)
    return body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1))
  }
  return undefined
}

export async function startCutProxy(
  serverUrl: string,
  matches: (sql: string) => boolean,
): Promise<CutProxy> {
  const target = new URL(serverUrl)
  const sockets = new Set<Socket>()
  let armed: (() => void) | undefined
  let cuts = 0

  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    sockets.add(client).add(upstream)
    // Set when a matching statement is on its way: its commit point is the next Sync (extended
    // protocol) or the Query itself (simple protocol).
    let candidate = false
    let cutDone: (() => void) | undefined
    const cut = () => {
      client.destroy()
      upstream.destroy()
      cuts++
      cutDone?.()
    }
    const fromClient = messageReader(true, (type, body) => {
      const text = statementText(type, body)
      if (text !== undefined && armed && matches(text)) {
        candidate = true
      }
      if (candidate && armed && (type === S || type === Q)) {
        // From here on the server's reply is swallowed, and the connection cut once it is whole.
        cutDone = armed
        armed = undefined
        candidate = false
      } else if (type === S || type === Q) {
        candidate = false
      }
    })
    const fromServer = messageReader(false, (type) => {
      if (cutDone && type === Z) cut()
    })
    client.on('data', (chunk: Buffer) => {
      // Parse first, so a cut decided by this chunk is in place before its reply can return.
      fromClient(chunk)
      upstream.write(chunk)
    })
    upstream.on('data', (chunk: Buffer) => {
      const swallowing = cutDone !== undefined
      fromServer(chunk)
      if (!swallowing) client.write(chunk)
    })
    const end = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    for (const socket of [client, upstream]) {
      socket.on('error', end)
      socket.on('close', end)
    }
  })
  const port = await listenOnLoopback(server)
  const url = new URL(serverUrl)
  url.hostname = '127.0.0.1'
  url.port = String(port)

  return {
    url: url.toString(),
    armCut: () => new Promise<void>((resolve) => (armed = resolve)),
    get cuts() {
      return cuts
    },
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
