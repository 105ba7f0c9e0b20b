import { AppError } from '../errors.ts'

export const DocNotFound = AppError.define(
  'DOC_NOT_FOUND',
  404,
  'no such document in this workspace',
)
export const DocSlugTaken = AppError.define(
  'DOC_SLUG_TAKEN',
  409,
  'another document of this workspace has this slug',
)
