/**
 * A hostile repository tries to run code outside the sandbox, or to keep privileges inside it.
 *
 * 1. Booby-trapped `node_modules` (a TypeScript 7 manifest whose bin is a payload, a planted
 *    `lib/tsserver.js` that makes Mastra pick `.bin/typescript-language-server`, payload scripts
 *    for every server Mastra looks up in `.bin`, and a tsserver plugin named in tsconfig). Both
 *    the read-only researcher and the implementer call `lsp-inspect` in real turns. No payload's
 *    marker may appear, the answers still come from popagent's own TypeScript, and the server
 *    process seen from the host lives in another network namespace with no capability.
 * 2. The implementer's shell, in a real turn: no effective capability (this matters when the
 *    suite runs as root, as CI does), a read-only bind cannot be remounted, no nested user
 *    namespace, and `.git` cannot be written (a `core.fsmonitor` planted there would run on the
 *    owner's next `git status`). A control runs the same probes in Mastra's default bubblewrap
 *    profile; as root it keeps every capability, which is what the test proves it can catch.
 * 3. The implementer's shell, in a real turn, tries every way to leave a set-user-ID or
 *    set-group-ID file (or a file capability) in the repository (test/support/setuid-probes.ts:
 *    `cp /bin/sh helper && chmod 6755 helper`, install -m 4755, open with O_CREAT and 04755,
 *    mknod, openat2, x32, io_uring, setxattr). `find -perm /6000` on the host must find
 *    nothing. Mastra's default profile, the control, lets them through.
 * 4. The implementer's shell, in a real turn, turns a checked-out submodule's `.git` link into a
 *    repository of its own whose configuration and attributes name a `clean` filter. popagent then
 *    reads the checkout as self-update's reconcile does, on the host: the filter must not run. A
 *    control runs the `git status` the old code ran, and the filter does run there.
 *
 * 5. A vault secret bound to a command hook, run through the real API: while the hook runs, no
 *    process's command line (`/proc/<pid>/cmdline`, `ps -eo args`), which every local user can read,
 *    holds it; the hook still gets it in its environment.
 *
 * Skipped, with the reason, where bubblewrap cannot run.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { LocalSandbox } from '@mastra/core/workspace'
import { readCheckout } from '../../compute-host/self-update/checkout-state.ts'
import { hostGit, neutralFilters } from '../../compute-host/self-update/host-git.ts'
import { checkSandbox } from '../../compute-host/workspaces/sandbox-check.ts'
import { createSession, createWorkspace } from '../support/api-fixtures.ts'
import { markRoles, postChat, roleOf, toolResultsOf } from '../support/chat.ts'
import { startTestStack } from '../support/stack.ts'
import { okJson, typedClient } from '../support/typed-client.ts'
import { readUiStream } from '../support/ui-stream.ts'
import { setuidProbes, wrongStatuses } from '../support/setuid-probes.ts'
import { recordFigures } from './mode.ts'
import { probeThroughAgentTurn } from './support/process-faults/agent-shell-turn.ts'
import type { Probe } from './support/process-faults/network-probes.ts'

const sandboxStatus = await checkSandbox()
const skip = !sandboxStatus.available && sandboxStatus.reason

test(
  'a booby-trapped node_modules never runs: the language server is popagent’s, in the sandbox',
  { skip, timeout: 180_000 },
  async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-lsp-')))
    const markers = join(dir, 'markers')
    await mkdir(markers)
    const root = join(dir, 'root')
    await plantRepository(join(root, 'ts7'), markers, 'ts7')
    await plantRepository(join(root, 'ts5'), markers, 'ts5')
    const stack = await startTestStack({
      models: [{ id: 'remote/a' }],
      hostEnv: { POPAGENT_WORKSPACE_ROOT: root },
    })
    const figures = {
      turns: 0,
      answered: 0,
      payloadMarkers: 0,
      serversSeen: 0,
      serversInOwnNetworkNamespace: 0,
      serverCapEff: [] as string[],
    }
    const failures: string[] = []
    try {
      const edge = stack.edge()
      await markRoles(stack, ['orchistrator', 'researcher', 'implementer'])
      const url = await stack.listen()
      for (const repo of ['ts7', 'ts5']) {
        const workspaceId = await createWorkspace(edge, repo)
        for (const role of ['researcher', 'implementer']) {
          const sessionId = await createSession(edge, workspaceId)
          let output: string | undefined
          stack.gateway.respondWith((r) => {
            const done = toolResultsOf(r)
            if (roleOf(r) === 'orchistrator') {
              return done.length === 0
                ? { toolCalls: [{ name: `agent-${role}`, arguments: { prompt: 'inspect' } }] }
                : { text: 'done' }
            }
            if (roleOf(r) !== role) return { text: 'n/a' }
            if (done.length === 0) {
              return {
                toolCalls: [
                  {
                    name: 'lsp-inspect',
                    arguments: {
                      path: 'src/use.ts',
                      line: 2,
                      match: 'export const total: string = a<<<dd(1, 2)',
                    },
                  },
                ],
              }
            }
            // The run is still open, so its language server is still running: look at it.
            for (const server of languageServers()) {
              figures.serversSeen++
              if (server.netNamespace !== ownNetNamespace()) figures.serversInOwnNetworkNamespace++
              figures.serverCapEff.push(server.capEff)
            }
            const content = done[0]!.content
            output = typeof content === 'string' ? content : JSON.stringify(content)
            return { text: 'inspected' }
          })
          await readUiStream(
            await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Inspect' }),
          )
          figures.turns++
          if (/not assignable to type 'string'/.test(output ?? '')) figures.answered++
          else failures.push(`${role} in ${repo}: ${output ?? 'no lsp-inspect result'}`)
        }
      }
      const found = await readdir(markers)
      figures.payloadMarkers = found.length
      await recordFigures('sandbox-escape-lsp', figures)
      assert.deepEqual(found, [], `payloads ran on the host: ${found.join(', ')}`)
      assert.deepEqual(failures, [], 'popagent’s TypeScript did not answer')
      assert.ok(figures.serversSeen >= figures.turns, 'the language server was not observed')
      assert.equal(figures.serversInOwnNetworkNamespace, figures.serversSeen)
      for (const caps of figures.serverCapEff) assert.match(caps, /^0+$/)
    } finally {
      stack.gateway.respondWith(undefined)
      await stack.stop()
      await rm(dir, { recursive: true, force: true })
    }
  },
)

test(
  'the shell keeps no capability, cannot remount, nest a user namespace or write .git',
  { skip, timeout: 120_000 },
  async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-caps-')))
    const repo = join(dir, 'proj')
    const gitConfig = '[core]\n\trepositoryformatversion = 0\n'
    await mkdir(join(repo, '.git', 'hooks'), { recursive: true })
    await writeFile(join(repo, '.git', 'config'), gitConfig)
    try {
      const probes: Probe[] = [
        { name: 'caps', script: `grep '^CapEff:' /proc/self/status | cut -f2` },
        {
          name: 'remount',
          script: 'mount -o remount,bind,rw /usr 2>/dev/null && echo REMOUNTED || echo refused',
        },
        {
          name: 'userns',
          script: 'unshare -Ur true 2>/dev/null && echo NESTED || echo refused',
        },
        {
          name: 'git-config',
          script: `(printf '\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config) 2>/dev/null && echo WROTE || echo refused`,
        },
        {
          name: 'git-hook',
          script: `(echo 'touch /tmp/pwned' > .git/hooks/post-checkout) 2>/dev/null && echo WROTE || echo refused`,
        },
      ]
      const control = await runInMastraDefault(repo, probes)
      const inside = await probeThroughAgentTurn(dir, probes)
      const gitWritesRefused = ['git-config', 'git-hook'].filter(
        (n) => inside[n] === 'refused',
      ).length
      await recordFigures('sandbox-escape-shell', {
        uid: process.getuid?.(),
        capEff: inside.caps,
        remount: inside.remount,
        nestedUserNamespace: inside.userns,
        gitWritesRefused: `${gitWritesRefused}/2`,
        control,
      })
      if (process.getuid?.() === 0) {
        // The control proves the probes can see what the fix removed.
        assert.ok(!/^0+$/.test(control.caps ?? ''), `control kept no caps: ${control.caps}`)
        assert.equal(control.remount, 'REMOUNTED')
      }
      assert.match(inside.caps ?? '', /^0+$/, `CapEff inside: ${inside.caps}`)
      assert.equal(inside.remount, 'refused')
      assert.equal(inside.userns, 'refused')
      assert.equal(gitWritesRefused, 2, JSON.stringify(inside))
      assert.equal(await readFile(join(repo, '.git', 'config'), 'utf8'), gitConfig)
      assert.deepEqual(await readdir(join(repo, '.git', 'hooks')), [])
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  },
)

test(
  'the shell leaves no set-user-ID, set-group-ID or capability file in the repository',
  { skip, timeout: 120_000 },
  async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-setuid-')))
    const control = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-setuid-ctl-')))
    try {
      const probes: Probe[] = setuidProbes.map((p) => ({
        name: p.name,
        script: `( ${p.script} ) >/dev/null 2>&1; echo $?`,
      }))
      await runInMastraDefault(control, probes)
      const controlFound = await setIdFiles(control)
      const inside = await probeThroughAgentTurn(dir, probes)
      const statuses = Object.fromEntries(
        Object.entries(inside).map(([name, status]) => [name, Number(status || NaN)]),
      )
      const found = await setIdFiles(dir)
      await recordFigures('sandbox-escape-setuid', {
        uid: process.getuid?.(),
        probes: setuidProbes.length,
        wrongStatuses: wrongStatuses(statuses),
        setIdFilesInside: found,
        setIdFilesInControl: controlFound,
      })
      // The control proves the probes make set-ID files where nothing refuses them.
      for (const name of ['helper', 'installed', 'opened', 'made']) {
        assert.ok(controlFound.includes(name), `control: ${controlFound.join(', ')}`)
      }
      assert.deepEqual(wrongStatuses(statuses), [], JSON.stringify(inside))
      assert.deepEqual(found, [])
    } finally {
      await rm(dir, { recursive: true, force: true })
      await rm(control, { recursive: true, force: true })
    }
  },
)

test(
  "a submodule the shell made into a repository runs nothing when popagent's git reads it",
  { skip, timeout: 120_000 },
  async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'popagent-fault-submodule-')))
    const marker = join(dir, 'host-ran')
    try {
      const repo = join(dir, 'proj')
      const origin = join(dir, 'origin')
      const git = (cwd: string, ...args: string[]) =>
        promisify(execFile)('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          cwd,
          env: { PATH: '/usr/bin:/bin', HOME: dir, GIT_CONFIG_GLOBAL: '/dev/null' },
        })
      for (const path of [origin, repo]) {
        await mkdir(path)
        await git(path, 'init', '-q')
        await writeFile(join(path, 'README.md'), '# r\n')
        await git(path, 'add', '.')
        await git(path, 'commit', '-qm', 'init')
      }
      await git(repo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', origin, 'lib')
      await git(repo, 'commit', '-qm', 'submodule')
      // In the sandbox: the submodule's git directory (readable under the read-only .git) copied
      // into the submodule as a repository of its own, with a filter that writes on the host.
      const trap = [
        'cd lib',
        'cp -r ../.git/modules/lib ../lib-git && rm .git && mv ../lib-git .git',
        // Its worktree setting points back through the superproject: gone, as git would need.
        "sed -i '/worktree/d' .git/config",
        `printf '[filter "x"]\\n\\tclean = touch ${marker}; cat\\n' >> .git/config`,
        "echo '* filter=x' > .git/info/attributes",
        'touch -d "+1 hour" README.md',
        'git status --porcelain >/dev/null 2>&1; echo $?',
      ].join(' && ')
      const inside = await probeThroughAgentTurn(dir, [{ name: 'plant', script: trap }])
      assert.equal(inside.plant, '0', `the plant did not take: ${JSON.stringify(inside)}`)
      await readCheckout(repo)
      const ranOnHost = existsSync(marker)
      // The control: the status the old code ran starts a git inside the submodule.
      const at = { cwd: repo }
      await hostGit(
        ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none'],
        { ...at, config: await neutralFilters(at) },
      )
      const ranInControl = existsSync(marker)
      await recordFigures('sandbox-escape-submodule', { ranOnHost, ranInControl })
      assert.equal(ranInControl, true, 'the control runs the planted filter')
      assert.equal(ranOnHost, false, "popagent's read of the checkout ran the planted filter")
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  },
)

test(
  "a hook's bound secret is on no process's command line while the hook runs",
  { skip, timeout: 120_000 },
  async () => {
    const stack = await startTestStack({
      hostEnv: { POPAGENT_SECRET_KEY: randomBytes(32).toString('base64') },
    })
    try {
      const api = typedClient(stack.edge()).api
      const value = `fault-hook-secret-${randomBytes(12).toString('hex')}`
      // The script's $0: finds the hook's processes, and is no secret.
      const marker = `fault-hook-${randomBytes(6).toString('hex')}`
      const allow = `sleep 2; printf '{"decision":"allow","reason":"%s"}' "$(printf %s "$TOKEN" | sha256sum | cut -c1-64)"`
      const hook = await okJson(
        await api.hooks.$post({
          json: {
            name: 'slow',
            event: 'PreToolUse',
            kind: 'command',
            command: ['sh', '-c', allow, marker],
          },
        }),
        201,
      )
      const secret = await okJson(await api.secrets.$post({ json: { name: 'TOKEN', value } }), 201)
      await okJson(
        await api.secrets[':id'].bindings.$put({
          param: { id: secret.id },
          json: { origins: [], hookEnv: [{ hookId: hook.id, envName: 'TOKEN' }] },
        }),
        200,
      )
      // Not awaited: the command lines are read while the hook runs.
      const verdict = api.hooks[':id'].test.$post({
        param: { id: hook.id },
        json: { toolName: 'shell' },
      })
      let lines: string[] = []
      for (let tries = 0; tries < 300; tries++) {
        lines = commandLines()
        if (lines.some((line) => line.includes(marker))) break
        await new Promise((r) => setTimeout(r, 10))
      }
      const { stdout: ps } = await promisify(execFile)('ps', ['-eo', 'args'])
      const answer = await okJson(await verdict, 200)
      const hookLines = lines.filter((line) => line.includes(marker))
      const leaked = [...lines, ps].filter((line) => line.includes(value)).length
      await recordFigures('sandbox-escape-hook-env', { hookProcesses: hookLines.length, leaked })
      assert.ok(hookLines.length > 0 && ps.includes(marker), 'the hook was seen running')
      assert.equal(leaked, 0, 'a command line held the secret')
      // The hook had the value: its answer is the value's hash.
      assert.equal(answer.runs[0]?.reason, createHash('sha256').update(value).digest('hex'))
    } finally {
      await stack.stop()
    }
  },
)

/** Every process's command line, NULs as spaces; a process gone meanwhile is skipped. */
function commandLines(): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' ')
      } catch {
        return ''
      }
    })
    .filter(Boolean)
}

