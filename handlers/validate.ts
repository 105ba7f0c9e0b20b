/**
 * The edge validates with the same `validate()` as the compute host (runtime/validate.ts); routes
 * and the fault suite keep importing it from here.
 */
export {
  fieldErrors,
  MAX_JSON_DEPTH,
  validate,
  VALIDATION,
  validationOf,
  type Validation,
} from '../runtime/validate.ts'
