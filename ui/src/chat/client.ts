/**
 * The chat page's calls, each a thin wrapper on the one typed client (`api`, `ok`): sessions,
 * workspaces, the model catalog, and a turn's stream.
 */
import type { ChatRequest } from '../../../runtime/contracts/chat.ts'
import type { HealthBody } from '../../../runtime/contracts/health.ts'
import type {
  PatchSessionInput,
  SaveSessionInput,
  SessionStatus,
} from '../../../runtime/contracts/sessions.ts'
import { api, ApiError, ok } from '../api.ts'

export const listSessions = (status: SessionStatus, workspaceId?: string) =>
  ok(api.sessions.$get({ query: { status, ...(workspaceId && { workspaceId }) } }))

export const getSession = (id: string) => ok(api.sessions[':id'].$get({ param: { id } }))

export const createSession = (workspaceId?: string) =>
  ok(api.sessions.$post({ json: workspaceId ? { workspaceId } : {} }))

export const patchSession = (id: string, json: PatchSessionInput) =>
  ok(api.sessions[':id'].$patch({ param: { id }, json }))

/** Saves messages under the revision the UI saw; a stale one is an ApiError with status 409. */
export const saveMessages = (id: string, json: SaveSessionInput) =>
  ok(api.sessions[':id'].$put({ param: { id }, json }))

export const deleteSession = (id: string) => ok(api.sessions[':id'].$delete({ param: { id } }))

export const listWorkspaces = () => ok(api.workspaces.$get())

export const getModels = () => ok(api.models.$get())

/**
 * The server's health report. A 503 (a database not answering) still carries the report, which
 * is what the chat's first-run check reads (compute host and gateway), so it is returned too.
 */
export async function getHealth(): Promise<HealthBody> {
  let res: Response
  try {
    res = await api.health.$get()
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'popagent is not reachable; is the server running?')
  }
  if (res.status !== 200 && res.status !== 503) await ok(Promise.resolve(res))
  return (await res.json()) as HealthBody
}

export type SessionView = Awaited<ReturnType<typeof getSession>>
export type SessionSummaryView = Awaited<ReturnType<typeof listSessions>>['sessions'][number]
export type ModelsView = Awaited<ReturnType<typeof getModels>>

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
