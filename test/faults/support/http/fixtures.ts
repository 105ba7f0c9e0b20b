/**
 * Rows for the bad-input and auth tests to aim at: a session, a task, a schedule and a skill
 * that exist, so well-formed requests reach the database instead of stopping at a 404. Created
 * through the API itself, with the key.
 */
import assert from 'node:assert/strict'

export type Fixtures = { session: string; task: string; schedule: string; skill: string }

export async function createFixtures(
  url: string,
  headers: Record<string, string>,
): Promise<Fixtures> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const text = await res.text()
    assert.ok(res.status < 300, `${path}: ${res.status} ${text}`)
    return (JSON.parse(text) as { id: string }).id
  }
  const workspaceId = 'wsp_default'
  return {
    session: await post('/api/sessions', { workspaceId }),
    task: await post('/api/tasks', { workspaceId, prompt: 'fault fixture task' }),
    schedule: await post('/api/schedules', {
      workspaceId,
      name: 'fault fixture',
      cron: '0 0 1 1 *',
      prompt: 'fault fixture schedule',
      enabled: false,
    }),
    skill: await post('/api/agents/orchistrator/skills', {
      name: 'fault-fixture',
      description: 'a skill the fault suite aims at',
      instructions: 'do nothing',
    }),
  }
}

/**
 * Path parameters for one route: rows that exist (`real`) or well-formed ids that name nothing.
 * DELETE routes get the latter, so the fixtures survive the run.
 */
export function paramsFor(path: string, method: string, f: Fixtures): Record<string, string> {
  const real = method !== 'DELETE'
  const none = (prefix: string) => `${prefix}_00000000000000000000000000`
  const resource = path.split('/')[2]
  switch (resource) {
    case 'sessions':
      return { id: real ? f.session : none('ses') }
    case 'tasks':
      return { id: real ? f.task : none('tsk') }
    case 'schedules':
      return { id: real ? f.schedule : none('sch') }
    case 'workspaces':
      return { id: real ? 'wsp_default' : 'wsp_no-such-workspace' }
    case 'agents':
      return { id: 'orchistrator', skillId: real ? f.skill : none('skl') }
    default:
      return {}
  }
}
