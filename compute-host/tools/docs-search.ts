import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { keptJsonSchema } from './kept-json-schema.ts'
import type { DocSearchResult } from '../../runtime/contracts/docs.ts'
import { searchDocs, type DocSearchDeps } from '../docs/hybrid-search.ts'
import type { RunContext } from '../agents/run-context.ts'

/**
 * The agents' `docs-search` tool: the same search as `POST /api/workspaces/:id/docs/search`, over
 * the documentation of the run's own workspace. The workspace comes from the run, never from the
 * model's arguments, so an agent cannot read another workspace's documents by naming it.
 */
export function createDocsSearchTool(deps: DocSearchDeps) {
  return createTool({
    id: 'docs-search',
    description:
      "Search this workspace's project documentation (imported README and docs/, and documents the owner wrote). Answers the best-matching sections with their document, heading path and an excerpt.",
    inputSchema: keptJsonSchema(
      z.object({
        query: z.string().trim().min(1).max(500).describe('What you want to find out'),
        limit: z.number().int().min(1).max(10).optional().describe('How many sections (default 5)'),
      }),
    ),
    execute: async ({ query, limit }, context) => {
      const workspaceId = (context?.requestContext as RunContext | undefined)?.get('workspaceId')
      if (!workspaceId) throw new Error('this run has no workspace, so it has no documentation')
      const input = { query, limit: limit ?? 5 }
      return formatHits(await searchDocs(deps, workspaceId, input, context?.abortSignal))
    },
  })
}

/** Plain text the model reads: each hit with where it is, so it can cite the document. */
export function formatHits(result: DocSearchResult): string {
  if (result.results.length === 0) return 'No documentation section matches.'
  return result.results
    .map(
      (hit, i) =>
        `${i + 1}. ${hit.title} (${hit.slug})${hit.headingPath ? ` — ${hit.headingPath}` : ''}\n${hit.excerpt}`,
    )
    .join('\n\n')
}
