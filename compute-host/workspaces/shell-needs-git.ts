import { existsSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The shell keeps a repository's `.git` read-only by binding it over itself (sandbox-args.ts).
 * Where there is no `.git` to bind, a command could create one — `git init`, a `core.fsmonitor`
 * in `.git/config`, hooks — and the owner's next `git status` there would run it outside any
 * sandbox. So a workspace without `.git` gets no shell; the file tools, which refuse every write
 * through a `.git` component, still work. `existsSync` follows links: a dangling `.git` link
 * counts as missing, since bubblewrap skips binding it.
 */
export function shellRefusalFor(root: string): string | undefined {
  if (existsSync(join(root, '.git'))) return undefined
  return (
    'this workspace is not a Git repository, and the shell only runs where .git can be kept ' +
    "read-only: a .git the shell created would run on the owner's next git command; " +
    'make it a repository outside popagent (git init) to get the shell'
  )
}
