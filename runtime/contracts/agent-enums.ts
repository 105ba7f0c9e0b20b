/**
 * The agent enumerations for clients: the lists live in db/agent-enums.ts (beside the schema's
 * check constraints); this module re-exports them without zod, so a UI page that shows a picker
 * does not bundle the validation library (agents.ts and settings.ts build their schemas from them).
 */
export {
  BROWSER_ACCESS_LEVELS,
  MODEL_SOURCES,
  WORKSPACE_ACCESS_LEVELS,
} from '../../db/agent-enums.ts'
