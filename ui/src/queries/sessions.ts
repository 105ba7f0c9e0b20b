import { query, revalidate } from '@solidjs/router'
import type {
  PatchSessionInput,
  SaveSessionInput,
  SessionStatus,
} from '../../../runtime/contracts/sessions.ts'
import { api, ok } from '../api.ts'

/** Chat sessions: the sidebar's lists, one session with its messages, and what changes them. */
export const getSessions = query(
  (status: SessionStatus, workspaceId?: string) =>
    ok(api.sessions.$get({ query: { status, ...(workspaceId && { workspaceId }) } })),
  'sessions',
)

/** One session read past the cache (a finished turn asks what was saved). */
export const fetchSession = (id: string) => ok(api.sessions[':id'].$get({ param: { id } }))

export const getSession = query(fetchSession, 'session')

export type SessionView = Awaited<ReturnType<typeof getSession>>
export type SessionSummaryView = Awaited<ReturnType<typeof getSessions>>['sessions'][number]

/**
 * What a change to session `id` makes stale: the session and every list (a list shows titles,
 * counts and archived state). The `sessions` prefix does not match `session/…` keys: a query's
 * key is its name followed by its JSON arguments (`sessions["active"]`, `session["ses_1"]`).
 */
export const staleAfterChange = (id?: string) => [
  getSessions.key,
  ...(id ? [getSession.keyFor(id)] : []),
]

export const refreshSession = (id?: string) => revalidate(staleAfterChange(id))

/**
 * A session just read (a finished turn's saved copy) becomes what every view of it shows, without
 * a second fetch; the lists are read again for its title, count and time.
 */
export async function showSaved(session: SessionView) {
  const key = getSession.keyFor(session.id)
  query.set(key, session)
  await Promise.all([revalidate(key, false), revalidate(getSessions.key)])
}

/** A new session; its first load is answered from the cache, which holds the created one. */
export async function createSession(workspaceId?: string) {
  const created = await ok(api.sessions.$post({ json: workspaceId ? { workspaceId } : {} }))
  query.set(getSession.keyFor(created.id), created)
  await revalidate(getSessions.key)
  return created
}

export async function patchSession(id: string, json: PatchSessionInput) {
  const saved = await ok(api.sessions[':id'].$patch({ param: { id }, json }))
  await refreshSession(id)
  return saved
}

/** Saves messages under the revision the UI saw; a stale one is an ApiError with status 409. */
export async function saveMessages(id: string, json: SaveSessionInput) {
  const saved = await ok(api.sessions[':id'].$put({ param: { id }, json }))
  await refreshSession(id)
  return saved
}

export async function deleteSession(id: string) {
  const done = await ok(api.sessions[':id'].$delete({ param: { id } }))
  await revalidate(getSessions.key)
  return done
}
