import { createAsync, useCurrentMatches } from '@solidjs/router'
import { createEffect } from 'solid-js'
import { getSession } from './queries/sessions.ts'

/**
 * The tab's title: the page's name from its route's `info.title` (app.tsx), or an open session's
 * own title, so that tabs and history entries can be told apart. The session is the query the
 * chat page reads: the same cached answer, no second request.
 */
export function createPageTitle(signedIn: () => boolean) {
  const matches = useCurrentMatches()
  const route = () => matches().at(-1)
  const sessionId = () => (route()?.route.info?.['session'] ? route()?.params['id'] : undefined)
  const session = createAsync(async () => {
    const id = signedIn() ? sessionId() : undefined
    // A session that is gone is the chat page's to report; the title just stays the page's.
    return id ? getSession(id).catch(() => undefined) : undefined
  })
  createEffect(() => {
    const name = (sessionId() && session()?.title) || route()?.route.info?.['title']
    document.title = name ? `${name} · popagent` : 'popagent'
  })
}
