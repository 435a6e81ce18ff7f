/**
 * What a browser does for sign-in, over real HTTP: follow redirects across
 * hosts, keep cookies per host (honouring Max-Age=0 and Path=/), and send
 * them back. Good enough for the OAuth dance; not a browser engine.
 */

export interface BrowserResponse {
  status: number;
  headers: Headers;
  url: string;
  text: string;
}

interface StoredCookie {
  value: string;
  attributes: string[];
}

export class Browser {
  private readonly jars = new Map<string, Map<string, StoredCookie>>();

  constructor(
    /** The Origin header sent with non-GET requests, as a page of this origin would. */
    readonly origin?: string,
    /** Where requests really go: lets a test serve an https BASE_URL from a plain-http listener. */
    private readonly rewrite: (url: URL) => URL = (url) => url,
  ) {}

  private jar(url: URL): Map<string, StoredCookie> {
    let jar = this.jars.get(url.host);
    if (!jar) {
      jar = new Map();
      this.jars.set(url.host, jar);
    }
    return jar;
  }

  /** The cookie named `name` set by `host`, with its attributes, or undefined. */
  cookie(url: string, name: string): StoredCookie | undefined {
    return this.jar(new URL(url)).get(name);
  }

  /** The Cookie header this browser sends to `url`. */
  cookieHeader(url: string): string {
    return [...this.jar(new URL(url))].map(([name, cookie]) => `${name}=${cookie.value}`).join('; ');
  }

  private store(url: URL, response: Response): void {
    const jar = this.jar(url);
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const value = pair.slice(separator + 1);
      if (value === '' || attributes.some((attribute) => /^max-age=0$/i.test(attribute))) jar.delete(name);
      else jar.set(name, { value, attributes });
    }
  }

  /** One request, no redirect following. */
  async request(method: string, address: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<BrowserResponse> {
    const url = new URL(address);
    const headers: Record<string, string> = { ...init.headers };
    const cookies = this.cookieHeader(address);
    if (cookies !== '') headers.cookie = cookies;
    if (method !== 'GET' && this.origin && headers.origin === undefined) headers.origin = this.origin;
    const response = await fetch(this.rewrite(url), {
      method,
      headers,
      redirect: 'manual',
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    this.store(url, response);
    return { status: response.status, headers: response.headers, url: url.toString(), text: await response.text() };
  }

  /** GET, following redirects like a browser; returns every hop, the last one last. */
  async navigate(address: string, maxHops = 10): Promise<BrowserResponse[]> {
    const hops: BrowserResponse[] = [];
    let next: string | undefined = address;
    while (next !== undefined) {
      if (hops.length >= maxHops) throw new Error(`more than ${maxHops} redirects from ${address}`);
      const response = await this.request('GET', next);
      hops.push(response);
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null;
      next = location === null ? undefined : new URL(location, next).toString();
    }
    return hops;
  }
}
