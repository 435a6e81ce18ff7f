import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from './logger.js';

export interface Secrets {
  /** Signs sessions (better-auth). */
  authSecret: string;
  /** Encrypts IMAP passwords and webhook secrets at rest. */
  encryptionKey: string;
}

/**
 * AUTH_SECRET and ENCRYPTION_KEY from the environment; outside production a
 * missing one is generated once into DATA_DIR/secrets.json (mode 600) so that
 * sessions and encrypted data survive restarts without any configuration.
 */
export function resolveSecrets(config: Config, log: Logger): Secrets {
  if (config.authSecret !== undefined && config.encryptionKey !== undefined) {
    return { authSecret: config.authSecret, encryptionKey: config.encryptionKey };
  }
  const file = path.join(config.dataDir, 'secrets.json');
  let stored: Partial<Secrets> = {};
  if (fs.existsSync(file)) stored = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Secrets>;
  const generated: Secrets = {
    authSecret: stored.authSecret ?? randomBytes(32).toString('base64url'),
    encryptionKey: stored.encryptionKey ?? randomBytes(32).toString('base64url'),
  };
  if (stored.authSecret === undefined || stored.encryptionKey === undefined) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(generated, null, 2)}\n`, { mode: 0o600 });
    log.info({ file }, 'generated development secrets (set AUTH_SECRET and ENCRYPTION_KEY to choose your own)');
  }
  return {
    authSecret: config.authSecret ?? generated.authSecret,
    encryptionKey: config.encryptionKey ?? generated.encryptionKey,
  };
}
