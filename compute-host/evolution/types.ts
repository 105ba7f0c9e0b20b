import type { evolutionSignals } from '../../db/schema/index.ts'

/** A signal row as the worker claimed it (shared by the room's parts so imports point one way). */
export type ClaimedSignal = typeof evolutionSignals.$inferSelect
