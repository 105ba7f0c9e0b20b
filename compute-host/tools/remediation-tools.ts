import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import type { Db } from '../../db/index.ts'
import { MAX_EVIDENCE_CHARS } from '../../runtime/contracts/tasks.ts'
import * as Tasks from '../../runtime/tasks/index.ts'

const EVIDENCE_VIEW_CHARS = 24_000

/**
 * A remediation's native tools (T8): read its failed parent's workflow evidence and transcript,
 * and resolve the parent with evidence. Its shell has no network, so the operator's CLI could
 * never reach the API from there. Both tools are bound to the one parent task when the run is
 * prepared: the model names no task id, so it can neither read nor resolve any other task.
 */
export function remediationTools(db: Db, parentId: string) {
  return {
    'task-evidence': createTool({
      id: 'task-evidence',
      description:
        'Read the failed task you are remediating: its state, error, the self-update phases with their evidence (if any), and its activity transcript (newest records).',
      inputSchema: z.object({}),
      execute: async () => {
        const { task, phases, activity } = await Tasks.workflow(db, parentId)
        const view = JSON.stringify({
          task: {
            id: task.id,
            state: task.state,
            title: task.title,
            prompt: task.prompt,
            lastErrorClass: task.lastErrorClass,
            lastError: task.lastError,
            attemptCount: task.attemptCount,
          },
          phases: phases.map((p) => ({ name: p.name, state: p.state, evidence: p.evidence })),
          activity: activity.slice(-24),
        })
        // The newest part matters most; the transcript is already redacted by the runner.
        return {
          evidence: view.length > EVIDENCE_VIEW_CHARS ? view.slice(-EVIDENCE_VIEW_CHARS) : view,
        }
      },
    }),
    'task-resolve': createTool({
      id: 'task-resolve',
      description:
        'Resolve the failed task you are remediating, only when concrete evidence proves its original request is now satisfied. Give that evidence (what you checked and what it showed).',
      inputSchema: z.object({
        evidence: z
          .string()
          .trim()
          .min(20)
          .max(MAX_EVIDENCE_CHARS)
          .describe('What proves the request is satisfied'),
      }),
      execute: async ({ evidence }) => {
        const resolved = await Tasks.resolve(db, parentId, evidence)
        return { resolved: resolved.id, state: resolved.state }
      },
    }),
  }
}
