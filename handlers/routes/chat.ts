import { Hono } from 'hono'
import { ChatRequest } from '../../runtime/contracts/chat.ts'
import {
  ChatStreamHeaders,
  ChatStreamParams,
  ChatStreamQuery,
} from '../../runtime/contracts/live-turns.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

// The stream headers the host sets and the client needs; everything else stays behind.
const PASSED_HEADERS = ['content-type', 'cache-control', 'x-vercel-ai-ui-message-stream']

/** The host's stream answer as the edge's, with its status and the stream headers only. */
function passOn(upstream: Response): Response {
  const headers = new Headers()
  for (const name of PASSED_HEADERS) {
    const value = upstream.headers.get(name)
    if (value) headers.set(name, value)
  }
  return new Response(upstream.body, { status: upstream.status, headers })
}

/**
 * Chat turns on the compute host, their UI-message streams passed back unchanged.
 *
 * `POST /` starts a turn. The turn runs on the host whatever happens to this request: closing
 * the page ends this client's stream, not the run (stopping is `POST /api/sessions/:id/stop`).
 * The client's connection signal still travels with the request, so the host stops sending to a
 * client that went away. Session checks (missing, archived, other workspace, a turn already
 * running: 409 TURN_IN_PROGRESS) and the model check (UNKNOWN_MODEL, against the catalog the host
 * holds) happen at the host, whose JSON errors pass through with their status.
 *
 * `GET /:id/stream` joins the session's running turn, as the AI SDK's `resume` expects: 204 when
 * none runs, else its stream from the start (a replay, beginning with `start`), or after the
 * chunk named by `?after=N` or `Last-Event-ID` (each event's `id:` is its number).
 */
export const chat = new Hono<AppEnv>()
  .post('/', validate('json', ChatRequest), async (c) => {
    const body = c.req.valid('json')
    return passOn(await c.var.host.chat(body, { signal: c.req.raw.signal }))
  })
  .get(
    '/:id/stream',
    validate('param', ChatStreamParams),
    validate('query', ChatStreamQuery),
    validate('header', ChatStreamHeaders),
    async (c) => {
      const sessionId = c.req.valid('param').id
      const after = c.req.valid('query').after ?? c.req.valid('header')['last-event-id'] ?? 0
      const upstream = await c.var.host.chatStream(
        { sessionId, after },
        { signal: c.req.raw.signal },
      )
      if (upstream.status === 204) return c.body(null, 204)
      return passOn(upstream)
    },
  )
