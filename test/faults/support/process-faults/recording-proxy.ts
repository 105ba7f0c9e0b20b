/**
 * A loopback HTTP proxy in front of the scripted gateway that records when every chat request
 * began and ended, keyed by the task marker in its prompt. The gateway records only arrivals; a
 * duplicate execution shows up as two requests for one marker whose lifetimes overlap, so the
 * end (response finished, or the caller's connection gone when a host is killed) matters too.
 */
import { createServer, request, type IncomingMessage } from 'node:http'
import { closerOf, listenOnLoopback } from '../../../support/loopback-server.ts'

/** One model request as the proxy saw it; `end` is unset while it is still open. */
export type ModelCall = { marker: string; start: number; end?: number }

export type RecordingProxy = {
  /** Base URL including `/v1`, for NINEROUTER_URL. */
  url: string
  calls: ModelCall[]
  close(): Promise<void>
}

/** The marker a test put in a task's prompt, e.g. `[job-0042]`. */
export const MARKER = /\[(job-\d+)\]/

export async function startRecordingProxy(upstreamUrl: string): Promise<RecordingProxy> {
  const upstream = new URL(upstreamUrl)
  const calls: ModelCall[] = []
  const server = createServer(async (req, res) => {
    const body = await readAll(req)
    const marker = req.url?.includes('/chat/completions') && markerOf(body)
    const call: ModelCall | undefined = marker ? { marker, start: Date.now() } : undefined
    if (call) calls.push(call)
    // A killed host drops its socket: the request ends then, whatever the gateway still does.
    res.on('close', () => call && (call.end ??= Date.now()))
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    forward.on('error', () => res.destroy())
    res.on('close', () => forward.destroy())
    forward.end(body)
  })
  const close = closerOf(server)
  const port = await listenOnLoopback(server)
  return { url: `http://127.0.0.1:${port}/v1`, calls, close }
}

/** The marker of the task's own request: its latest user message, not recalled context. */
function markerOf(body: Buffer): string | undefined {
  try {
    const messages: Array<{ role?: string; content?: unknown }> = JSON.parse(
      body.toString(),
    ).messages
    const user = messages.filter((m) => m.role === 'user').at(-1)
    return JSON.stringify(user?.content ?? '').match(MARKER)?.[1]
  } catch {
    return undefined
  }
}

async function readAll(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Pairs of calls for one marker whose lifetimes overlap: one task executing twice at once. */
export function concurrentDuplicates(calls: ModelCall[], now = Date.now()) {
  const byMarker = new Map<string, ModelCall[]>()
  for (const c of calls) byMarker.set(c.marker, [...(byMarker.get(c.marker) ?? []), c])
  const found: Array<[ModelCall, ModelCall]> = []
  for (const list of byMarker.values()) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [a, b] = [list[i]!, list[j]!]
        if (a.start < (b.end ?? now) && b.start < (a.end ?? now)) found.push([a, b])
      }
    }
  }
  return found
}
