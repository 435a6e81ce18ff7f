/**
 * Connections Tally opens to addresses its users give (webhook receivers,
 * IMAP servers) must not reach the machine itself or its private network.
 *
 * Checked twice: when the address is saved (a clear 400 for the user), and
 * at every connection, on the address the name resolves to right then, so
 * a name that resolved publicly when saved and privately now (DNS
 * rebinding) is refused too. Both use ipaddr.js's ranges: only `unicast`
 * (public) addresses pass; loopback, private, link-local, carrier-grade
 * NAT, multicast, unspecified, IPv4-mapped IPv6 and the rest do not.
 * WHATWG URL parsing has already turned `2130706433`, `0x7f.1` and `127.1`
 * into 127.0.0.1 by the time a host is checked.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/** Why this address may not be connected to, or undefined when it may. */
export function forbiddenAddressReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  const range = ipaddr.parse(address).range();
  return range === 'unicast' ? undefined : `resolves to a non-public address (${address}, ${range})`;
}

/** The host of a URL without IPv6 brackets. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * The address to connect to for a host: its literal, or the first address
 * its name resolves to now; or why it may not be connected to (every
 * address must be public unless private ones are allowed).
 */
export async function resolveOutbound(hostname: string, { allowPrivate }: { allowPrivate: boolean }): Promise<{ address: string } | { problem: string }> {
  const host = bareHost(hostname);
  if (net.isIP(host) !== 0) {
    const reason = allowPrivate ? undefined : forbiddenAddressReason(host);
    return reason ? { problem: reason } : { address: host };
  }
  let addresses: { address: string }[];
  try {
    addresses = await dns.lookup(host, { all: true, verbatim: true });
  } catch {
    return { problem: `cannot be resolved (${host})` };
  }
  for (const { address } of addresses) {
    const reason = allowPrivate ? undefined : forbiddenAddressReason(address);
    if (reason) return { problem: reason };
  }
  const first = addresses[0];
  return first ? { address: first.address } : { problem: `has no address (${host})` };
}

/** Why a host may not be connected to (see resolveOutbound), or undefined when it may. */
export async function outboundHostProblem(hostname: string, options: { allowPrivate: boolean }): Promise<string | undefined> {
  const resolved = await resolveOutbound(hostname, options);
  return 'problem' in resolved ? resolved.problem : undefined;
}

export interface OutboundAgents {
  forUrl(url: URL): RequestFilteringHttpAgent | RequestFilteringHttpsAgent;
}

/**
 * HTTP(S) agents that check the resolved address of every new connection,
 * built once per process; kept-alive connections are reused only for the
 * address they were checked for.
 */
export function createOutboundAgents({ allowPrivate }: { allowPrivate: boolean }): OutboundAgents {
  const filter = { allowPrivateIPAddress: allowPrivate, allowMetaIPAddress: false };
  const agentOptions = { keepAlive: true, maxSockets: 16, maxFreeSockets: 4, timeout: 30_000 };
  const http = new RequestFilteringHttpAgent({ ...agentOptions, ...filter });
  const https = new RequestFilteringHttpsAgent({ ...agentOptions, ...filter });
  return { forUrl: (url) => (url.protocol === 'https:' ? https : http) };
}
