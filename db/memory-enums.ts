/**
 * Who wrote a long-term memory and what a recall item is, free of any import: the Drizzle schema
 * (its check constraints), the wire contracts and the UI share these lists.
 */

/** `user`: written by the owner through the API; `agent` and `evolution`: keyed facts. */
export const MEMORY_OWNERS = ['user', 'agent', 'evolution'] as const
export type MemoryOwner = (typeof MEMORY_OWNERS)[number]

/** What recall can inject: a memory, or a span of another session (question and answer). */
export const RECALL_KINDS = ['user_memory', 'agent_fact', 'message_span'] as const
export type RecallKind = (typeof RECALL_KINDS)[number]

/** Who is asking for a change: the owner, an agent's tool, or an automatic process. */
export const MEMORY_ACTORS = ['user', 'agent', 'evolution', 'retention'] as const
export type MemoryActor = (typeof MEMORY_ACTORS)[number]

export const MEMORY_CONTENT_MAX = 2_000
/** `agent` fact keys; `evolution` keys are `evolution.<agent-id>.<key>`. */
export const FACT_KEY_PATTERN = '^[a-z0-9][a-z0-9._-]{0,127}$'
export const EVOLUTION_KEY_PATTERN = '^evolution\\.[a-z0-9-]{1,64}\\.[a-z0-9][a-z0-9._-]{0,127}$'
