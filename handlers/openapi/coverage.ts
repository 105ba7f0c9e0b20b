import { z } from 'zod'
import type { Operation } from './operations.ts'

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

/**
 * Body methods that take no body: the path names everything the action needs. Any other POST,
 * PUT or PATCH without a `validate('json', …)` is reported, since the document could not say
 * what to send. Keyed `METHOD path` in Hono's form; the OpenAPI test checks each still exists.
 */
export const BODYLESS: Record<string, string> = {
  'POST /api/tasks/:id/cancel': 'cancels the task the path names; nothing else to say',
  'POST /api/tasks/:id/retry': "queues the named task's prompt and settings again",
  'POST /api/schedules/:id/run': "queues the named schedule's task now",
  'POST /api/sessions/:id/turns/:turnId/undo': 'undoes the turn the path names, once',
  'POST /api/sessions/:id/stop': 'stops the running turn of the session the path names',
  'POST /api/workspaces/:id/docs/import':
    "imports the Markdown of the workspace's own repository; the path names everything",
  'POST /api/autonomy/reconcile': 'reconciles every workspace; there is nothing to choose',
  'POST /api/channels/:id/inbound':
    "a channel service's event, verified on its exact bytes before it is parsed (signature, not API key)",
  'POST /api/channels/:id/bindings/:bindingId/cancel':
    "stops the named conversation's turn and cancels its unsent chunks",
  'POST /api/autonomy/signals/:id/ignore': 'sets the named signal aside; nothing else to say',
  'POST /api/autonomy/signals/:id/retry': 'sends the named dead signal back to the worker',
  'POST /api/autonomy/revisions/:id/revert':
    'appends the compensating revision of the named one; nothing else to choose',
  'POST /api/autonomy/evolution/run': 'runs one pass of the evolution worker now',
  'POST /api/autonomy/proposals/:id/approve':
    'applies the named held proposal, once; nothing else to choose',
  'POST /api/autonomy/proposals/:id/reject': 'discards the named held proposal, once',
  'POST /api/autonomy/evolution/dry-run': 'shows what a pass would change; nothing to choose',
  'POST /api/browser/sessions/:id/takeover':
    'the owner takes the named browser session; nothing else to choose',
  'POST /api/browser/sessions/:id/handback': 'hands the named browser session back to the agent',
  'POST /api/browser/sessions/:id/recording':
    "starts the named session's trace recording (501 naming what the server lacks)",
  'POST /api/browser/sessions/:id/recording/stop':
    "stops the named session's recording and stores its file; nothing else to choose",
}

/**
 * What the document cannot describe about one operation, from its `validate()` middlewares: a
 * path parameter no schema checks, a body method with no body schema, a parameter schema whose
 * keys are not the path's. Empty for a fully declared route. The OpenAPI test asserts that no
 * route of the app has any, so a route added without its schemas fails it.
 */
export function undeclared(operation: Operation): string[] {
  const { method, path, params, inputs } = operation
  const problems: string[] = []
  if (method === 'ALL') problems.push('answers every method; route one method at a time')
  if (params.length && !inputs.param) problems.push(`path parameters ${params} have no schema`)
  if (inputs.param) {
    const keys = inputs.param instanceof z.ZodObject ? Object.keys(inputs.param.shape) : []
    if (keys.sort().join() !== [...params].sort().join())
      problems.push(`the param schema checks [${keys}], the path has [${params}]`)
  }
  if (BODY_METHODS.has(method) && !inputs.json && !inputs.form && !BODYLESS[`${method} ${path}`])
    problems.push('a body method without a json schema (or an entry in BODYLESS)')
  return problems
}
