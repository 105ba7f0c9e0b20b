/**
 * A turn's stream (`POST /api/chat`); everything else the chat reads or changes goes through the
 * queries (queries/sessions.ts, models.ts, health.ts, workspaces.ts).
 */
import type { ChatRequest } from '../../../runtime/contracts/chat.ts'
import { api, ApiError, ok } from '../api.ts'

/**
 * Starts a turn. Resolves with the stream's body once the server accepted the turn, or throws an
 * ApiError with the server's message (archived session, unknown model, host down, unreachable).
 * Aborting `signal` closes the connection, which stops the run at the host and the gateway.
 */
export async function startTurn(request: ChatRequest, signal: AbortSignal) {
  let res: Response
  try {
    res = await api.chat.$post({ json: request }, { init: { signal } })
  } catch (error) {
    if (signal.aborted) throw error
    throw new ApiError(0, 'UNREACHABLE', 'popagent is not reachable; is the server running?')
  }
  if (!res.ok || !res.body) {
    await ok(Promise.resolve(res))
    throw new ApiError(res.status, 'NO_STREAM', 'the server answered without a reply stream')
  }
  return res.body
}
