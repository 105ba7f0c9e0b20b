import { isId } from '../ids.ts'
import { SelfUpdateBranchInvalid } from './errors.ts'

const PREFIX = 'autonomous/self-update/'
// Generated task ids only: seeded, readable ids never name a self-update branch.
const BRANCH = /^autonomous\/self-update\/tsk_[0-9A-HJKMNP-TV-Z]{26}$/

/**
 * The branch (in the clone) and the local ref (in the owner's repository) a self-update task
 * writes. The name is checked rather than trusted so that nothing but a task id, which cannot hold
 * `..`, `@{` or a leading dash, ever reaches git as a ref name.
 */
export function selfUpdateBranch(taskId: string): string {
  const branch = PREFIX + taskId
  if (!isId('task', taskId) || !BRANCH.test(branch)) {
    throw new SelfUpdateBranchInvalid({ taskId })
  }
  return branch
}

export function selfUpdateRef(taskId: string): string {
  return `refs/heads/${selfUpdateBranch(taskId)}`
}
