import type { Db } from '../../db/index.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import { indexTurnSpan } from '../../runtime/memories/recall-items.ts'
import type { Logger } from '../log.ts'
import type { RunObserver, RunRef } from '../runs/run-events.ts'

const PART_CHARS = 1_200

/**
 * Indexes a completed run of a session as something later sessions can recall: the question and
 * the supervisor's final answer (no tool output), bounded and redacted. A failed or aborted run
 * indexes nothing; a run without a session (a task of its own) has nothing to point back to.
 */
export function spanObserver(options: {
  db: Db
  run: RunRef
  query: string
  redact: (text: string) => string
  log: Logger
  after: () => Promise<void>
}): RunObserver {
  let answer = ''
  let supervisor: string | undefined
  return async (event) => {
    if (event.type === 'run-start') return
    if (event.type === 'step') {
      supervisor ??= event.agentId
      if (event.agentId === supervisor && event.text.trim()) answer = event.text
      return
    }
    if (event.type !== 'run-end' || event.status !== 'completed') return
    const { sessionId, runId } = options.run
    if (!sessionId || !options.query.trim()) return
    const content = options.redact(
      `Question: ${bound(options.query)}\nAnswer: ${bound(answer || '(no answer text)')}`,
    )
    try {
      await indexTurnSpan(options.db, { sessionId, turnId: runId, content })
      await options.after()
    } catch (error) {
      options.log.warn('the turn could not be indexed for recall', { error: errorMessage(error) })
    }
  }
}

const bound = (text: string) =>
  text.length > PART_CHARS ? `${text.slice(0, PART_CHARS)}… [truncated]` : text
