import { query, revalidate } from '@solidjs/router'
import type {
  CreateScheduleInput,
  PatchScheduleInput,
} from '../../../runtime/contracts/schedules.ts'
import { api, ok } from '../api.ts'

/** Cron schedules, with the server's timezone on each. */
export const getSchedules = query(() => ok(api.schedules.$get()), 'schedules')

/** A schedule's newest occurrences, fired and skipped (the list links it from its skip count). */
export const getScheduleHistory = query(
  (id: string) => ok(api.schedules[':id'].history.$get({ param: { id }, query: {} })),
  'scheduleHistory',
)

export const refreshSchedules = () => revalidate([getSchedules.key, getScheduleHistory.key])

/** The host's reading of a cron expression; not cached, it is asked as the owner types. */
export const previewCron = (cron: string) => ok(api.schedules.preview.$post({ json: { cron } }))

export async function createSchedule(json: CreateScheduleInput) {
  const created = await ok(api.schedules.$post({ json }))
  await refreshSchedules()
  return created
}

export async function patchSchedule(id: string, json: PatchScheduleInput) {
  const saved = await ok(api.schedules[':id'].$patch({ param: { id }, json }))
  await refreshSchedules()
  return saved
}

export async function deleteSchedule(id: string) {
  await ok(api.schedules[':id'].$delete({ param: { id } }))
  await refreshSchedules()
}

/** Queues the schedule's task now; the list then links to it as the last run. */
export async function runSchedule(id: string) {
  const task = await ok(api.schedules[':id'].run.$post({ param: { id } }))
  await refreshSchedules()
  return task
}
