import { spawnSync } from 'node:child_process'

/**
 * Why bubblewrap cannot build popagent's kind of sandbox on this machine (with the install
 * command), or false when it can. Tests of what the sandbox refuses skip on this, not on the
 * start-up self-test: a self-test failed by the very fault under test would turn that test's
 * failure into a skip.
 */
export function bubblewrapMissing(): string | false {
  const tried = spawnSync(
    'bwrap',
    ['--unshare-all', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL'].concat([
      '--ro-bind',
      '/',
      '/',
      'true',
    ]),
    { encoding: 'utf8' },
  )
  if (tried.status === 0) return false
  const why = (tried.error?.message ?? tried.stderr ?? '').trim().slice(0, 200)
  return `bubblewrap 0.8 or later with user namespaces is needed (${why}); apt install bubblewrap`
}
