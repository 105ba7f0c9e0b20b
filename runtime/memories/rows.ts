import { memories } from '../../db/schema/index.ts'
import type { Memory } from '../contracts/memories.ts'

export type MemoryRow = typeof memories.$inferSelect

export function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id,
    owner: row.owner,
    agentId: row.agentId,
    key: row.key,
    content: row.content,
    provenance: { sessionId: row.sessionId, turnId: row.turnId, taskId: row.taskId },
    supersededBy: row.supersededBy,
    supersededAt: row.supersededAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)
