import { serverApi } from '../server-api.ts'
import { errorMessage } from '../../runtime/error-message.ts'

/**
 * `popagent repo-brief <workspace> <query>`: prints the repository brief of a registered workspace
 * (by id or name) from a running popagent, through the same HTTP route the UI uses
 * (POPAGENT_URL, default http://127.0.0.1:$PORT; the API key as cli/server-api.ts finds it).
 */
export async function repoBrief(env: Record<string, string | undefined>, args: string[]) {
  const [workspace, ...words] = args
  const query = words.join(' ').trim()
  if (!workspace || !query) {
    console.error('usage: popagent repo-brief <workspace id or name> <query>')
    process.exitCode = 2
    return
  }
  const { api, ok } = serverApi(env)
  try {
    const { workspaces } = await ok(api.workspaces.$get())
    const match = workspaces.find((w) => w.id === workspace || w.name === workspace)
    if (!match) throw new Error(`no workspace with the id or name "${workspace}"`)
    const { text } = await ok(
      api.workspaces[':id']['repo-brief'].$get({ param: { id: match.id }, query: { q: query } }),
    )
    process.stdout.write(text)
  } catch (error) {
    // Operator-facing: the reason, no stack.
    console.error(`popagent repo-brief: ${errorMessage(error)}`)
    process.exitCode = 1
  }
}
