import type { HostResources } from '../resources.ts'
import { decideProposal } from '../evolution/channel-review.ts'
import type { Logger } from '../log.ts'
import { runDeps } from '../runs/run-deps.ts'
import { createChannelDirectory } from './directory.ts'
import { createOutbox } from './outbox/engine.ts'
import { createPoller } from './poller.ts'
import { createChannelService } from './service.ts'
import { createTaskDeliveries } from './task-deliveries.ts'

/** How often finished tasks' deliveries left pending (a host died before posting) are queued. */
const DELIVERY_SWEEP_MS = 60_000

/**
 * The channel room as the host holds it: the service (inbound events, turns, commands) and the
 * outbox engine, built over the finished resources and started by compute-host/engines.ts;
 * `stop` ends the outbox after the turns (live turns close first, so their answers are queued).
 */
export function startChannels($: Omit<HostResources, 'channels'>, log: Logger) {
  const db = $.databases.application.db
  const directory = createChannelDirectory({
    db,
    vault: $.vault,
    paceScale: $.env.POPAGENT_CHANNEL_PACE_SCALE,
  })
  const outbox = createOutbox({
    db,
    directory,
    log: log.child({ component: 'outbox' }),
    leaseMs: $.env.POPAGENT_OUTBOX_LEASE_MS,
  })
  const service = createChannelService({
    db,
    directory,
    outbox,
    liveTurns: $.liveTurns,
    run: () => runDeps($, log),
    redact: $.redact,
    log,
    // An approve or reject button on an evolution proposal's question: the web's own path.
    decideProposal: (id, decision, by) =>
      decideProposal({ db, vault: $.vault, redact: $.redact }, id, decision, by),
  })
  const poller = createPoller({ db, directory, service, log: log.child({ component: 'poller' }) })
  // Task results go to the conversation the task names (the API, a schedule, or `/task`).
  const deliveries = createTaskDeliveries({
    db,
    directory,
    outbox,
    redact: $.redact,
    log: log.child({ component: 'task-deliveries' }),
  })
  const forgetTasks = $.observers.addTaskObserver(deliveries.observer)
  outbox.start()
  poller.start()
  // The sweep runs at start (what a host killed between a task's end and its post left) and then
  // periodically (what an observer that failed left).
  let sweeping: Promise<unknown> = Promise.resolve()
  const sweep = () => {
    sweeping = sweeping
      .then(() => deliveries.sweep())
      .catch((error: unknown) => log.warn('task delivery sweep failed', { error: String(error) }))
  }
  sweep()
  const sweepTimer = setInterval(sweep, DELIVERY_SWEEP_MS)
  sweepTimer.unref()
  return {
    service,
    outbox,
    async stop(): Promise<void> {
      forgetTasks()
      clearInterval(sweepTimer)
      await sweeping
      await poller.stop()
      await service.close()
      await outbox.stop()
    },
  }
}
export type Channels = ReturnType<typeof startChannels>
