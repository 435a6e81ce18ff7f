/**
 * /docs (Swagger UI, served from swagger-ui-dist: no CDN), /docs-json and
 * /docs-yaml. The document is built and serialised once, when it is first
 * asked for: most API processes never serve it, and holding it (the document,
 * its JSON, and the collation data its sorting maps in) costs memory in each
 * (figures: docs/performance.md).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { OpenApiDocument } from '../rest/openapi.js';
import type { HttpResult } from '../lib/problem.js';

const require = createRequire(import.meta.url);
const swaggerDirectory = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Tally API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const initScript = `window.ui = SwaggerUIBundle({
  url: '/docs-json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  withCredentials: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout'
});
`;

const securityHeaders = {
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  'x-content-type-options': 'nosniff',
};

interface Cached {
  body: Buffer;
  headers: Record<string, string>;
}

function cached(body: Buffer | string, contentType: string, extra: Record<string, string> = {}): Cached {
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const etag = `"${createHash('sha256').update(buffer).digest('base64url').slice(0, 27)}"`;
  return { body: buffer, headers: { 'content-type': contentType, etag, 'cache-control': 'no-cache', ...extra } };
}

export interface DocsHandler {
  /** The answer for a /docs* path, or undefined when the path is not one of ours. */
  handle(pathname: string, ifNoneMatch: string | undefined): Promise<HttpResult | undefined>;
}

/** `documentOf` builds the OpenAPI document; it is called once, on the first request for it. */
export function createDocsHandler(documentOf: () => OpenApiDocument): DocsHandler {
  const files = new Map<string, Cached>([
    ['/docs', cached(page, 'text/html; charset=utf-8', securityHeaders)],
    ['/docs/', cached(page, 'text/html; charset=utf-8', securityHeaders)],
    ['/docs/init.js', cached(initScript, 'text/javascript; charset=utf-8')],
  ]);
  let document: OpenApiDocument | undefined;
  const theDocument = (): OpenApiDocument => {
    document ??= documentOf();
    return document;
  };
  let json: Cached | undefined;
  const jsonDocument = (): Cached => {
    json ??= cached(`${JSON.stringify(theDocument(), null, 2)}\n`, 'application/json; charset=utf-8');
    return json;
  };
  // The YAML form (and the YAML library) only when someone asks for it.
  let yaml: Promise<Cached> | undefined;
  const yamlDocument = (): Promise<Cached> =>
    (yaml ??= import('yaml').then(({ stringify }) => cached(stringify(theDocument(), { aliasDuplicateObjects: false }), 'application/yaml; charset=utf-8')));
  const assetCache = new Map<string, Cached>();

  return {
    async handle(pathname, ifNoneMatch) {
      let file = pathname === '/docs-yaml' ? await yamlDocument() : pathname === '/docs-json' ? jsonDocument() : files.get(pathname);
      const asset = pathname.startsWith('/docs/') ? pathname.slice('/docs/'.length) : undefined;
      if (!file && asset !== undefined && assets[asset]) {
        file = assetCache.get(asset);
        if (!file) {
          // Read on first use: the bundle is large and most processes never serve it.
          file = cached(fs.readFileSync(path.join(swaggerDirectory, asset)), assets[asset]);
          assetCache.set(asset, file);
        }
      }
      if (!file) return undefined;
      if (ifNoneMatch === file.headers.etag) return { status: 304, headers: { etag: file.headers.etag as string } };
      return { status: 200, headers: file.headers, body: file.body };
    },
  };
}
