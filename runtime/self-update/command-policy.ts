import { CommandPolicyRefused } from './errors.ts'

// Programs whose whole purpose is to reach another machine or ship something.
const NETWORK_PROGRAMS = new Set(
  (
    'curl wget ssh scp sftp rsync nc ncat telnet ftp gh hub wrangler vercel netlify ' +
    'fly flyctl heroku firebase kubectl helm terraform pulumi ansible ' +
    'ansible-playbook aws gcloud az twine npx'
  ).split(' '),
)
const GIT_REMOTE = new Set(
  (
    'push fetch pull clone remote submodule ls-remote send-email request-pull daemon ' +
    'svn p4 archive'
  ).split(' '),
)
const SHIPPING_WORD = /^(deploy|publish|release|upload|login|adduser|push)(\b|[:_-]|$)/i

/**
 * Verify runs only the repository's configured checks, and this refuses any of them that would
 * reach a remote, publish or deploy: whatever the configuration says, self-update never ships.
 * Every word is looked at, including those inside a `sh -c` script, so wrapping does not hide one.
 */
export function refuseCommand(argv: readonly string[]): void {
  const words = argv.flatMap((arg) => arg.split(/[\s;&|()`'"$<>]+/)).filter(Boolean)
  const programs = new Set(words.map((word) => word.split('/').pop()!))
  const found =
    [...programs].find((p) => NETWORK_PROGRAMS.has(p)) ??
    (programs.has('git') ? words.find((w) => GIT_REMOTE.has(w)) : undefined) ??
    words.find((w) => SHIPPING_WORD.test(w.replace(/^--?/, '')))
  if (found === undefined) return
  throw new CommandPolicyRefused(
    { argv, word: found },
    {
      message: `self-update refuses ${JSON.stringify(argv.join(' '))}: ${found} reaches a remote, publishes or deploys`,
    },
  )
}
