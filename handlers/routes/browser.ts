import { Hono } from 'hono'
import { BROWSER_FEATURES } from '../../runtime/browser/policy.ts'
import { listBrowserSessions, setBrowserController } from '../../runtime/browser/sessions.ts'
import { BrowserSessionParams } from '../../runtime/contracts/browser.ts'
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
    notOffered(c, 'screencast', await c.var.host.browserFeatures()),
  )
  .post('/sessions/:id/recording', validate('param', BrowserSessionParams), async (c) =>
    notOffered(c, 'video', await c.var.host.browserFeatures()),
  )

/**
 * 501 for a feature: what the server misses when it misses something, else that popagent has
 * not built it yet (recordings), so the UI greys it out either way and says why.
 */
function notOffered(
  c: { json: (body: unknown, status: 501) => Response },
  feature: keyof typeof BROWSER_FEATURES,
  offered: { connected: boolean; features: Record<string, string[]> | null },
) {
  const missing = offered.features?.[feature] ?? [...BROWSER_FEATURES[feature]]
  const message =
    missing.length > 0
      ? `the browser server lacks ${missing.join(', ')}`
      : `${feature} through popagent is not built yet`
  return c.json(
    { error: { code: 'BROWSER_FEATURE_MISSING', message, data: { feature, missing } } },
    501,
  )
}
