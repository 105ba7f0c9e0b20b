/**
 * A vault value bound to a command hook's environment reaches the host-side programs that build
 * the sandbox too, so names that change how a loader, a shell or a runtime starts are refused.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HookEnvBinding } from '../runtime/contracts/secrets.ts'

const hookId = 'hok_00000000000000000000000000'
const accepts = (envName: string) => HookEnvBinding.safeParse({ hookId, envName }).success

test('names that change how programs load or start cannot take a vault value', () => {
  const refused = [
    'PATH',
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'GLIBC_TUNABLES',
    'GCONV_PATH',
    'LOCPATH',
    'MALLOC_ARENA_MAX',
    'BASH_ENV',
    'ENV',
    'IFS',
    'SHELLOPTS',
    'BASH_FUNC_X',
    'NODE_OPTIONS',
    'PYTHONSTARTUP',
    'PERL5OPT',
    'JAVA_TOOL_OPTIONS',
    'TMPDIR',
  ]
  assert.deepEqual(refused.filter(accepts), [])
})

test('ordinary names are accepted, including ones that merely start like a reserved one', () => {
  for (const name of ['DEPLOY_TOKEN', 'ENVIRONMENT', 'PATH_PREFIX', 'IFS_TOKEN', 'NODE_ENV'])
    assert.ok(accepts(name), name)
})
