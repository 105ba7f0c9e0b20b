/**
 * A turn's stream: starting one (`POST /api/chat`), joining the one running in a session
 * (`GET /api/chat/:id/stream`) and stopping it (`POST /api/sessions/:id/stop`); everything else
 * the chat reads or changes goes through the queries (queries/sessions.ts, models.ts, health.ts,
 * workspaces.ts).
 */
import type { ChatRequest } from '../../../runtime/contracts/chat.ts'
import { api, ApiError, ok } from '../api.ts'

const unreachable = () =>
  new ApiError(0, 'UNREACHABLE', 'popagent is not reachable; is the server running?')

/**
 * Starts a turn. Resolves with the stream's body once the server accepted the turn, or throws an
 * ApiError with the server's message (archived session, a turn already running there, unknown
 * model, host down, unreachable). The turn runs on the server whatever happens to this request:
 * aborting `signal` only stops reading it.
 */
export async function startTurn(request: ChatRequest, signal: AbortSignal) {
  let res: Response
  try {
    res = await api.chat.$post({ json: request }, { init: { signal } })
  } catch (error) {
    if (signal.aborted) throw error
    throw unreachable()
  }
  if (!res.ok || !res.body) {
    await ok(Promise.resolve(res))
    throw new ApiError(res.status, 'NO_STREAM', 'the server answered without a reply stream')
  }
  return res.body
}

/**
 * Joins the turn running in a session, after the chunk numbered `after` (0: from its start).
 * Resolves with the stream's body, or undefined when no turn runs there (204).
 */
export async function joinTurn(sessionId: string, after: number, signal: AbortSignal) {
  let res: Response
  try {
    res = await api.chat[':id'].stream.$get(
      { param: { id: sessionId }, query: after > 0 ? { after: String(after) } : {}, header: {} },
      { init: { signal } },
    )
  } catch (error) {
    if (signal.aborted) throw error
    throw unreachable()
  }
  if (res.status === 204) return undefined
  if (!res.ok || !res.body) {
    await ok(Promise.resolve(res))
    throw new ApiError(res.status, 'NO_STREAM', 'the server answered without a reply stream')
  }
  return res.body
}

/** Stops the session's running turn, whichever client started it. */
export const stopTurn = (sessionId: string) =>
  ok(api.sessions[':id'].stop.$post({ param: { id: sessionId } }))
