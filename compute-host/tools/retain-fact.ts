import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { keptJsonSchema } from './kept-json-schema.ts'
import type { Db } from '../../db/index.ts'
import { MEMORY_CONTENT_MAX } from '../../db/memory-enums.ts'
import * as Memories from '../../runtime/memories/index.ts'
import { FactRetentionOff } from '../../runtime/memories/errors.ts'
import * as Settings from '../../runtime/settings/index.ts'
import type { RunContext } from '../agents/run-context.ts'
import type { AnyTool } from '../agents/tool-provider.ts'
import type { Recall } from '../recall/recall.ts'

/**
 * The agents' `retain-fact` tool: keeps a keyed fact for the agent, superseding its earlier fact
 * with the same key (kept as history), with the run's session, turn and task as provenance. It
 * goes through the same rules as every writer: it stores nothing while automatic fact retention
 * is off (read at each call), and a user's memory can never be its target.
 */
export function createRetainFactTool(deps: { db: Db; recall: Recall }, agentId: string): AnyTool {
  return createTool({
    id: 'retain-fact',
    description:
      'Keep a durable fact for later sessions under a key (lowercase, e.g. "package-manager"); a new fact with the same key replaces the old one, which stays in history. Only works when the owner allows automatic fact retention.',
    inputSchema: keptJsonSchema(
      z.object({
        key: z.string().trim().min(1).max(128).describe('lowercase letters, digits, . _ -'),
        content: z.string().trim().min(1).max(MEMORY_CONTENT_MAX),
        replaces: z.string().max(80).optional().describe('id of one of your own facts it replaces'),
      }),
    ),
    execute: async ({ key, content, replaces }, context) => {
      const { automaticFactRetention } = await Settings.autonomy.get(deps.db)
      if (!automaticFactRetention) throw new FactRetentionOff({ agentId })
      const run = (context?.requestContext as RunContext | undefined)?.get('run')
      const fact = await Memories.retainFact(deps.db, {
        owner: 'agent',
        agentId,
        key,
        content,
        ...(replaces && { replaces }),
        provenance: {
          sessionId: run?.sessionId ?? null,
          turnId: run?.turnId ?? null,
          taskId: run?.taskId ?? null,
        },
      })
      void deps.recall.catchUp(await Settings.memory.get(deps.db))
      return `kept ${fact.key} as ${fact.id}`
    },
  })
}
