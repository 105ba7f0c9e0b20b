import { Hono } from 'hono'
import * as Approvals from '../../runtime/approvals/index.ts'
import {
  ApprovalListQuery,
  ApprovalParams,
  DecideApprovalInput,
} from '../../runtime/contracts/approvals.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * Approvals (X6), the owner's answers on the web: behind the API key like every /api route, so
 * an answer here is the owner's (`owner-web`). The waiting run reads the row, so nothing needs
 * the compute host. The first answer wins; a second gets the decision that stands
 * (`changed: false`), and an expired approval stays expired.
 */
export const approvals = new Hono<AppEnv>()
  .get('/', validate('query', ApprovalListQuery), async (c) =>
    c.json({ approvals: await Approvals.list(c.var.db, c.req.valid('query')) }, 200),
  )
  .get('/:id', validate('param', ApprovalParams), async (c) =>
    c.json(await Approvals.get(c.var.db, c.req.valid('param').id), 200),
  )
  .post(
    '/:id',
    validate('param', ApprovalParams),
    validate('json', DecideApprovalInput),
    async (c) => {
      const { row, changed } = await Approvals.decide(
        c.var.db,
        c.req.valid('param').id,
        c.req.valid('json').decision,
        'owner-web',
      )
      return c.json({ approval: Approvals.toView(row), changed }, 200)
    },
  )
