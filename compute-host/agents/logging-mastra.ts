import type { MastraLogger } from '@mastra/core/logger'
import { Mastra } from '@mastra/core/mastra'
import { InMemoryStore } from '@mastra/core/storage'

/**
 * A Mastra instance whose only job is to carry the host's logger to what Mastra builds on its
 * own. Observational Memory creates its Observer and Reflector agents per call and gives them
 * nothing but its registered Mastra; without one they log through Mastra's console logger, which
 * printed failed provider calls whole (request bodies, prompts, unredacted error messages) to
 * stderr. Registered on the memory of a run, never on the run's own agents, whose storage and
 * behaviour stay as they were.
 *
 * The in-memory store is what Mastra would create for a standalone agent anyway. `__ephemeral`
 * keeps the instance off Mastra's module-level scorer hook (popagent uses no scorers), so a
 * stopped host's instance is not retained for the life of the process.
 */
export function createLoggingMastra(logger: MastraLogger): Mastra {
  return new Mastra({ logger, storage: new InMemoryStore(), __ephemeral: true })
}
