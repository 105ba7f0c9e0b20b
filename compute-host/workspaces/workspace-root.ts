import { constants } from 'node:fs'
import { open, realpath } from 'node:fs/promises'
import { ConfigError } from '../env.ts'
import { lstatOrCreatePrivate } from '../private-directory.ts'

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants

/**
 * POPAGENT_WORKSPACE_ROOT, made private to the user running popagent: mode 0700, so no other
 * local user can enter a repository below it. A program the agents built there, or a file a
 * sandboxed command made executable, is then runnable only by popagent's own user. This is the
 * second layer under the sandbox's seccomp filter, which refuses set-user-ID and set-group-ID
 * files; it also keeps other users from reading the repositories at all.
 *
 * The rule, on every start:
 *
 * - Missing: created 0700 (its missing parents with the usual modes).
 * - Ours, readable or enterable by others (a `mkdir` under umask 022 gives 0755): tightened to
 *   0700 through a descriptor of the directory, never following a link. It is popagent's
 *   workspace, so this is the owner's setting being completed, not a choice taken from them.
 * - Writable by group or others, or owned by another user: refused, naming the fix. Whoever can
 *   write it may have replaced a repository (a link where a repository was), and a chmod would
 *   hide that; only the owner can judge. A root another user owns stays theirs to change
 *   (`chown`), which is also what a container running as root needs for a bind-mounted
 *   directory of the host's user.
 *
 * Answers the canonical path, and the mode it had when it was tightened (for the start's log).
 */
export async function secureWorkspaceRoot(
  path: string,
): Promise<{ root: string; tightenedFrom?: string }> {
  const own = await lstatOrCreatePrivate(path)
  const uid = process.getuid?.()
  if (own.isSymbolicLink() && uid !== undefined && own.uid !== uid) {
    throw refusal(
      path,
      `it is a symbolic link owned by uid ${own.uid}, not by you (uid ${uid}), who could point it anywhere; remove it or set POPAGENT_WORKSPACE_ROOT to a directory you own`,
    )
  }
  const root = await realpath(path)
  const directory = await open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOTDIR') throw refusal(path, 'it is not a directory')
      throw error
    },
  )
  try {
    const found = await directory.stat()
    const mode = (found.mode & 0o7777).toString(8).padStart(4, '0')
    if (uid !== undefined && found.uid !== uid) {
      throw refusal(
        path,
        `it belongs to uid ${found.uid}, not to you (uid ${uid}); if it is yours to use, run chown ${uid} ${root} (and chmod 700 ${root}), otherwise set POPAGENT_WORKSPACE_ROOT to a directory you own`,
      )
    }
    if ((found.mode & 0o022) !== 0) {
      throw refusal(
        path,
        `its mode is ${mode}, so other users can write into it and may have replaced a repository; if nobody else could have, run chmod 700 ${root}`,
      )
    }
    if ((found.mode & 0o077) === 0) return { root }
    await directory.chmod(found.mode & 0o700)
    return { root, tightenedFrom: mode }
  } finally {
    await directory.close()
  }
}

function refusal(path: string, why: string) {
  return new ConfigError(`refusing the workspace root ${path}: ${why}`)
}
