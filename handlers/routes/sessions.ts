import { Hono } from 'hono'
import {
  CreateSessionInput,
  ListSessionsQuery,
  PatchSessionInput,
  SaveSessionInput,
  SessionParams,
} from '../../runtime/contracts/sessions.ts'
import { errorBody } from '../../runtime/errors.ts'
import * as Sessions from '../../runtime/sessions/index.ts'
import type { AppEnv } from '../env.ts'
import { endSessions } from '../session-end.ts'
import { validate } from '../validate.ts'

/** The user messages of `before` that `after` no longer has. */
function removedUserMessages(
  before: readonly { id: string; role: string }[],
  after: readonly { id: string }[],
): string[] {
  const kept = new Set(after.map((m) => m.id))
  return before.filter((m) => m.role === 'user' && !kept.has(m.id)).map((m) => m.id)
}

const notFound = (id: string) => errorBody('SESSION_NOT_FOUND', 'session not found', { id })

export const sessions = new Hono<AppEnv>()
  .get('/', validate('query', ListSessionsQuery), async (c) =>
    c.json({ sessions: await Sessions.list(c.var.db, c.req.valid('query')) }, 200),
  )
  .post('/', validate('json', CreateSessionInput), async (c) =>
    c.json(await Sessions.create(c.var.db, c.req.valid('json')), 201),
  )
  .get('/:id', validate('param', SessionParams), async (c) => {
    const { id } = c.req.valid('param')
    const session = await Sessions.get(c.var.db, id)
    if (!session) return c.json(notFound(id), 404)
    return c.json(session, 200)
  })
  .put('/:id', validate('param', SessionParams), validate('json', SaveSessionInput), async (c) => {
    const { id } = c.req.valid('param')
    const input = c.req.valid('json')
    // Exchanges taken out of the transcript leave the chat memory first, so the next turn's
    // model does not read them; a save that would conflict forgets nothing (checked here, and
    // again by the save itself).
    const before = await Sessions.get(c.var.db, id)
    if (before?.revision === input.revision) {
      const userMessageIds = removedUserMessages(before.messages, input.messages)
      if (userMessageIds.length) await c.var.host.forgetExchanges({ sessionId: id, userMessageIds })
    }
    const result = await Sessions.save(c.var.db, id, input)
    if (result.ok) return c.json(result.session, 200)
    // The UI branches on this: it reloads the current session instead of losing the user's work.
    return c.json(
      { ...errorBody('REVISION_CONFLICT', 'revision conflict'), session: result.session },
      409,
    )
  })
  .patch(
    '/:id',
    validate('param', SessionParams),
    validate('json', PatchSessionInput),
    async (c) => {
      const { id } = c.req.valid('param')
      const input = c.req.valid('json')
      if (input.archived) {
        const session = await Sessions.getSummary(c.var.db, id)
        if (session && !session.archivedAt) await endSessions(c, [session], 'archived')
      }
      return c.json(await Sessions.patch(c.var.db, id, input), 200)
    },
  )
  // Stops the session's running turn from any client; closing the page that started it does not.
  .post('/:id/stop', validate('param', SessionParams), async (c) =>
    c.json(await c.var.host.chatStop({ sessionId: c.req.valid('param').id }), 200),
  )
  .delete('/:id', validate('param', SessionParams), async (c) => {
    const { id } = c.req.valid('param')
    const session = await Sessions.getSummary(c.var.db, id)
    if (!session) return c.json(notFound(id), 404)
    if (!session.archivedAt) await endSessions(c, [session], 'deleted')
    // The thread first: a row must never be gone while its memory remains.
    await c.var.host.threads({ sessionIds: [id] })
    await Sessions.remove(c.var.db, id)
    return c.json({ deleted: id }, 200)
  })
