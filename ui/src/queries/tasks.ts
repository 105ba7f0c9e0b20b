import { query, revalidate } from '@solidjs/router'
import type { CreateTaskInput, TaskState } from '../../../runtime/contracts/tasks.ts'
import { api, ok } from '../api.ts'

/** Background tasks: the list (optionally one state), one task's workflow, and its actions. */
export const getTasks = query(
  (state?: TaskState) => ok(api.tasks.$get({ query: state ? { state } : {} })),
  'tasks',
)

export const getTaskWorkflow = query(
  (id: string) => ok(api.tasks[':id'].workflow.$get({ param: { id } })),
  'task-workflow',
)

/** What a build-maintenance task recorded (branch, CI run, issue, comment, checkout, commit). */
export const getTaskBuildEvidence = query(
  (id: string) => ok(api.tasks[':id']['build-evidence'].$get({ param: { id } })),
  'task-build-evidence',
)

export const refreshTasks = () => revalidate(getTasks.key)

/** A task's action changes it and the lists it appears in (state, resolved mark). */
export const staleAfterTaskChange = (id: string) => [
  getTasks.key,
  getTaskWorkflow.keyFor(id),
  getTaskBuildEvidence.keyFor(id),
]

export const refreshTask = (id: string) => revalidate(staleAfterTaskChange(id))

export async function createTask(json: CreateTaskInput) {
  const created = await ok(api.tasks.$post({ json }))
  await refreshTasks()
  return created
}

export async function cancelTask(id: string) {
  await ok(api.tasks[':id'].cancel.$post({ param: { id } }))
  await refreshTask(id)
}

export async function resolveTask(id: string, evidence: string) {
  await ok(api.tasks[':id'].resolve.$post({ param: { id }, json: { evidence } }))
  await refreshTask(id)
}

/** A new task with a finished one's prompt and settings; the page moves to it. */
export async function retryTask(id: string) {
  const created = await ok(api.tasks[':id'].retry.$post({ param: { id } }))
  await refreshTasks()
  return created
}

/** The task page leaves for the list, which must not show the deleted task. */
export async function deleteTask(id: string) {
  await ok(api.tasks[':id'].$delete({ param: { id } }))
  await refreshTasks()
}
