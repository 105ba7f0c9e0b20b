import { Hono } from 'hono'
import * as Agents from '../../runtime/agents/index.ts'
import * as Skills from '../../runtime/agents/skills.ts'
import {
  AgentParams,
  CreateSkillInput,
  PatchAgentInput,
  PatchSkillInput,
  SkillParams,
} from '../../runtime/contracts/agents.ts'
import type { AppEnv } from '../env.ts'
import { assertKnownModels } from '../known-models.ts'
import { validate } from '../validate.ts'

/** Persisted system agents and their Agent Skills. Edits apply on each agent's next run. */
export const agents = new Hono<AppEnv>()
  .get('/', async (c) => c.json({ agents: await Agents.list(c.var.db) }, 200))
  .get('/:id', validate('param', AgentParams), async (c) =>
    c.json(await Agents.get(c.var.db, c.req.valid('param').id), 200),
  )
  .patch('/:id', validate('param', AgentParams), validate('json', PatchAgentInput), async (c) => {
    const input = c.req.valid('json')
    await assertKnownModels(c, { modelOverride: input.modelOverride })
    return c.json(await Agents.patch(c.var.db, c.req.valid('param').id, input), 200)
  })
  // This host's answer for each of the agent's tools: the editor shows what a run will really get.
  .get('/:id/tools', validate('param', AgentParams), async (c) => {
    const { id } = c.req.valid('param')
    const agent = await Agents.get(c.var.db, id)
    const { agents } = await c.var.host.agentTools()
    return c.json({ tools: agents[agent.id] ?? [] }, 200)
  })
  // Each MCP server's tools as this agent gets them here: chosen, and why one cannot run.
  .get('/:id/mcp-tools', validate('param', AgentParams), async (c) => {
    const agent = await Agents.get(c.var.db, c.req.valid('param').id)
    return c.json(await c.var.host.mcpAgentTools({ agentId: agent.id }), 200)
  })
  .get('/:id/skills', validate('param', AgentParams), async (c) =>
    c.json({ skills: await Skills.list(c.var.db, c.req.valid('param').id) }, 200),
  )
  .post(
    '/:id/skills',
    validate('param', AgentParams),
    validate('json', CreateSkillInput),
    async (c) =>
      c.json(await Skills.create(c.var.db, c.req.valid('param').id, c.req.valid('json')), 201),
  )
  .patch(
    '/:id/skills/:skillId',
    validate('param', SkillParams),
    validate('json', PatchSkillInput),
    async (c) => {
      const { id, skillId } = c.req.valid('param')
      return c.json(await Skills.patch(c.var.db, id, skillId, c.req.valid('json')), 200)
    },
  )
  .delete('/:id/skills/:skillId', validate('param', SkillParams), async (c) => {
    const { id, skillId } = c.req.valid('param')
    await Skills.remove(c.var.db, id, skillId)
    return c.json({ deleted: skillId }, 200)
  })
