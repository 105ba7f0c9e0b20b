/**
 * The memory enumerations for clients: the lists live in db/memory-enums.ts (beside the schema's
 * check constraints); this module re-exports them without zod for the UI's pickers.
 */
export { MEMORY_OWNERS, type MemoryOwner } from '../../db/memory-enums.ts'
