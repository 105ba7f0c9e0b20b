import { Hono } from 'hono'
import {
  AgentPolicyParams,
  AgentPolicyPatch,
  EvolutionDefaultsPatch,
  ProposalListQuery,
  ProposalParams,
  RevisionParams,
  SignalListQuery,
  SignalParams,
} from '../../runtime/contracts/evolution.ts'
import * as Policy from '../../runtime/evolution/policy.ts'
import * as Proposals from '../../runtime/evolution/proposals.ts'
import * as Revisions from '../../runtime/evolution/revisions.ts'
import * as Signals from '../../runtime/evolution/signals.ts'
import type { AppEnv } from '../env.ts'
import { validate } from '../validate.ts'

/**
 * Agent evolution (issue 39), under `/api/autonomy`: the evidence (signals, which the owner may
 * ignore or send back to the worker), the append-only revisions with revert, each agent's own
 * switches (on or off; applied automatically or held for review, with a global default), the
 * review queue (held proposals with approve and reject), and a worker pass now. The pass runs on the compute host; the rest is the database's.
 */
export const evolution = new Hono<AppEnv>()
  .get('/signals', validate('query', SignalListQuery), async (c) =>
    c.json({ signals: await Signals.list(c.var.db, c.req.valid('query')) }, 200),
  )
  .post('/signals/:id/ignore', validate('param', SignalParams), async (c) =>
    c.json(await Signals.ignore(c.var.db, c.req.valid('param').id), 200),
  )
  .post('/signals/:id/retry', validate('param', SignalParams), async (c) =>
    c.json(await Signals.retry(c.var.db, c.req.valid('param').id), 200),
  )
  .get('/revisions', async (c) => c.json({ revisions: await Revisions.list(c.var.db) }, 200))
  .post('/revisions/:id/revert', validate('param', RevisionParams), async (c) =>
    c.json(await Revisions.revert(c.var.db, c.req.valid('param').id), 201),
  )
  .get('/policies', async (c) => c.json(await Policy.policies(c.var.db), 200))
  .patch('/policies', validate('json', EvolutionDefaultsPatch), async (c) =>
    c.json(await Policy.setDefaults(c.var.db, c.req.valid('json')), 200),
  )
  .patch(
    '/policies/:agentId',
    validate('param', AgentPolicyParams),
    validate('json', AgentPolicyPatch),
    async (c) =>
      c.json(
        await Policy.setAgentPolicy(c.var.db, c.req.valid('param').agentId, c.req.valid('json')),
        200,
      ),
  )
  .get('/proposals', validate('query', ProposalListQuery), async (c) =>
    c.json({ proposals: await Proposals.list(c.var.db, c.req.valid('query').status) }, 200),
  )
  .post('/proposals/:id/approve', validate('param', ProposalParams), async (c) =>
    // On the host: its secret check needs the redactor, which knows the vault's values.
    c.json(await c.var.host.evolutionApprove(c.req.valid('param')), 200),
  )
  .post('/proposals/:id/reject', validate('param', ProposalParams), async (c) =>
    c.json(await Proposals.reject(c.var.db, c.req.valid('param').id, 'owner-web'), 200),
  )
  .post('/evolution/run', async (c) => c.json(await c.var.host.evolutionRun(), 200))
  .post('/evolution/dry-run', async (c) => c.json(await c.var.host.evolutionDryRun(), 200))
