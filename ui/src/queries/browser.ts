import { query, revalidate } from '@solidjs/router'
import { api, ApiError, ok } from '../api.ts'

/** Browser automation (issue 37): health, features, sessions, takeover and a session's page. */
export const getBrowserHealth = query(() => ok(api.browser.health.$get()), 'browser-health')
export const getBrowserFeatures = query(() => ok(api.browser.features.$get()), 'browser-features')
export const getBrowserSessions = query(() => ok(api.browser.sessions.$get()), 'browser-sessions')

export async function takeOver(id: string) {
  await ok(api.browser.sessions[':id'].takeover.$post({ param: { id } }))
  await revalidate(getBrowserSessions.key)
}

export async function handBack(id: string) {
  await ok(api.browser.sessions[':id'].handback.$post({ param: { id } }))
  await revalidate(getBrowserSessions.key)
}

/** The session's page now, as a data URL. */
export async function screenshotOf(id: string) {
  const shot = await ok(api.browser.sessions[':id'].screenshot.$get({ param: { id } }))
  return `data:${shot.mimeType};base64,${shot.data}`
}

/** A session's recordings (traces), newest first. */
export const getBrowserRecordings = query(
  (id: string) => ok(api.browser.sessions[':id'].recordings.$get({ param: { id } })),
  'browser-recordings',
)

export async function startRecording(id: string) {
  await ok(api.browser.sessions[':id'].recording.$post({ param: { id } }))
  await revalidate(getBrowserRecordings.keyFor(id))
}

export async function stopRecording(id: string) {
  await ok(api.browser.sessions[':id'].recording.stop.$post({ param: { id } }))
  await revalidate(getBrowserRecordings.keyFor(id))
}

export async function deleteRecording(sessionId: string, id: string) {
  await ok(api.browser.recordings[':id'].$delete({ param: { id } }))
  await revalidate(getBrowserRecordings.keyFor(sessionId))
}

/**
 * Downloads a recording: fetched with the API key like every call (a plain link would go without
 * it), then handed to the browser as the file the server names.
 */
export async function downloadRecording(id: string) {
  const res = await api.browser.recordings[':id'].file.$get({ param: { id } })
  if (!res.ok) throw new ApiError(res.status, 'DOWNLOAD_FAILED', `download failed (${res.status})`)
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1]
  const url = URL.createObjectURL(await res.blob())
  const link = Object.assign(document.createElement('a'), {
    href: url,
    download: name ?? `${id}.zip`,
  })
  // Chromium starts a download only for a link that is in the document.
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export const refreshBrowser = () =>
  revalidate([getBrowserHealth.key, getBrowserFeatures.key, getBrowserSessions.key])
