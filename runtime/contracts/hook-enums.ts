/**
 * The hook enumerations for clients: the lists live in db/hook-enums.ts (beside the schema's
 * check constraints); re-exported here without zod, so a UI page does not bundle the validator.
 */
export { HOOK_EVENTS, HOOK_KINDS } from '../../db/hook-enums.ts'