/** Names of the files below `root` with a set-ID bit, as the host's `find` sees them. */
async function setIdFiles(root: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('find', [root, '-perm', '/6000'])
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((path) => basename(path))
}

/** A TypeScript fixture plus every payload a language-server lookup could pick up. */
async function plantRepository(repo: string, markers: string, flavour: 'ts7' | 'ts5') {
  const file = async (path: string, content: string, mode = 0o644) => {
    await mkdir(dirname(join(repo, path)), { recursive: true })
    await writeFile(join(repo, path), content)
    await chmod(join(repo, path), mode)
  }
  const nodePayload = (name: string) =>
    `#!/usr/bin/env node\nrequire('fs').writeFileSync(${JSON.stringify(join(markers, `${flavour}-${name}`))}, 'ran')\n`
  const shellPayload = (name: string) =>
    `#!/bin/sh\necho ran > '${join(markers, `${flavour}-${name}`)}'\n`
  await file('package.json', '{"name":"victim","version":"1.0.0"}')
  await file(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: 'es2022',
        module: 'nodenext',
        plugins: [{ name: 'evil-plugin' }],
      },
    }),
  )
  await file('src/math.ts', 'export function add(a: number, b: number) {\n  return a + b\n}\n')
  await file(
    'src/use.ts',
    "import { add } from './math.js'\nexport const total: string = add(1, 2)\n",
  )
  await file(
    'node_modules/typescript/package.json',
    JSON.stringify({
      name: 'typescript',
      version: flavour === 'ts7' ? '7.0.2' : '5.9.3',
      main: 'index.js',
      bin: { tsc: './bin/tsc' },
    }),
  )
  await file('node_modules/typescript/index.js', nodePayload('typescript-main'))
  await file('node_modules/typescript/bin/tsc', nodePayload('typescript-bin'), 0o755)
  if (flavour === 'ts5') {
    await file('node_modules/typescript/lib/tsserver.js', nodePayload('tsserver'))
  }
  for (const bin of [
    'tsc',
    'typescript-language-server',
    'vscode-eslint-language-server',
    'pyright-langserver',
  ]) {
    await file(`node_modules/.bin/${bin}`, shellPayload(bin), 0o755)
  }
  await file('node_modules/evil-plugin/package.json', '{"name":"evil-plugin","main":"index.js"}')
  await file('node_modules/evil-plugin/index.js', nodePayload('plugin'))
}

