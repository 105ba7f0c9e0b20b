/**
 * A webhook channel's callback on a private network (issue 38 item 2): refused unless the owner
 * set `allowPrivateCallback`, and even then only RFC 1918 and IPv6 unique local addresses, never
 * link-local (169.254/16, fe80::/10, where cloud metadata answers) or the other special blocks.
 * The guard's decision is tested, plus the webhook adapter's refusals that happen before any
 * connection; no traffic is ever sent to a private address (the one connection made is to a
 * loopback listener, for a name an injected resolver maps to loopback).
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, test } from 'node:test'
import { buildAdapter } from '../compute-host/channels/adapters/index.ts'
import { PermanentSendError } from '../compute-host/channels/types.ts'
import {
  checkOutboundAddress,
  guardedLookup,
  OutboundRefused,
} from '../compute-host/net/outbound-guard.ts'
import { isPrivateNetwork } from '../runtime/net/address-class.ts'

const PRIVATE = ['10.1.2.3', '172.16.0.9', '172.31.255.254', '192.168.1.20', 'fd12:3456::1']
const NEVER = [
  '169.254.169.254',
  'fe80::1',
  '100.64.0.1',
  '0.0.0.0',
  '224.0.0.1',
  '240.0.0.1',
  '::ffff:169.254.169.254',
]

describe('private callback targets', () => {
  test('the guard refuses private addresses by default and allows them only with the opt-in', () => {
    for (const address of PRIVATE) {
      assert.throws(
        () => checkOutboundAddress(address, address, { allowLoopback: true }),
        OutboundRefused,
        `${address} without the opt-in`,
      )
      checkOutboundAddress(address, address, { allowLoopback: false, allowPrivate: true })
    }
    checkOutboundAddress('::ffff:10.0.0.1', '::ffff:10.0.0.1', {
      allowLoopback: false,
      allowPrivate: true,
    })
  })

  test('link-local, metadata, CGNAT and reserved addresses stay refused with the opt-in', () => {
    for (const address of NEVER) {
      assert.equal(isPrivateNetwork(address), false, address)
      assert.throws(
        () => checkOutboundAddress(address, address, { allowLoopback: true, allowPrivate: true }),
        OutboundRefused,
        address,
      )
    }
    // Just outside 172.16/12 is a public address, not a private one.
    assert.equal(isPrivateNetwork('172.32.0.1'), false)
    // The opt-in to private ranges is not an opt-in to loopback.
    assert.throws(
      () =>
        checkOutboundAddress('127.0.0.1', '127.0.0.1', {
          allowLoopback: false,
          allowPrivate: true,
        }),
      OutboundRefused,
    )
  })

  test('a name resolving to a private address is judged at connect time like a literal', async () => {
    const resolve = async () => [{ address: '10.9.8.7', family: 4 }]
    const lookup = (allowPrivate: boolean) =>
      new Promise<string>((done, fail) =>
        guardedLookup({ allowLoopback: false, allowPrivate }, resolve)(
          'bridge.lan',
          {},
          (error, address) => (error ? fail(error) : done(address as string)),
        ),
      )
    await assert.rejects(lookup(false), OutboundRefused)
    assert.equal(await lookup(true), '10.9.8.7')
    // A name with a metadata answer among its private ones is refused whole.
    const mixed = async () => [
      { address: '10.9.8.7', family: 4 },
      { address: '169.254.169.254', family: 4 },
    ]
    await assert.rejects(
      new Promise((done, fail) =>
        guardedLookup({ allowLoopback: false, allowPrivate: true }, mixed)(
          'bridge.lan',
          {},
          (error, address) => (error ? fail(error) : done(address)),
        ),
      ),
      OutboundRefused,
    )
  })

  test('the webhook adapter refuses a private callback without the opt-in and a link-local one with it, before connecting', async () => {
    const secrets = { signing: ['whsec-signing-0123456789abcdef'], outbound: ['whsec-out-0123'] }
    const send = (settings: object) =>
      buildAdapter('webhook', settings, secrets).post(
        { conversation: 'c', thread: '', text: 'hi', idempotencyKey: 'd.1' },
        AbortSignal.timeout(5_000),
      )
    await assert.rejects(send({ callbackUrl: 'http://10.255.255.1/hook' }), (error: unknown) => {
      assert.ok(error instanceof PermanentSendError)
      assert.match(error.message, /private address/)
      return true
    })
    await assert.rejects(
      send({ callbackUrl: 'http://169.254.169.254/latest', allowPrivateCallback: true }),
      (error: unknown) => {
        assert.ok(error instanceof PermanentSendError)
        assert.match(error.message, /link-local/)
        return true
      },
    )
    // The opt-in changes nothing for loopback: still refused without allowLoopback; with it the
    // receiver on loopback is reached.
    let hits = 0
    const server = createServer((_req, res) => {
      hits++
      res.writeHead(204).end()
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
      await assert.rejects(
        send({ callbackUrl: url, allowPrivateCallback: true }),
        PermanentSendError,
      )
      assert.equal(hits, 0)
      await send({ callbackUrl: url, allowPrivateCallback: true, allowLoopback: true })
      assert.equal(hits, 1)
    } finally {
      await new Promise((r) => server.close(r))
    }
  })
})
