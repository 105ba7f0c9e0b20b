import type { Logger } from '../log.ts'
import type { GatewayModels } from '../models/gateway-models.ts'
import { gatewayEmbedder } from '../recall/embeddings.ts'
import type { DocSearchDeps } from './hybrid-search.ts'
import { createLocalReranker } from './rerank.ts'

/** Documentation search's dependencies from the host's: its database, and the gateway's embeddings. */
export function docSearchDeps(
  host: {
    databases: { application: { db: DocSearchDeps['db'] } }
    models: GatewayModels
    localModels: { isLocal: (modelId: string) => boolean }
  },
  log: Logger,
): DocSearchDeps {
  return {
    db: host.databases.application.db,
    log,
    embedderOf: (model) => gatewayEmbedder(host.models, model),
    rerank: { with: createLocalReranker(host.models), isLocal: host.localModels.isLocal },
  }
}
