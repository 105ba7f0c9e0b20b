import { eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import {
  agents,
  autonomySettings,
  evolutionDefaults,
  evolutionPolicies,
} from '../../db/schema/index.ts'
import type {
  AgentPolicyPatch,
  EvolutionDefaultsPatch,
  EvolutionPolicies,
} from '../contracts/evolution.ts'
import { assertDeliverable } from '../channels/index.ts'
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
  /** Learned changes wait in the review queue for the owner instead of being applied. */
  review: boolean
}

async function reviewDefault(tx: Tx | Db, lock: boolean): Promise<boolean> {
  const query = tx.select({ review: evolutionDefaults.review }).from(evolutionDefaults)
  const [row] = lock ? await query.for('update') : await query
  return row?.review ?? false
}

/**
 * Reads the autonomy singleton FOR UPDATE and the agent's own switch, inside the transaction that
 * is about to change something: a settings change waits for the mutation, or the mutation sees
 * the change. This is how a disabled policy always wins over a reflection that started before it.
 */
export async function lockPolicy(tx: Tx, agentId: string): Promise<AgentPolicy> {
  const [global] = await tx.select().from(autonomySettings).for('update')
  if (!global) throw new SettingsMissing({ settings: 'autonomy' })
  const byDefault = await reviewDefault(tx, true)
  const [own] = await tx
    .select({ enabled: evolutionPolicies.enabled, review: evolutionPolicies.review })
    .from(evolutionPolicies)
    .where(eq(evolutionPolicies.agentId, agentId))
  const evolve = global.evolutionEnabled && own?.enabled !== false
  return {
    evolve,
    skillCreation: evolve && global.skillCreationEnabled,
    factRetention: evolve && global.automaticFactRetention,
    review: own?.review ?? byDefault,
  }
}

/** The conversation held proposals are asked on, if the owner named one. */
export async function reviewBinding(db: Db): Promise<string | null> {
  const [row] = await db
    .select({ bindingId: evolutionDefaults.reviewBindingId })
    .from(evolutionDefaults)
  return row?.bindingId ?? null
}

export async function policies(db: Db): Promise<EvolutionPolicies> {
  const [[global], own, rows, byDefault, bindingId] = await Promise.all([
    db.select().from(autonomySettings),
    db.select().from(evolutionPolicies),
    listRows(db),
    reviewDefault(db, false),
    reviewBinding(db),
  ])
  if (!global) throw new SettingsMissing({ settings: 'autonomy' })
  const ownOf = new Map(own.map((p) => [p.agentId, p]))
  return {
    evolutionEnabled: global.evolutionEnabled,
    skillCreationEnabled: global.skillCreationEnabled,
    automaticFactRetention: global.automaticFactRetention,
    reviewByDefault: byDefault,
    reviewBindingId: bindingId,
    agents: rows.map((r) => {
      const p = ownOf.get(r.id)
      return {
        agentId: r.id,
        name: r.displayName,
        enabled: p?.enabled !== false,
        review: p?.review ?? null,
        reviews: p?.review ?? byDefault,
      }
    }),
  }
}

/** Sets one agent's own switches: on or off, and review (null: follow the global default). */
export async function setAgentPolicy(
  db: Db,
  agentId: string,
  patch: AgentPolicyPatch,
): Promise<EvolutionPolicies> {
  const [agent] = await db.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId))
  if (!agent) throw new EvolutionAgentNotFound({ agentId })
  const set = {
    ...(patch.enabled !== undefined && { enabled: patch.enabled }),
    ...(patch.review !== undefined && { review: patch.review }),
  }
  await db
    .insert(evolutionPolicies)
    .values({ agentId, ...set })
    .onConflictDoUpdate({
      target: evolutionPolicies.agentId,
      set: { ...set, updatedAt: sql`now()` },
    })
  return policies(db)
}

/**
 * Evolution's global defaults: whether learned changes wait for review (an agent's own choice
 * wins), and the channel conversation held proposals are also asked on (it must exist and not be
 * blocked; null: none).
 */
export async function setDefaults(
  db: Db,
  patch: EvolutionDefaultsPatch,
): Promise<EvolutionPolicies> {
  await assertDeliverable(db, patch.reviewBindingId)
  const set = {
    ...(patch.reviewByDefault !== undefined && { review: patch.reviewByDefault }),
    ...(patch.reviewBindingId !== undefined && { reviewBindingId: patch.reviewBindingId }),
  }
  await db
    .insert(evolutionDefaults)
    .values({ id: true, ...set })
    .onConflictDoUpdate({ target: evolutionDefaults.id, set: { ...set, updatedAt: sql`now()` } })
  return policies(db)
}
