import { z } from 'zod'
import { SessionId } from '../ids.ts'

/**
 * Session export (B4): the whole session (metadata, messages with their activity, recall
 * provenance and usage) as Markdown or JSON, built by the compute host so every secret it knows is
 * redacted, in every encoding its redactor knows.
 */
export const ExportFormat = z.enum(['md', 'json'])
export type ExportFormat = z.infer<typeof ExportFormat>

export const ExportSessionParams = z.strictObject({ id: SessionId })
export const ExportSessionQuery = z.strictObject({ format: ExportFormat.default('md') })

/** What the edge asks the host for. */
export const ExportSessionBody = z.strictObject({ sessionId: SessionId, format: ExportFormat })
export type ExportSessionBody = z.infer<typeof ExportSessionBody>

/** The export as the host built it: a file the edge sends as a download. */
export const SessionExport = z.object({
  filename: z.string(),
  contentType: z.string(),
  body: z.string(),
})
export type SessionExport = z.infer<typeof SessionExport>

/** The version of the JSON export's shape, named in its `format` field. */
export const SESSION_EXPORT_FORMAT = 'popagent.session.v1'
