import { asc, eq, sql } from '../../db/drizzle-orm.ts'
import type { Db } from '../../db/index.ts'
import { agents } from '../../db/schema/index.ts'
import type { Agent, PatchAgentInput } from '../contracts/agents.ts'
import { AgentNotFound, SupervisorNotDelegable } from './errors.ts'
import { SUPERVISOR_AGENT_ID } from './supervisor.ts'
import { assertToolMembership } from './tool-policy.ts'

export type AgentRow = typeof agents.$inferSelect

export function toAgent(row: AgentRow): Agent {
  const { createdAt: _createdAt, updatedAt, ...rest } = row
  return { ...rest, updatedAt: updatedAt.toISOString() }
}

/** Every persisted agent, supervisor first, then by id. */
export async function listRows(db: Db): Promise<AgentRow[]> {
  return db
    .select()
    .from(agents)
    .orderBy(sql`${agents.id} <> ${SUPERVISOR_AGENT_ID}`, asc(agents.id))
}

export async function list(db: Db): Promise<Agent[]> {
  return (await listRows(db)).map(toAgent)
}

export async function get(db: Db, id: string): Promise<Agent> {
  const [row] = await db.select().from(agents).where(eq(agents.id, id))
  if (!row) throw new AgentNotFound({ id })
  return toAgent(row)
}

/**
 * Applies a partial update after checking the merged result: tool membership against the role
 * rules (so narrowing access while keeping a tool that needs it is refused), and the supervisor
 * never becoming a delegation target. The row is locked for the check, so two concurrent edits
 * cannot each pass against the other's old state.
 */
export async function patch(db: Db, id: string, input: PatchAgentInput): Promise<Agent> {
  return db.transaction(async (tx) => {
    const [current] = await tx.select().from(agents).where(eq(agents.id, id)).for('update')
    if (!current) throw new AgentNotFound({ id })
    const merged = { ...current, ...input }
    if (merged.id === SUPERVISOR_AGENT_ID && merged.delegationEligible) {
      throw new SupervisorNotDelegable({ id })
    }
    assertToolMembership(merged)
    const [row] = await tx
      .update(agents)
      .set({ ...input, tools: merged.tools, updatedAt: new Date() })
      .where(eq(agents.id, id))
      .returning()
    return toAgent(row!)
  })
}
