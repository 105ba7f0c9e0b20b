import { RequestContext } from '@mastra/core/request-context'
import type { AgentRuntimeSettings } from '../../runtime/contracts/settings.ts'
import { ConfigurationError } from '../../runtime/errors.ts'

/**
 * What one execution carries through the supervisor and every specialist it delegates to: the
 * model route the request selected (or the persisted default, resolved once at the start) and one
 * snapshot of the agent-runtime settings, so a settings edit mid-run cannot split a run in two.
 */
export type RunContextValues = {
  modelRoute: string
  settings: AgentRuntimeSettings
  /** The run's repository (canonical absolute path), when it has one. */
  workspaceRoot?: string
  /** The run's registered workspace: what `docs-search` is filtered to, never a model argument. */
  workspaceId?: string
  /** Which run this is, for what a tool records with provenance (a retained fact). */
  run?: { sessionId?: string; turnId: string; taskId?: string }
}

export type RunContext = RequestContext<RunContextValues>

export function createRunContext(values: RunContextValues): RunContext {
  const context = new RequestContext<RunContextValues>()
  context.set('modelRoute', values.modelRoute)
  context.set('settings', values.settings)
  if (values.workspaceRoot) context.set('workspaceRoot', values.workspaceRoot)
  if (values.workspaceId) context.set('workspaceId', values.workspaceId)
  if (values.run) context.set('run', values.run)
  return context
}

/**
 * The run's model route. A missing route is a wiring bug, and falling back to the server default
 * here would silently send a specialist to a different model than the request chose.
 */
export function modelRouteOf(context: RunContext): string {
  const route = context.get('modelRoute')
  if (typeof route !== 'string' || route.length === 0) {
    throw new ConfigurationError(undefined, {
      message: 'this run has no model route in its request context',
    })
  }
  return route
}
