/**
 * The self-update workflow's phases and the states a phase row takes, shared by the schema, the
 * API contract and the UI without importing anything (as task-enums.ts is).
 */
export const WORKFLOW_PHASES = [
  'prepare',
  'research',
  'decide',
  'implement',
  'inspect-change',
  'verify',
  'review',
  'commit',
  // Only when deployment is on in the autonomy settings: it records why it did not deploy.
  'deploy',
] as const
export type WorkflowPhase = (typeof WORKFLOW_PHASES)[number]

/** `skipped`: a no-op decision ended the run before this phase. */
export const PHASE_STATES = ['running', 'completed', 'failed', 'skipped'] as const
export type PhaseState = (typeof PHASE_STATES)[number]
