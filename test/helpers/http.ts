/** A small HTTP client for tests: real requests, JSON in and out, nothing mocked. */
import { contractProblem } from './contract.js';

export type Json = Record<string, unknown>;

export interface ApiResponse<Body = Json> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty or non-JSON body. */
  body: Body;
  text: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
}

export interface ApiClient {
  request<Body = Json>(method: string, path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<Body>>;
  get<Body = Json>(path: string, options?: RequestOptions): Promise<ApiResponse<Body>>;
  post<Body = Json>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<Body>>;
  patch<Body = Json>(path: string, body?: unknown, options?: RequestOptions): Promise<ApiResponse<Body>>;
  delete<Body = Json>(path: string, options?: RequestOptions): Promise<ApiResponse<Body>>;
  /** POST /graphql */
  graphql<Data = Json>(query: string, variables?: Json): Promise<ApiResponse<{ data?: Data; errors?: GraphQLErrorBody[] }>>;
}

export interface GraphQLErrorBody {
  message: string;
  path?: string[];
  extensions?: { code?: string; errors?: { path: string; message: string }[]; requestId?: string };
}

export interface Credentials {
  apiKey?: string;
  cookie?: string;
  /** Sent as Origin on non-GET requests, as a browser page of that origin would. */
  origin?: string;
}

export function apiClient(baseUrl: string, credentials: Credentials = {}): ApiClient {
  async function request<Body>(method: string, path: string, body?: unknown, options: RequestOptions = {}) {
    const url = new URL(path, baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { ...options.headers };
    if (credentials.apiKey) headers.authorization = `Bearer ${credentials.apiKey}`;
    if (credentials.cookie) headers.cookie = credentials.cookie;
    if (credentials.origin && method !== 'GET') headers.origin ??= credentials.origin;
    let payload: string | FormData | undefined;
    if (body instanceof FormData) {
      // fetch writes the multipart boundary into the content type itself.
      payload = body;
    } else if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, body: payload, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    // The answer must be what the OpenAPI document says it is (test/helpers/contract.ts).
    const drift = contractProblem(method, url, response.status, response.headers.get('content-type'), parsed);
    if (drift) throw new Error(`The answer drifts from /docs-json: ${drift}\n${text.slice(0, 500)}`);
    return { status: response.status, headers: response.headers, body: parsed as Body, text };
  }
  return {
    request,
    get: (path, options) => request('GET', path, undefined, options),
    post: (path, body, options) => request('POST', path, body, options),
    patch: (path, body, options) => request('PATCH', path, body, options),
    delete: (path, options) => request('DELETE', path, undefined, options),
    graphql: (query, variables) => request('POST', '/graphql', { query, variables }),
  };
}
