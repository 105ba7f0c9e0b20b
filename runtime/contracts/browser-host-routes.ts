import type { HostRoute } from './host-api.ts'
import {
  BrowserFeatures,
  BrowserHealth,
  BrowserRecording,
  BrowserRecordingDeleted,
  BrowserRecordingParams,
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
  /** Starts a trace recording in a live browser session (the edge checks the server has it). */
  browserRecordingStart: {
    method: 'POST',
    path: '/internal/browser/recording/start',
    input: BrowserSessionParams,
    output: BrowserRecording,
    timeoutMs: 45_000,
    does: 'start the recording',
  },
  /** Stops the session's recording and stores the file under the data directory. */
  browserRecordingStop: {
    method: 'POST',
    path: '/internal/browser/recording/stop',
    input: BrowserSessionParams,
    output: BrowserRecording,
    timeoutMs: 120_000,
    does: 'stop the recording',
  },
  /** The recording's file, as it comes (a zip, up to 200 MiB). */
  browserRecordingFile: {
    method: 'POST',
    path: '/internal/browser/recording/file',
    input: BrowserRecordingParams,
    stream: true,
    does: "read the recording's file",
  },
  /** Deletes a stopped recording's file and row. */
  browserRecordingDelete: {
    method: 'POST',
    path: '/internal/browser/recording/delete',
    input: BrowserRecordingParams,
    output: BrowserRecordingDeleted,
    timeoutMs: 30_000,
    does: 'delete the recording',
  },
} as const satisfies Record<string, HostRoute>
