import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { keptJsonSchema } from './kept-json-schema.ts'
import type { Db } from '../../db/index.ts'
import * as Settings from '../../runtime/settings/index.ts'
import type { RunContext } from '../agents/run-context.ts'
import { provenanceOf } from '../recall/recall-block.ts'
import type { Recall } from '../recall/recall.ts'

/**
 * The agents' `memory-search` tool (every role): the same hybrid search recall runs before each
 * turn, for a query the agent chooses, with each result's provenance. Read-only.
 */
export function createMemorySearchTool(deps: { db: Db; recall: Recall }) {
  return createTool({
    id: 'memory-search',
    description:
      'Search long-term memories (the user’s notes, agent facts) and earlier sessions. Results are notes with where they came from; they may be outdated.',
    inputSchema: keptJsonSchema(
      z.object({
        query: z.string().trim().min(1).max(500).describe('What to look for'),
      }),
    ),
    execute: async ({ query }, context) => {
      const run = (context?.requestContext as RunContext | undefined)?.get('run')
      const settings = await Settings.memory.get(deps.db)
      const outcome = await deps.recall.search(query, {
        settings,
        ...(run?.sessionId && { excludeSession: run.sessionId }),
        ...(context?.abortSignal && { signal: context.abortSignal }),
      })
      if (outcome.items.length === 0) return 'No memories or earlier sessions match.'
      return [
        ...(outcome.note ? [`(${outcome.note})`] : []),
        ...outcome.items.map((item) => `- [${provenanceOf(item)}] ${item.text}`),
      ].join('\n')
    },
  })
}
