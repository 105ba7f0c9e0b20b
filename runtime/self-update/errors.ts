import { AppError } from '../errors.ts'

// The self-update refusals (issue 24). Each is final for its attempt: retrying the same input
// meets the same rule, so the runner records them as containment or validation failures.

export const CheckoutDirty = AppError.define(
  'CHECKOUT_DIRTY',
  409,
  'the repository has uncommitted or untracked changes; self-update works only from a clean checkout',
)
export const CheckoutUnusable = AppError.define(
  'CHECKOUT_UNUSABLE',
  409,
  'the repository cannot be used for self-update',
)
export const SelfUpdateBranchInvalid = AppError.define(
  'SELF_UPDATE_BRANCH_INVALID',
  400,
  'a self-update branch is autonomous/self-update/<task id>',
)
export const PatchLimitExceeded = AppError.define(
  'PATCH_LIMIT_EXCEEDED',
  422,
  'the change is larger than a self-update may make',
)
export const PatchPolicyRefused = AppError.define(
  'PATCH_POLICY_REFUSED',
  403,
  'the change touches something self-update may not change',
)
export const ToolPolicyRefused = AppError.define(
  'TOOL_POLICY_REFUSED',
  403,
  'self-update agents may not use this tool',
)
export const CommandPolicyRefused = AppError.define(
  'COMMAND_POLICY_REFUSED',
  403,
  'self-update never runs a remote, publish or deploy step',
)
export const ReviewDigestMismatch = AppError.define(
  'REVIEW_DIGEST_MISMATCH',
  409,
  'the reviewer did not echo the digest of the patch it was shown',
)
export const ReviewNotApproved = AppError.define(
  'REVIEW_NOT_APPROVED',
  409,
  'the review did not approve the change',
)
export const PatchChangedAfterReview = AppError.define(
  'PATCH_CHANGED_AFTER_REVIEW',
  409,
  'the change is no longer the one that was reviewed',
)
export const ImportRefused = AppError.define(
  'SELF_UPDATE_IMPORT_REFUSED',
  409,
  'the reviewed change could not be imported into the repository',
)
