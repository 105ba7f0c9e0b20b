import { Hono } from 'hono'
import { BROWSER_FEATURES } from '../../runtime/browser/policy.ts'
import { listBrowserRecordings } from '../../runtime/browser/recordings.ts'
import { listBrowserSessions, setBrowserController } from '../../runtime/browser/sessions.ts'
import { BrowserRecordingParams, BrowserSessionParams } from '../../runtime/contracts/browser.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * Browser automation (X5, docs/browser.md): health of the socket, the MCP server and the browser
 * apart; the browser sessions; takeover and hand-back (the owner drives, agents' interactive
 * calls are refused meanwhile); the page of a session. Behind the API key like all of /api: the
 * owner's. A feature the connected server lacks answers 501 naming the operations it misses.
 */
export const browser = new Hono<AppEnv>()
  .get('/health', async (c) => c.json(await c.var.host.browserHealth(), 200))
  .get('/features', async (c) => c.json(await c.var.host.browserFeatures(), 200))
  .get('/sessions', async (c) => c.json({ sessions: await listBrowserSessions(c.var.db) }, 200))
  .post('/sessions/:id/takeover', validate('param', BrowserSessionParams), async (c) =>
    c.json(await setBrowserController(c.var.db, c.req.valid('param').id, 'human'), 200),
  )
  .post('/sessions/:id/handback', validate('param', BrowserSessionParams), async (c) =>
    c.json(await setBrowserController(c.var.db, c.req.valid('param').id, 'agent'), 200),
  )
  .get('/sessions/:id/screenshot', validate('param', BrowserSessionParams), async (c) =>
    c.json(await c.var.host.browserScreenshot({ id: c.req.valid('param').id }), 200),
  )
  .get('/sessions/:id/screencast', validate('param', BrowserSessionParams), async (c) =>
    c.json(notOffered('screencast', await c.var.host.browserFeatures()), 501),
  )
  .get('/sessions/:id/recordings', validate('param', BrowserSessionParams), async (c) =>
    c.json({ recordings: await listBrowserRecordings(c.var.db, c.req.valid('param').id) }, 200),
  )
  // Recordings are Playwright traces: offered when the server lists the tracing operations.
  .post('/sessions/:id/recording', validate('param', BrowserSessionParams), async (c) => {
    const offered = await c.var.host.browserFeatures()
    if (offered.features?.tracing?.length !== 0) return c.json(notOffered('tracing', offered), 501)
    return c.json(await c.var.host.browserRecordingStart({ id: c.req.valid('param').id }), 201)
  })
  .post('/sessions/:id/recording/stop', validate('param', BrowserSessionParams), async (c) =>
    c.json(await c.var.host.browserRecordingStop({ id: c.req.valid('param').id }), 200),
  )
  .get('/recordings/:id/file', validate('param', BrowserRecordingParams), async (c) => {
    const { id } = c.req.valid('param')
    const file = await c.var.host.browserRecordingFile({ id }, { signal: c.req.raw.signal })
    const headers = new Headers({
      'content-type': 'application/zip',
      'content-disposition': `attachment; filename="popagent-trace-${id}.zip"`,
    })
    const length = file.headers.get('content-length')
    if (length) headers.set('content-length', length)
    return new Response(file.body, { status: 200, headers })
  })
  .delete('/recordings/:id', validate('param', BrowserRecordingParams), async (c) =>
    c.json(await c.var.host.browserRecordingDelete({ id: c.req.valid('param').id }), 200),
  )

/**
 * 501 for a feature: what the server misses (or, not connected, every operation it needs), so
 * the UI greys it out and says why.
 */
function notOffered(
  feature: keyof typeof BROWSER_FEATURES,
  offered: { connected: boolean; features: Record<string, string[]> | null },
) {
  const missing = offered.features?.[feature] ?? [...BROWSER_FEATURES[feature]]
  const message = offered.connected
    ? `the browser server lacks ${missing.join(', ')}`
    : `no browser server is connected; ${feature} needs ${missing.join(', ')}`
  return { error: { code: 'BROWSER_FEATURE_MISSING', message, data: { feature, missing } } }
}