type Server = { pid: number; netNamespace: string; capEff: string }

/** Language-server processes on this host, as the host sees them (read synchronously: the
 * gateway's responder is synchronous). */
function languageServers(): Server[] {
  const found: Server[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      if (!cmdline[0]?.endsWith('/tsc') || !cmdline.includes('--lsp')) continue
      const status = readFileSync(`/proc/${entry}/status`, 'utf8')
      found.push({
        pid: Number(entry),
        netNamespace: readlinkSync(`/proc/${entry}/ns/net`),
        capEff: /^CapEff:\s*(\S+)/m.exec(status)?.[1] ?? 'unknown',
      })
    } catch {
      // The process ended while it was being read.
    }
  }
  return found
}

const ownNetNamespace = () => readlinkSync('/proc/self/ns/net')

/** The same probes in Mastra's default bubblewrap profile, as popagent used it before. */
async function runInMastraDefault(root: string, probes: Probe[]) {
  const sandbox = new LocalSandbox({
    workingDirectory: root,
    isolation: 'bwrap',
    nativeSandbox: { allowNetwork: false },
  })
  // The .git probes are left out: they would write the very files the real test checks.
  const outputs: Record<string, string> = {}
  for (const probe of probes.filter((p) => !p.name.startsWith('git-'))) {
    const result = await sandbox.executeCommand!('sh', ['-c', probe.script], { timeout: 10_000 })
    outputs[probe.name] = result.stdout.trim()
  }
  return outputs
}
