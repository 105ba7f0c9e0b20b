import { query, revalidate } from '@solidjs/router'
import type {
  CreateSkillInput,
  PatchAgentInput,
  PatchSkillInput,
} from '../../../runtime/contracts/agents.ts'
import { api, ok } from '../api.ts'

/** The system agents and their skills. */
/** What the skill form edits; the rest of a skill (references, source) is the server's. */
export type SkillFields = Pick<
  CreateSkillInput,
  'name' | 'description' | 'instructions' | 'enabled'
>

export const getAgents = query(() => ok(api.agents.$get()), 'agents')

export const getAgent = query(
  (id: string) => ok(api.agents[':id'].$get({ param: { id } })),
  'agent',
)

/** This host's answer for each of the agent's tools (runnable, needs a repository, or why not). */
export const getAgentTools = query(
  (id: string) => ok(api.agents[':id'].tools.$get({ param: { id } })),
  'agent-tools',
)

export const getSkills = query(
  (agentId: string) => ok(api.agents[':id'].skills.$get({ param: { id: agentId } })),
  'skills',
)

/**
 * An agent's change shows in its editor and in the list (name, access, tools, model). The
 * `agents` prefix does not match `agent[…]` keys (a key is the name then the JSON arguments); the
 * tool list follows the saved tools.
 */
export const staleAfterAgentChange = (id: string) => [
  getAgents.key,
  getAgent.keyFor(id),
  getAgentTools.keyFor(id),
]
export const staleAfterSkillChange = (agentId: string) => [getSkills.keyFor(agentId)]

export async function patchAgent(id: string, json: PatchAgentInput) {
  const saved = await ok(api.agents[':id'].$patch({ param: { id }, json }))
  await revalidate(staleAfterAgentChange(id))
  return saved
}

export async function createSkill(agentId: string, json: SkillFields) {
  const created = await ok(api.agents[':id'].skills.$post({ param: { id: agentId }, json }))
  await revalidate(staleAfterSkillChange(agentId))
  return created
}

export async function patchSkill(agentId: string, skillId: string, json: PatchSkillInput) {
  const saved = await ok(
    api.agents[':id'].skills[':skillId'].$patch({ param: { id: agentId, skillId }, json }),
  )
  await revalidate(staleAfterSkillChange(agentId))
  return saved
}

export async function deleteSkill(agentId: string, skillId: string) {
  await ok(api.agents[':id'].skills[':skillId'].$delete({ param: { id: agentId, skillId } }))
  await revalidate(staleAfterSkillChange(agentId))
}
