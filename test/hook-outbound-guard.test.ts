/**
 * HTTP hooks reach only public addresses, loopback too with the owner's `allowLoopback`, and
 * never a private, link-local (cloud metadata), carrier-grade NAT or reserved one: refused when
 * the URL is stored (an address literal, in any notation), and again when the host connects
 * (what a name resolves to then, every answer of it, the address the socket is given). Connect
 * time is proven with an injected resolver playing the DNS server and a loopback listener that
 * counts the connections a refused call must not make. All traffic stays on loopback.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, test } from 'node:test'
import { runHttpHook } from '../compute-host/hooks/http-hook.ts'
import type { Resolver } from '../compute-host/net/outbound-guard.ts'
import { classifyAddress } from '../runtime/net/address-class.ts'
import { createTestApp, json } from './support/app.ts'
import { createTestDatabase, type TestDatabase } from './support/database.ts'

describe('hook URLs are judged when they are stored', () => {
  let database: TestDatabase
  let app: ReturnType<typeof createTestApp>
  before(async () => {
    database = await createTestDatabase()
    app = createTestApp({ db: database.db })
  })
  after(() => database.drop())

  const post = (url: string, allowLoopback?: boolean) =>
    app.request(
      '/api/hooks',
      json(
        { name: 'h', event: 'PreToolUse', kind: 'http', url, allowLoopback },
        { method: 'POST' },
      ),
    )
  type Answer = { hooks: unknown[]; id: string; error: { code: string; message: string } }
  const answer = async (res: Response) => (await res.json()) as Answer
  const listed = async () => (await answer(await app.request('/api/hooks'))).hooks

  test('loopback, private, link-local and reserved literals in any notation are a 422 naming why, and nothing is stored', async () => {
    const cases: [string, boolean | undefined, RegExp][] = [
      [
        'https://127.0.0.2:8443/hook',
        undefined,
        /127\.0\.0\.2 is a loopback address: it needs allowLoopback/,
      ],
      ['https://[::1]/hook', false, /\[::1\] is a loopback address/],
      [
        'https://169.254.169.254/latest/meta-data',
        undefined,
        /169\.254\.169\.254 is a link-local address, where cloud metadata/,
      ],
      // allowLoopback is consent to loopback only: metadata and private stay refused.
      ['https://169.254.169.254/', true, /link-local/],
      ['https://10.0.0.1/hook', true, /10\.0\.0\.1 is a private address \(RFC 1918\)/],
      ['https://192.168.1.1/', undefined, /private address/],
      ['https://100.100.100.200/', undefined, /carrier-grade NAT/],
      ['https://198.18.0.1/', undefined, /benchmarking/],
      ['https://0.0.0.0/', true, /0\.0\.0\.0 is in 0\.0\.0\.0\/8/],
      ['https://255.255.255.255/', undefined, /broadcast/],
      ['https://224.0.0.1/', undefined, /multicast/],
      // The URL parser writes the mapped form as [::ffff:7f00:1]: still 127.0.0.1.
      ['https://[::ffff:127.0.0.1]/', undefined, /\[::ffff:7f00:1\] is a loopback address/],
      ['https://[::ffff:169.254.169.254]/', true, /\[::ffff:a9fe:a9fe\] is a link-local address/],
      ['https://[64:ff9b::a9fe:a9fe]/', true, /NAT64 address embedding a non-public/],
      ['https://[fd00:ec2::254]/', true, /unique local IPv6 address/],
      ['https://[fe80::1]/', true, /link-local IPv6 address/],
      ['https://[::]/', true, /unspecified address/],
      // Decimal, hex and octal IPv4 are turned into 127.0.0.1 by the URL parser, then judged.
      ['https://2130706433/', undefined, /127\.0\.0\.1 is a loopback address/],
      ['https://0x7f.1/', undefined, /127\.0\.0\.1 is a loopback address/],
      ['https://0177.0.0.1/', undefined, /127\.0\.0\.1 is a loopback address/],
      ['https://0xa9fea9fe/', true, /169\.254\.169\.254 is a link-local address/],
      ['https://localhost./hook', undefined, /localhost\. is a loopback address/],
      ['https://hooks.localhost/', undefined, /hooks\.localhost is a loopback address/],
    ]
    const misses: string[] = []
    for (const [url, allowLoopback, why] of cases) {
      const res = await post(url, allowLoopback)
      const body = await answer(res)
      if (
        res.status !== 422 ||
        body.error?.code !== 'HOOK_INVALID' ||
        !why.test(body.error.message)
      )
        misses.push(
          `${url} (allowLoopback ${allowLoopback}): ${res.status} ${JSON.stringify(body)}`,
        )
    }
    assert.deepEqual(misses, [])
    assert.deepEqual(await listed(), [])
  })

  test('a public name, and loopback with allowLoopback, are stored; a patch is judged the same way', async () => {
    const stored: string[] = []
    for (const [url, allowLoopback] of [
      ['https://hooks.example.com/x', false],
      ['https://93.184.215.14/x', false],
      ['https://[2606:4700::1111]/x', false],
      ['http://127.0.0.1:9/hook', true],
      ['https://127.0.0.2:9/hook', true],
      ['http://[::1]:9/hook', true],
      ['http://localhost:9/hook', true],
    ] as const) {
      const res = await post(url, allowLoopback)
      assert.equal(res.status, 201, `${url}: ${await res.clone().text()}`)
      stored.push((await answer(res)).id)
    }
    const patch = (id: string, body: Record<string, unknown>) =>
      app.request(`/api/hooks/${id}`, json(body, { method: 'PATCH' }))
    const toMetadata = await patch(stored[0]!, { url: 'https://169.254.169.254/' })
    assert.equal(toMetadata.status, 422)
    assert.match((await answer(toMetadata)).error.message, /link-local/)
    // Taking the consent back from a loopback hook is refused while its URL is loopback.
    const withdrawn = await patch(stored[4]!, { allowLoopback: false })
    assert.equal(withdrawn.status, 422)
    assert.match((await answer(withdrawn)).error.message, /needs allowLoopback/)
    assert.equal((await listed()).length, stored.length)
  })
})

describe('hook calls are judged when they connect', () => {
  let server: Server
  let port: number
  let connections = 0
  const bodies: string[] = []
  before(async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        bodies.push(body)
        if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end()
        if (req.url === '/big') return void res.end('x'.repeat(70 * 1024))
        if (req.url === '/slow') return void setTimeout(() => res.end('{}'), 5_000).unref()
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ decision: 'deny', reason: 'local says no' }))
      })
    })
    server.on('connection', () => connections++)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    port = (server.address() as AddressInfo).port
  })
  after(() => {
    server.closeAllConnections()
    server.close()
  })

  /** A DNS server that answers `addresses` for every name, counting the questions. */
  const dns = (...addresses: string[]) => {
    const asked: string[] = []
    const resolve: Resolver = async (name) => {
      asked.push(name)
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
    }
    return { resolve, asked }
  }
  const call = (url: string, allowLoopback: boolean, resolve?: Resolver, timeoutMs = 5_000) =>
    runHttpHook({ url, body: '{"event":"PreToolUse"}', timeoutMs, allowLoopback, resolve })
  const counted = async <T>(fn: () => Promise<T>) => {
    const before = connections
    const result = await fn()
    return { result, made: connections - before }
  }

  test('a name that resolves to loopback is refused without allowLoopback, and no connection is made', async () => {
    const { resolve, asked } = dns('127.0.0.1')
    const { result, made } = await counted(() =>
      call(`http://hooks.attacker.test:${port}/`, false, resolve),
    )
    assert.equal(made, 0)
    assert.deepEqual(asked, ['hooks.attacker.test'])
    assert.equal(result.kind, 'failed')
    assert.equal(result.kind === 'failed' && result.failure, 'http_error')
    assert.match(
      (result as { reason: string }).reason,
      /the hook was not called: hooks\.attacker\.test resolves to 127\.0\.0\.1, a loopback address, which was not allowed/,
    )
  })

  test('with allowLoopback the same name reaches the local server, resolved once', async () => {
    const { resolve, asked } = dns('127.0.0.1')
    const { result, made } = await counted(() =>
      call(`http://hooks.local.test:${port}/`, true, resolve),
    )
    assert.deepEqual(result, {
      kind: 'answer',
      output: JSON.stringify({ decision: 'deny', reason: 'local says no' }),
    })
    assert.equal(made, 1)
    assert.deepEqual(
      asked,
      ['hooks.local.test'],
      'one lookup: nothing a second answer could change',
    )
    assert.equal(bodies.at(-1), '{"event":"PreToolUse"}')
  })

  test('every answer is judged: one forbidden address among the answers refuses the call', async () => {
    for (const forbidden of ['169.254.169.254', '10.0.0.1', '::ffff:169.254.169.254', 'fd00::1']) {
      const { resolve } = dns('127.0.0.1', forbidden)
      const { result, made } = await counted(() =>
        call(`http://rebind.attacker.test:${port}/`, true, resolve),
      )
      assert.equal(made, 0, forbidden)
      assert.match(
        (result as { reason: string }).reason,
        new RegExp(`resolves to ${forbidden.replace(/[.]/g, '\\.')}, `),
      )
    }
  })

  test('allowLoopback never admits metadata or private answers', async () => {
    for (const address of ['169.254.169.254', '100.100.100.200', '192.168.0.10', 'fe80::1']) {
      const { result } = await counted(() =>
        call('https://metadata.attacker.test/', true, dns(address).resolve),
      )
      assert.equal(result.kind === 'failed' && result.failure, 'http_error')
      assert.match((result as { reason: string }).reason, /^the hook was not called: /)
    }
  })

  test('a loopback literal or localhost is refused at connect time without allowLoopback', async () => {
    const other = createServer((_req, res) => res.end('{}'))
    let reached = 0
    other.on('connection', () => reached++)
    await new Promise<void>((r) => other.listen(port, '127.0.0.2', r))
    try {
      for (const url of [`http://127.0.0.2:${port}/`, `http://localhost:${port}/`]) {
        const { result, made } = await counted(() => call(url, false))
        assert.equal(made + reached, 0, `${url} was connected to`)
        assert.match(
          (result as { reason: string }).reason,
          /the hook was not called: .*loopback address, which was not allowed/,
        )
      }
    } finally {
      other.close()
    }
  })

  test('a redirect is not followed, the answer is bounded and the timeout holds', async () => {
    const redirected = await counted(() => call(`http://127.0.0.1:${port}/redirect`, true))
    assert.equal(redirected.made, 1, 'the redirect was not followed')
    assert.deepEqual(redirected.result, {
      kind: 'failed',
      failure: 'http_status',
      reason: 'the hook answered HTTP 302',
    })
    const big = await call(`http://127.0.0.1:${port}/big`, true)
    assert.equal(big.kind === 'failed' && big.failure, 'oversize')
    const slow = await call(`http://127.0.0.1:${port}/slow`, true, undefined, 200)
    assert.deepEqual(slow, {
      kind: 'failed',
      failure: 'timeout',
      reason: 'the hook did not answer within 200 ms',
    })
    const refused = await call('http://127.0.0.1:1/', true)
    assert.equal(refused.kind === 'failed' && refused.failure, 'http_error')
    assert.match(
      (refused as { reason: string }).reason,
      /the hook could not be reached: .*ECONNREFUSED/,
    )
  })
})

