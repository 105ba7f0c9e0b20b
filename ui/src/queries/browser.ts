import { query, revalidate } from '@solidjs/router'
import { api, ok } from '../api.ts'

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

export const refreshBrowser = () =>
  revalidate([getBrowserHealth.key, getBrowserFeatures.key, getBrowserSessions.key])
