/**
 * A TCP relay on loopback between the server and its PostgreSQL, which can
 * reset every connection it carries (a TCP RST, as a failing network or a
 * restarting load balancer sends): the server's pool then sees ECONNRESET
 * from a real socket.
 */
import net from 'node:net';

export interface TcpRelay {
  /** `url` with its host and port replaced by the relay's. */
  through(url: string): string;
  /** Resets every open connection (RST to the server's side, close to the database's). */
  resetAll(): number;
  close(): Promise<void>;
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const open = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    open.add(pair);
    const end = (): void => {
      open.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as net.AddressInfo;
  return {
    through(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    resetAll() {
      const pairs = [...open];
      for (const pair of pairs) {
        open.delete(pair);
        pair.client.resetAndDestroy();
        pair.upstream.destroy();
      }
      return pairs.length;
    },
    async close() {
      for (const { client, upstream } of open) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}
