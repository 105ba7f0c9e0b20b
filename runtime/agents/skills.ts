import { and, asc, eq } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { agents, agentSkills } from '../../db/schema/index.ts'
import type { AgentSkill, CreateSkillInput, PatchSkillInput } from '../contracts/agents.ts'
import { createId } from '../ids.ts'
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '../pg-errors.ts'
import { AgentNotFound, SkillNameTaken, SkillNotFound } from './errors.ts'

export type SkillRow = typeof agentSkills.$inferSelect

function toSkill(row: SkillRow): AgentSkill {
  return {
    ...row,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

async function assertAgent(db: Db, agentId: string) {
  const [agent] = await db.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId))
  if (!agent) throw new AgentNotFound({ id: agentId })
}

// A duplicate name surfaces as the unique constraint; turn it into a 409 that names it.
async function mapConflict<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) {
      throw new SkillNameTaken({ name }, { message: `this agent already has a skill "${name}"` })
    }
    throw error
  }
}

export async function list(db: Db, agentId: string): Promise<AgentSkill[]> {
  await assertAgent(db, agentId)
  const rows = await db
    .select()
    .from(agentSkills)
    .where(eq(agentSkills.agentId, agentId))
    .orderBy(asc(agentSkills.name))
  return rows.map(toSkill)
}

/** The enabled skills of every agent, for building a run's agents. */
export async function enabledRows(db: Db): Promise<SkillRow[]> {
  return db
    .select()
    .from(agentSkills)
    .where(eq(agentSkills.enabled, true))
    .orderBy(asc(agentSkills.agentId), asc(agentSkills.name))
}

export async function create(
  db: Db,
  agentId: string,
  input: CreateSkillInput,
): Promise<AgentSkill> {
  await assertAgent(db, agentId)
  const [row] = await mapConflict(input.name, () =>
    db
      .insert(agentSkills)
      .values({ id: createId('skill'), agentId, ...input, evolutionManaged: false })
      .returning(),
  )
  return toSkill(row!)
}

/**
 * An ordinary (user or API) edit. It always clears `evolutionManaged`: once the owner has edited
 * a learned skill it is theirs, and the learning loop may no longer change or revert it.
 */
export async function patch(
  db: Db,
  agentId: string,
  skillId: string,
  input: PatchSkillInput,
): Promise<AgentSkill> {
  const [row] = await mapConflict(input.name, () =>
    db
      .update(agentSkills)
      .set({ ...input, evolutionManaged: false, updatedAt: new Date() })
      .where(and(eq(agentSkills.id, skillId), eq(agentSkills.agentId, agentId)))
      .returning(),
  )
  if (!row) throw new SkillNotFound({ agentId, skillId })
  return toSkill(row)
}

export async function remove(db: Db, agentId: string, skillId: string): Promise<void> {
  const deleted = await db
    .delete(agentSkills)
    .where(and(eq(agentSkills.id, skillId), eq(agentSkills.agentId, agentId)))
    .returning({ id: agentSkills.id })
  if (deleted.length === 0) throw new SkillNotFound({ agentId, skillId })
}
