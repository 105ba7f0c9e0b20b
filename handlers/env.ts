import type { Db } from '../db/index.ts'
import type { EdgeConfig } from './config.ts'
import type { HostClient } from './host-client.ts'

/**
 * Per-request dependencies. The entry file (Node or Workers) sets `config`, `db` and
 * `observabilityDb`; the app's own middleware adds `requestId` and `host`. Routes only read them.
 */
export type AppEnv = {
  Variables: {
    config: EdgeConfig
    db: Db
    observabilityDb: Db
    host: HostClient
    requestId: string
  }
}
