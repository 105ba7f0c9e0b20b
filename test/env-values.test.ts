/**
 * One rule for configuration values on both sides (runtime/env-values.ts): empty or blank means
 * unset, for the edge as for the host. Also what the edge configuration derives from the
 * environment: the Host allowlist per runtime, the bind checks, and the host's secrets list,
 * which now holds the API key so the host's log redacts it.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { hostSecrets, parseHostEnv } from '../compute-host/env.ts'
import { createLogger } from '../compute-host/log.ts'
import { parseEdgeConfig } from '../handlers/config.ts'
import { checkBind, startNodeEdge } from '../handlers/entry.node.ts'
import { LOOPBACK_HOSTS } from '../handlers/host-allowlist.ts'
import { withoutEmptyValues } from '../runtime/env-values.ts'
import { REDACTED } from '../runtime/redaction.ts'

const TOKEN = 'h'.repeat(20)
const KEY = 'an-api-key-0123456789abcdef'

test('empty and blank values count as unset; other values, and non-strings, pass through', () => {
  const binding = { connectionString: 'postgres://x' }
  assert.deepEqual(withoutEmptyValues({ A: '', B: '  ', C: 'x', D: binding, E: ' y ' }), {
    C: 'x',
    D: binding,
    E: ' y ',
  })
})

test('POPAGENT_API_KEY= is unset for the edge and for the host alike', () => {
  for (const empty of ['', '   ']) {
    const edge = parseEdgeConfig({ POPAGENT_HOST_TOKEN: TOKEN, POPAGENT_API_KEY: empty })
    assert.equal(edge.apiKey, undefined)
    assert.equal(parseHostEnv({ POPAGENT_API_KEY: empty }).POPAGENT_API_KEY, undefined)
    const hosts = parseEdgeConfig({ POPAGENT_HOST_TOKEN: TOKEN, POPAGENT_ALLOWED_HOSTS: empty })
    assert.deepEqual(hosts.allowedHosts, LOOPBACK_HOSTS)
  }
  // A short key is still refused by both, with the variable named.
  assert.throws(
    () => parseEdgeConfig({ POPAGENT_HOST_TOKEN: TOKEN, POPAGENT_API_KEY: 'short' }),
    /POPAGENT_API_KEY/,
  )
  assert.throws(() => parseHostEnv({ POPAGENT_API_KEY: 'short' }), /POPAGENT_API_KEY/)
})

test('POPAGENT_ALLOWED_HOSTS adds names to loopback on Node and replaces "any" on Workers', () => {
  const source = {
    POPAGENT_HOST_TOKEN: TOKEN,
    POPAGENT_ALLOWED_HOSTS: ' A.example.com ,b.test:8443,',
  }
  const listed = [{ name: 'a.example.com' }, { name: 'b.test', port: '8443' }]
  assert.deepEqual(parseEdgeConfig(source).allowedHosts, [...LOOPBACK_HOSTS, ...listed])
  assert.deepEqual(parseEdgeConfig(source, 'workers').allowedHosts, listed)
  const unset = { POPAGENT_HOST_TOKEN: TOKEN }
  assert.deepEqual(parseEdgeConfig(unset).allowedHosts, LOOPBACK_HOSTS)
  assert.equal(parseEdgeConfig(unset, 'workers').allowedHosts, 'any')
  assert.equal(parseEdgeConfig(unset).apiKeyRequired, false)
  assert.equal(parseEdgeConfig(unset, 'workers').apiKeyRequired, true)
  assert.throws(
    () =>
      parseEdgeConfig({
        POPAGENT_HOST_TOKEN: TOKEN,
        POPAGENT_ALLOWED_HOSTS: 'https://a.example.com,b.test/x,ok.test',
      }),
    /POPAGENT_ALLOWED_HOSTS: not a host name: "https:\/\/a.example.com", "b.test\/x"/,
  )
})

test('a non-loopback bind without a key refuses to start; without public names it warns', async () => {
  const open = parseEdgeConfig({ POPAGENT_HOST_TOKEN: TOKEN })
  const keyed = parseEdgeConfig({ POPAGENT_HOST_TOKEN: TOKEN, POPAGENT_API_KEY: KEY })
  const named = parseEdgeConfig({
    POPAGENT_HOST_TOKEN: TOKEN,
    POPAGENT_API_KEY: KEY,
    POPAGENT_ALLOWED_HOSTS: 'agent.example.com',
  })
  for (const bind of ['0.0.0.0', '::', '192.168.1.5', '']) {
    assert.throws(() => checkBind(open, bind), /not a loopback address and no API key/)
    assert.match(checkBind(keyed, bind).warning ?? '', /POPAGENT_ALLOWED_HOSTS is unset/)
    assert.deepEqual(checkBind(named, bind), {})
  }
  for (const bind of ['127.0.0.1', 'localhost', '::1']) assert.deepEqual(checkBind(open, bind), {})
  // The refusal comes before anything listens.
  await assert.rejects(
    startNodeEdge({
      config: open,
      db: {} as never,
      observabilityDb: {} as never,
      port: 0,
      hostname: '0.0.0.0',
    }),
    /invalid edge configuration: POPAGENT_BIND=0\.0\.0\.0 is not a loopback address/,
  )
})

test("the host's secrets include the API key, so its log lines redact it", () => {
  const env = parseHostEnv({ POPAGENT_API_KEY: KEY, NINEROUTER_API_KEY: 'gateway-key-123456' })
  const secrets = hostSecrets(env, 'host-token-0123456789')
  assert.ok(secrets.includes(KEY))
  const lines: string[] = []
  const log = createLogger({ secrets, write: (l) => lines.push(l) })
  log.error(`request failed with key ${KEY}`, { header: Buffer.from(KEY).toString('base64') })
  assert.ok(!lines[0]!.includes(KEY), lines[0])
  assert.ok(!lines[0]!.includes(Buffer.from(KEY).toString('base64')), lines[0])
  assert.ok(lines[0]!.includes(REDACTED))
})