test('address classes: public unicast passes; every special-purpose block is named', () => {
  const expected: [string, string][] = [
    ['93.184.215.14', 'public'],
    ['2606:4700::1111', 'public'],
    ['64:ff9b::5db8:d70e', 'public'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.1.2.3', 'forbidden'],
    ['172.31.255.255', 'forbidden'],
    ['172.32.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'forbidden'],
    ['198.19.255.255', 'forbidden'],
    ['198.20.0.0', 'public'],
    ['192.0.0.170', 'forbidden'],
    ['::a00:1', 'forbidden'],
    ['64:ff9b::7f00:1', 'forbidden'],
    ['64:ff9b:1::1', 'forbidden'],
    ['2001:0:4136:e378::1', 'forbidden'],
    ['2001:db8::1', 'forbidden'],
    ['2002:7f00:1::1', 'forbidden'],
    ['fec0::1', 'forbidden'],
    ['ff02::1', 'forbidden'],
    ['100::1', 'forbidden'],
    ['fe80::1%eth0', 'forbidden'],
  ]
  const got = expected.map(([a]) => [a, classifyAddress(a)?.kind ?? 'name'])
  assert.deepEqual(got, expected)
  for (const notAnAddress of ['1.2.3', '01.2.3.4', '1::2::3', '1:2:3:4:5:6:7:8:9', 'a.example'])
    assert.equal(classifyAddress(notAnAddress), undefined, notAnAddress)
})
