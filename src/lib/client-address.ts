/**
 * Who the client is, by network address: the socket's peer, unless
 * TRUST_PROXY says which proxies in front of us may speak for it in
 * `X-Forwarded-For`. The semantics are Express's `trust proxy` (through the
 * same `proxy-addr` package): a hop count, or the addresses and CIDRs of the
 * proxies (`loopback`, `linklocal` and `uniquelocal` name their ranges), or
 * `true` for every hop. Unset believes no header, so a client cannot choose
 * its own address by sending one.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

/** TRUST_PROXY, parsed. */
export type TrustProxy =
  | { kind: 'none' }
  | { kind: 'all' }
  /** The first `count` hops before us are proxies, whatever their addresses. */
  | { kind: 'hops'; count: number }
  /** Proxies at these addresses, CIDRs or named ranges. */
  | { kind: 'addresses'; addresses: string[] };

/**
 * Reads a TRUST_PROXY value; throws a message naming what is wrong.
 * `''`, `false` and `0` trust nobody.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '' || text === 'false' || text === '0') return { kind: 'none' };
  if (text === 'true') return { kind: 'all' };
  if (/^\d+$/.test(text)) return { kind: 'hops', count: Number(text) };
  const addresses = text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  // proxy-addr refuses what it cannot read; say it at start, not on the first request.
  proxyAddr.compile(addresses);
  return { kind: 'addresses', addresses };
}

/** The client address of a request, as TRUST_PROXY decides. Built once per process. */
export type ClientAddressOf = (request: IncomingMessage) => string;

export function createClientAddressOf(trust: TrustProxy): ClientAddressOf {
  const socketAddress = (request: IncomingMessage): string => request.socket.remoteAddress ?? 'unknown';
  switch (trust.kind) {
    case 'none':
      return socketAddress;
    case 'all':
      return (request) => proxyAddr(request, () => true);
    case 'hops': {
      // Express's compileTrust for a number: the first `count` addresses, from us outwards, are proxies.
      const count = trust.count;
      return (request) => proxyAddr(request, (_address, hop) => hop < count);
    }
    case 'addresses': {
      const trusted = proxyAddr.compile(trust.addresses);
      return (request) => proxyAddr(request, trusted);
    }
  }
}
