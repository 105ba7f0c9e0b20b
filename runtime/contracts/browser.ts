import { z } from 'zod'
import { idSchema } from '../ids.ts'

/** Wire shapes of /api/browser (docs/browser.md) and of the host routes behind it. */

export const BrowserSessionId = idSchema('browserSession')
export const BrowserSessionParams = z.strictObject({ id: BrowserSessionId })

const ConnectionStatus = z.enum(['connected', 'connecting', 'down'])
const ServerInfo = z.object({ name: z.string(), version: z.string() })

/** The three parts apart: the socket, the MCP server on it, the browser the server drives. */
export const BrowserHealth = z.object({
  socket: z.object({ ok: z.boolean(), path: z.string(), reason: z.string().optional() }),
  mcp: z.object({
    ok: z.boolean(),
    state: ConnectionStatus,
    serverInfo: ServerInfo.nullable().optional(),
    tools: z.number().optional(),
    reason: z.string().optional(),
  }),
  browser: z.object({ ok: z.boolean(), reason: z.string().optional() }),
})
export type BrowserHealth = z.infer<typeof BrowserHealth>

/** Each feature's operations the connected server lacks (empty: offered); null: not connected. */
export const BrowserFeatures = z.object({
  connected: z.boolean(),
  features: z.record(z.string(), z.array(z.string())).nullable(),
})
export type BrowserFeatures = z.infer<typeof BrowserFeatures>

export const BrowserSession = z.object({
  id: z.string(),
  chatSessionId: z.string().nullable(),
  taskId: z.string().nullable(),
  controller: z.enum(['agent', 'human']),
  callCount: z.number(),
  lastOperation: z.string().nullable(),
  openedAt: z.string(),
  lastCallAt: z.string().nullable(),
  closedAt: z.string().nullable(),
  closeReason: z.string().nullable(),
})
export const BrowserSessionList = z.object({ sessions: z.array(BrowserSession) })

export const BrowserScreenshot = z.object({ mimeType: z.string(), data: z.string() })
export type BrowserScreenshot = z.infer<typeof BrowserScreenshot>

export const BrowserRecordingId = idSchema('browserRecording')
export const BrowserRecordingParams = z.strictObject({ id: BrowserRecordingId })

/** A recording of a browser session: its state, size and digest; never any page content. */
export const BrowserRecording = z.object({
  id: z.string(),
  browserSessionId: z.string(),
  kind: z.enum(['trace']),
  state: z.enum(['recording', 'ready', 'failed']),
  bytes: z.number().nullable(),
  sha256: z.string().nullable(),
  startedAt: z.string(),
  stoppedAt: z.string().nullable(),
  stopReason: z.string().nullable(),
  error: z.string().nullable(),
})
export type BrowserRecording = z.infer<typeof BrowserRecording>
export const BrowserRecordingList = z.object({ recordings: z.array(BrowserRecording) })
export const BrowserRecordingDeleted = z.object({ deleted: z.literal(true) })
