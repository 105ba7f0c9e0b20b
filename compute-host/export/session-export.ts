import type { Db } from '../../db/index.ts'
import { AppError } from '../../runtime/errors.ts'
import * as Memories from '../../runtime/memories/index.ts'
import {
  SESSION_EXPORT_FORMAT,
  type ExportSessionBody,
  type SessionExport,
} from '../../runtime/contracts/session-export.ts'
import * as Sessions from '../../runtime/sessions/index.ts'
import { deepRedact } from './deep-redact.ts'
import { sessionMarkdown } from './session-markdown.ts'

// A session is bounded by its message limits; this keeps one export from holding the host.
const MAX_EXPORT_CHARS = 20 * 1024 * 1024

export const SessionExportTooLarge = AppError.define(
  'SESSION_EXPORT_TOO_LARGE',
  413,
  'the session is too large to export (over 20 MB)',
)

/**
 * Session export (B4), built where the host's redactor is: every string of the session and of
 * the memories learnt in it passes the redactor before it is formatted, and the finished file
 * passes it again (a secret split across two strings is whole only there).
 */
export async function exportSession(
  deps: { db: Db; redact: (text: string) => string },
  request: ExportSessionBody,
  now = new Date(),
): Promise<SessionExport> {
  const found = await Sessions.get(deps.db, request.sessionId)
  if (!found) throw new Sessions.SessionNotFound({ id: request.sessionId })
  const memories = await Memories.list(deps.db, {
    sessionId: found.id,
    history: 'true',
    limit: 200,
  })
  const session = deepRedact(found, deps.redact) as typeof found
  const learnt = deepRedact(memories, deps.redact) as typeof memories
  const stem = `popagent-${found.id}`
  const body =
    request.format === 'json'
      ? JSON.stringify(
          {
            format: SESSION_EXPORT_FORMAT,
            exportedAt: now.toISOString(),
            redaction: { by: 'compute host redactor', encodings: 'raw, base64, hex, URL' },
            session,
            memories: learnt,
          },
          null,
          2,
        )
      : sessionMarkdown(session, learnt, now)
  const redacted = deps.redact(body)
  if (redacted.length > MAX_EXPORT_CHARS) throw new SessionExportTooLarge({ id: found.id })
  return request.format === 'json'
    ? { filename: `${stem}.json`, contentType: 'application/json', body: redacted }
    : { filename: `${stem}.md`, contentType: 'text/markdown; charset=utf-8', body: redacted }
}
