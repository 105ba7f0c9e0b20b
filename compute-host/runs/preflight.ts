import { join } from 'node:path'
import * as Workspaces from '../../runtime/workspaces/index.ts'
import type { Workspace } from '../../runtime/contracts/workspaces.ts'
import { errorMessage } from '../../runtime/error-message.ts'
import { buildRepoBrief, formatRepoBrief, type RepoBrief } from '../repo-brief/brief.ts'
import { PathNotDirectory, resolveInside } from '../workspaces/containment.ts'
import type { reserveFinalStep } from './final-step.ts'
import type { RunDeps } from './prepare-run.ts'

export type Preflight = { brief: RepoBrief; text: string }
type PrepareStep = ReturnType<typeof reserveFinalStep>

/**
 * Every step of the supervisor sees the preflight brief as a system message; the first step
 * waits for it. Kept out of memory: it describes the repository now, not the conversation.
 */
export function withBrief(
  briefing: Promise<Preflight | undefined>,
  next: PrepareStep,
): PrepareStep {
  return async (args) => {
    const preflight = await briefing
    if (!preflight) return next(args)
    const systemMessages = [
      ...args.systemMessages,
      {
        role: 'system' as const,
        content: `A repository brief was prepared for this request before the run started:\n\n${preflight.text}`,
      },
    ]
    return (await next({ ...args, systemMessages })) ?? { systemMessages }
  }
}

/**
 * The workspace's repository as a canonical absolute path, proven to lie inside the workspace
 * root; when the directory is missing (or leads outside), no root and the reason, which the run's
 * workspace tools then give the model instead of failing obscurely.
 */
export async function repositoryOf(
  deps: Pick<RunDeps, 'workspaceRoot' | 'log'>,
  workspace: Pick<Workspace, 'id' | 'path'>,
): Promise<{ root?: string; missing?: string }> {
  try {
    return { root: await repositoryPath(deps.workspaceRoot, workspace.path) }
  } catch (error) {
    const message = errorMessage(error)
    deps.log.warn('workspace directory unavailable for this run', {
      workspaceId: workspace.id,
      path: workspace.path,
      error: message,
    })
    return {
      missing:
        error instanceof PathNotDirectory
          ? Workspaces.missingDirectoryAdvice(workspace.path)
          : `the workspace's path "${workspace.path}" cannot be used: ${message}`,
    }
  }
}

/** A workspace's directory as a canonical absolute path inside the root; throws when it is not. */
export async function repositoryPath(workspaceRoot: string, path: string): Promise<string> {
  return join(workspaceRoot, await resolveInside(workspaceRoot, path))
}

/**
 * The repository brief for the request, built before the first model call. A failure only costs
 * the preflight (it is logged); the run goes on without it.
 */
export async function briefFor(
  root: string,
  query: string,
  deps: RunDeps,
  signal: AbortSignal | undefined,
) {
  if (!query) return undefined
  try {
    const brief = await buildRepoBrief(root, query.slice(0, 500), signal)
    return { brief, text: formatRepoBrief(brief) }
  } catch (error) {
    deps.log.warn('repository brief failed; the run continues without it', {
      error: errorMessage(error),
    })
    return undefined
  }
}
