import type { HostResources } from '../resources.ts'
import type { Logger } from '../log.ts'
import { runDeps } from '../runs/run-deps.ts'
import { createChannelDirectory } from './directory.ts'
import { createOutbox } from './outbox/engine.ts'
import { createPoller } from './poller.ts'
import { createChannelService } from './service.ts'
import { taskDeliveries } from './task-deliveries.ts'

/**
 * The channel room as the host holds it: the service (inbound events, turns, commands) and the
 * outbox engine, built over the finished resources and started by compute-host/engines.ts;
 * `stop` ends the outbox after the turns (live turns close first, so their answers are queued).
 */
export function startChannels($: Omit<HostResources, 'channels'>, log: Logger) {
  const db = $.databases.application.db
  const directory = createChannelDirectory({ db, vault: $.vault })
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
  })
  const poller = createPoller({ db, directory, service, log: log.child({ component: 'poller' }) })
  // Task results go back to the conversation that asked with `/task`.
  const forgetTasks = $.observers.addTaskObserver(
    taskDeliveries({ db, reply: (id, binding, text) => service.replyTo(id, binding, text) }),
  )
  outbox.start()
  poller.start()
  return {
    service,
    outbox,
    async stop(): Promise<void> {
      forgetTasks()
      await poller.stop()
      await service.close()
      await outbox.stop()
    },
  }
}
export type Channels = ReturnType<typeof startChannels>
