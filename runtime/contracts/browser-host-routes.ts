import type { HostRoute } from './host-api.ts'
import {
  BrowserFeatures,
  BrowserHealth,
  BrowserScreenshot,
  BrowserSessionParams,
} from './browser.ts'

/**
 * The host endpoints behind /api/browser: the connection to the browser server is the host's, so
 * the edge asks it. Spread into `hostRoutes` (host-api.ts).
 */
export const browserHostRoutes = {
  /** Socket, MCP and browser health apart; asking starts the browser when it is not running. */
  browserHealth: {
    method: 'GET',
    path: '/internal/browser/health',
    output: BrowserHealth,
    timeoutMs: 30_000,
    does: 'check the browser server',
  },
  /** What the connected server offers of each feature (from its catalog; starts no browser). */
  browserFeatures: {
    method: 'GET',
    path: '/internal/browser/features',
    output: BrowserFeatures,
    timeoutMs: 15_000,
    does: "read the browser server's features",
  },
  /** The page of a live browser session, for the owner (the Browser page, a takeover). */
  browserScreenshot: {
    method: 'POST',
    path: '/internal/browser/screenshot',
    input: BrowserSessionParams,
    output: BrowserScreenshot,
    timeoutMs: 30_000,
    does: "take the browser session's screenshot",
  },
} as const satisfies Record<string, HostRoute>
