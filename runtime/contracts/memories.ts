import { z } from 'zod'
import { MEMORY_CONTENT_MAX, MEMORY_OWNERS } from '../../db/memory-enums.ts'
import { MemoryId, SessionId } from '../ids.ts'
import { Line } from './fields.ts'

/** Long-term memory wire types (X1), shared by the handlers, the UI and the agent tools. */

export const MemoryOwner = z.enum(MEMORY_OWNERS)
export const MemoryContent = Line(MEMORY_CONTENT_MAX)
export const MEMORY_LIST_CAP = 200

export const MemoryParams = z.strictObject({ id: MemoryId })

export const ListMemoriesQuery = z.strictObject({
  /** Words the memory contains (case-insensitive, all of them). */
  q: z.string().trim().max(200).optional(),
  owner: MemoryOwner.optional(),
  sessionId: SessionId.optional(),
  /** Superseded facts too (a key's history), not only the live memories. */
  history: z.enum(['true', 'false']).default('false'),
  limit: z.coerce.number().int().min(1).max(MEMORY_LIST_CAP).default(100),
})
export type ListMemoriesQuery = z.infer<typeof ListMemoriesQuery>

export const CreateMemoryInput = z.strictObject({ content: MemoryContent })
export type CreateMemoryInput = z.infer<typeof CreateMemoryInput>

export const PatchMemoryInput = z.strictObject({ content: MemoryContent })
export type PatchMemoryInput = z.infer<typeof PatchMemoryInput>

/** Where a memory came from: the session and turn (and task) it was told or learnt in. */
export const MemoryProvenance = z.object({
  sessionId: z.string().nullable(),
  turnId: z.string().nullable(),
  taskId: z.string().nullable(),
})

export const Memory = z.object({
  id: z.string(),
  owner: MemoryOwner,
  agentId: z.string().nullable(),
  key: z.string().nullable(),
  content: z.string(),
  provenance: MemoryProvenance,
  supersededBy: z.string().nullable(),
  supersededAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
})
export type Memory = z.infer<typeof Memory>

export const MemoryList = z.object({ memories: z.array(Memory) })
/** One memory with every version of its key, oldest first (a user memory's is itself). */
export const MemoryWithHistory = Memory.extend({ history: z.array(Memory) })
export type MemoryWithHistory = z.infer<typeof MemoryWithHistory>
