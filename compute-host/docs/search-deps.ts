import type { Logger } from '../log.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import { gatewayEmbedder } from '../recall/embeddings.ts'
import type { DocSearchDeps } from './hybrid-search.ts'

/** Documentation search's dependencies from the host's: its database, and the gateway's embeddings. */
export function docSearchDeps(
  host: { databases: { application: { db: DocSearchDeps['db'] } }; models: GatewayModels },
  log: Logger,
): DocSearchDeps {
  return {
    db: host.databases.application.db,
    log,
    embedderOf: (model) => gatewayEmbedder(host.models, model),
  }
}
