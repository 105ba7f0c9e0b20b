/**
 * The agent access levels for clients: the lists live in db/agent-enums.ts (the schema's check
 * constraints use them); this module re-exports them without zod, so a UI page that shows a
 * picker does not bundle the validation library (agents.ts builds the schemas from the same lists).
 */
export { BROWSER_ACCESS_LEVELS, WORKSPACE_ACCESS_LEVELS } from '../../db/agent-enums.ts'
