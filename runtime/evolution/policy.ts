import { eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { agents, autonomySettings, evolutionPolicies } from '../../db/schema/index.ts'
import type { EvolutionPolicies } from '../contracts/evolution.ts'
import { SettingsMissing } from '../settings/singleton.ts'
import { listRows } from '../agents/index.ts'
import { EvolutionAgentNotFound } from './errors.ts'

export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0]

/** What one agent's evolution may do right now: the global switches with its own under them. */
export type AgentPolicy = {
  /** Evolution may change this agent at all (global on, and the agent's own switch not off). */
  evolve: boolean
  skillCreation: boolean
  factRetention: boolean
}

/**
 * Reads the autonomy singleton FOR UPDATE and the agent's own switch, inside the transaction that
 * is about to change something: a settings change waits for the mutation, or the mutation sees
 * the change. This is how a disabled policy always wins over a reflection that started before it.
 */
export async function lockPolicy(tx: Tx, agentId: string): Promise<AgentPolicy> {
  const [global] = await tx.select().from(autonomySettings).for('update')
  if (!global) throw new SettingsMissing({ settings: 'autonomy' })
  const [own] = await tx
    .select({ enabled: evolutionPolicies.enabled })
    .from(evolutionPolicies)
    .where(eq(evolutionPolicies.agentId, agentId))
  const evolve = global.evolutionEnabled && own?.enabled !== false
  return {
    evolve,
    skillCreation: evolve && global.skillCreationEnabled,
    factRetention: evolve && global.automaticFactRetention,
  }
}

export async function policies(db: Db): Promise<EvolutionPolicies> {
  const [[global], own, rows] = await Promise.all([
    db.select().from(autonomySettings),
    db.select().from(evolutionPolicies),
    listRows(db),
  ])
  if (!global) throw new SettingsMissing({ settings: 'autonomy' })
  const off = new Set(own.filter((p) => !p.enabled).map((p) => p.agentId))
  return {
    evolutionEnabled: global.evolutionEnabled,
    skillCreationEnabled: global.skillCreationEnabled,
    automaticFactRetention: global.automaticFactRetention,
    agents: rows.map((r) => ({ agentId: r.id, name: r.displayName, enabled: !off.has(r.id) })),
  }
}

/** Sets one agent's own switch. */
export async function setAgentPolicy(
  db: Db,
  agentId: string,
  enabled: boolean,
): Promise<EvolutionPolicies> {
  const [agent] = await db.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId))
  if (!agent) throw new EvolutionAgentNotFound({ agentId })
  await db
    .insert(evolutionPolicies)
    .values({ agentId, enabled })
    .onConflictDoUpdate({
      target: evolutionPolicies.agentId,
      set: { enabled, updatedAt: sql`now()` },
    })
  return policies(db)
}
