import { Hono } from 'hono'
import { TurnParams } from '../../runtime/contracts/turn-changes.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * Per-turn undo (B3), mounted under /api/sessions. Only the compute host touches workspaces, so
 * both routes ask it: the turn's changed files with a diff each, and the undo of them, which
 * restores exactly the files the agent changed and refuses, file by file, those changed since.
 */
export const turns = new Hono<AppEnv>()
  .get('/:id/turns/:turnId/changes', validate('param', TurnParams), async (c) => {
    const { id, turnId } = c.req.valid('param')
    return c.json(await c.var.host.turnChanges({ sessionId: id, turnId }), 200)
  })
  .post('/:id/turns/:turnId/undo', validate('param', TurnParams), async (c) => {
    const { id, turnId } = c.req.valid('param')
    return c.json(await c.var.host.undoTurn({ sessionId: id, turnId }), 200)
  })
