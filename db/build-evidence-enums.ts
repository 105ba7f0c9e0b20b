/**
 * The kinds of evidence a `build-maintenance` task records (db/schema/build-evidence.ts), shared
 * by the schema, the API contract and the UI without importing anything.
 */
export const BUILD_EVIDENCE_KINDS = [
  'checkout',
  'delegation',
  'branch',
  'ci-run',
  'issue',
  'comment',
  'commit',
] as const
export type BuildEvidenceKind = (typeof BUILD_EVIDENCE_KINDS)[number]
