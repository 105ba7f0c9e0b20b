import type { HostResources } from '../resources.ts'
import type { Logger } from '../log.ts'
import type { RunDeps } from './prepare-run.ts'

/** The run path's view of the host's resources, with the caller's logger (a request's, a task's). */
export function runDeps(
  $: Pick<
    HostResources,
    | 'databases'
    | 'workspaceRoot'
    | 'agents'
    | 'config'
    | 'memory'
    | 'redact'
    | 'redactor'
    | 'observers'
  > &
    Partial<
      Pick<
        HostResources,
        'recall' | 'hooks' | 'vault' | 'turnBlobs' | 'observability' | 'approvals'
      >
    >,
  log: Logger,
): RunDeps {
  const { vault, observability } = $
  return {
    db: $.databases.application.db,
    workspaceRoot: $.workspaceRoot,
    agents: $.agents,
    config: $.config,
    memory: $.memory,
    log,
    redact: $.redact,
    redactor: $.redactor,
    observers: $.observers.run,
    ...($.recall && { recall: $.recall }),
    ...($.hooks && { hooks: $.hooks }),
    ...($.approvals && { approvals: $.approvals }),
    ...(vault && { vault }),
    ...($.turnBlobs && { turnBlobs: $.turnBlobs }),
    ...(observability && { prices: () => observability.prices.current() }),
  }
}
