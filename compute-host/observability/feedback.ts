import { randomUUID } from 'node:crypto'
import type { FeedbackBody } from '../../runtime/contracts/observability.ts'
import type { SpanStorage } from './span-store.ts'
import { spanPayload } from './span-payload.ts'

const FEEDBACK_TYPE = 'thumbs'
const SOURCE = 'popagent-ui'

/**
 * Thumbs up or down on an assistant message, stored under the turn's trace id in Mastra's
 * feedback table (the evolution work reads it from there). The comment is the owner's, but it is
 * redacted like everything else the observability database keeps.
 */
export async function addFeedback(
  storage: SpanStorage,
  body: FeedbackBody,
  redact: (text: string) => string,
): Promise<void> {
  await storage.createFeedback({
    feedback: {
      feedbackId: randomUUID(),
      timestamp: new Date(),
      traceId: body.traceId,
      feedbackType: FEEDBACK_TYPE,
      feedbackSource: SOURCE,
      source: SOURCE,
      value: body.value === 'up' ? 1 : -1,
      comment: spanPayload(body.comment, redact, 2_000) ?? null,
      sessionId: body.sessionId ?? null,
    },
  })
}

/** The newest feedback, with the trace each belongs to. */
export async function listFeedback(storage: SpanStorage, limit = 100) {
  const page = await storage.listFeedback({
    filters: { feedbackType: FEEDBACK_TYPE },
    pagination: { page: 0, perPage: limit },
    orderBy: { field: 'timestamp', direction: 'DESC' },
  })
  return {
    feedback: page.feedback.map((f) => ({
      traceId: f.traceId ?? '',
      value: Number(f.value) > 0 ? ('up' as const) : ('down' as const),
      comment: f.comment ?? null,
      sessionId: f.sessionId ?? null,
      createdAt: new Date(f.timestamp).toISOString(),
    })),
  }
}
