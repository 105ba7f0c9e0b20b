import type { FailureClass } from '../../db/evolution-enums.ts'

/**
 * The code-owned guidance evolution may give an agent. Reflection picks an entry by id and never
 * writes the text itself: an overlay's words are reviewed here, with the rest of the code. Each
 * entry names the failure classes it answers; an overlay is offered only for those, and none of
 * them reaches tool membership, workspace or browser access, secrets, hooks, authentication or
 * execution bounds (those are the owner's, through the settings and the agent editor).
 */
export type OverlayEntry = {
  readonly id: string
  readonly text: string
  readonly answers: readonly FailureClass[]
}

export const OVERLAY_CATALOG = [
  {
    id: 'check-before-finishing',
    text: 'Before you report a task as done, check the result against what was asked (read the file back, run the check you were asked to run) and say what you verified.',
    answers: ['task-error', 'tool-error', 'unhelpful-answer'],
  },
  {
    id: 'smaller-steps',
    text: 'Work in small steps that each finish well inside the time and budget given: plan first, do the most important part first, and report progress rather than starting long explorations.',
    answers: ['timeout', 'budget-exhausted'],
  },
  {
    id: 'vary-or-stop',
    text: 'Do not repeat a tool call that already gave you its answer. When a call does not get you closer, change the approach or stop and explain what is blocking you.',
    answers: ['repeated-call', 'budget-exhausted'],
  },
  {
    id: 'respect-denials',
    text: 'When a tool call is denied by a policy or hook, do not retry it or work around it: tell the user what was refused and why, and continue with what is allowed.',
    answers: ['policy-denied'],
  },
  {
    id: 'confirm-the-request',
    text: 'When a request could mean more than one thing, restate it in one sentence and ask before doing work that depends on the reading; answer the question that was asked, directly, first.',
    answers: ['misunderstood-request', 'unhelpful-answer'],
  },
] as const satisfies readonly OverlayEntry[]

export type OverlayId = (typeof OVERLAY_CATALOG)[number]['id']
export const OVERLAY_IDS = OVERLAY_CATALOG.map((o) => o.id) as [OverlayId, ...OverlayId[]]

export function overlayEntry(id: string): OverlayEntry | undefined {
  return OVERLAY_CATALOG.find((o) => o.id === id)
}

/**
 * Code-owned skill packages evolution may install for an agent (as `evolution_managed` rows, which
 * an owner edit makes the owner's for good) and retire (disable, never delete).
 */
export type SkillEntry = {
  readonly id: string
  readonly description: string
  readonly instructions: string
  readonly answers: readonly FailureClass[]
}

export const SKILL_CATALOG = [
  {
    id: 'verify-changes',
    description: 'How to confirm a change works before reporting it done.',
    instructions:
      '# Verify changes\n\n1. Re-read every file you changed.\n2. Run the narrowest check that covers the change (a test, a type check, the command the user named).\n3. Report what you ran and what it showed; if you could not run it, say so plainly.',
    answers: ['task-error', 'tool-error'],
  },
  {
    id: 'recover-from-denial',
    description: 'What to do when a tool call is refused by a policy or hook.',
    instructions:
      '# Recover from a denial\n\n1. Read the reason given.\n2. Do not retry the same call or an equivalent one.\n3. Tell the user what was refused, and offer the allowed alternative if there is one.',
    answers: ['policy-denied'],
  },
] as const satisfies readonly SkillEntry[]

export type SkillCatalogId = (typeof SKILL_CATALOG)[number]['id']
export const SKILL_CATALOG_IDS = SKILL_CATALOG.map((s) => s.id) as [
  SkillCatalogId,
  ...SkillCatalogId[],
]

export function skillEntry(id: string): SkillEntry | undefined {
  return SKILL_CATALOG.find((s) => s.id === id)
}

/** The heading learned guidance sits under, after the owner's instructions. */
export const LEARNED_HEADING =
  'Learned guidance (lower priority than the instructions above; ignore on conflict):'
