import { agents, agentSkills } from '../schema/index.ts'
import { AGENT_ROLE_SEED } from '../seeds/agent-roles.ts'
import { AGENT_SKILL_SEED } from '../seeds/agent-skills.ts'
import type { DataMigration } from './types.ts'

/**
 * The seven system agents and two source-attributed skills each. Applied once; rows that exist
 * already (an owner's earlier guidance) are kept as they are, never overwritten. Seeded skill ids
 * are readable (`skl_<agent>-<name>`) so the migration is deterministic.
 */
export const seedAgentRolesAndSkills: DataMigration = {
  name: '0004-seed-agent-roles-and-skills',
  async up(tx) {
    await tx
      .insert(agents)
      .values(AGENT_ROLE_SEED.map((a) => ({ ...a })))
      .onConflictDoNothing()
    await tx
      .insert(agentSkills)
      .values(
        AGENT_SKILL_SEED.map((s) => ({
          ...s,
          id: `skl_${s.agentId}-${s.name}`,
          enabled: true,
          evolutionManaged: false,
        })),
      )
      .onConflictDoNothing()
  },
}
