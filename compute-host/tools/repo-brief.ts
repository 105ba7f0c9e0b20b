import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { keptJsonSchema } from './kept-json-schema.ts'
import type { RunContext } from '../agents/run-context.ts'
import { buildRepoBrief, formatRepoBrief } from '../repo-brief/brief.ts'

/**
 * The agents' `repo-brief` tool: the same service as `GET /api/workspaces/:id/repo-brief` and
 * `popagent repo-brief`, run natively in the host (the agents' sandbox has no network, so they
 * could not use the HTTP route anyway) on the run's own repository.
 */
export function createRepoBriefTool() {
  return createTool({
    id: 'repo-brief',
    description:
      'A deterministic brief of the repository for a query: the most relevant source files with their exported symbols and adjacent tests, and the uncommitted changes. Cheap; use it before reading files.',
    inputSchema: keptJsonSchema(
      z.object({
        query: z.string().trim().min(1).max(500).describe('What you are looking for'),
      }),
    ),
    execute: async ({ query }, context) => {
      const root = (context?.requestContext as RunContext | undefined)?.get('workspaceRoot')
      if (!root) throw new Error('this run has no repository to brief')
      return formatRepoBrief(await buildRepoBrief(root, query, context?.abortSignal))
    },
  })
}
