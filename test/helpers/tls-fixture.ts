import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A self-signed certificate for 127.0.0.1 and localhost (valid until 2126) and its key: test-only, it guards nothing.
 * A spawned CLI trusts it through NODE_EXTRA_CA_CERTS=LOOPBACK_CERT_PATH.
 */
export const LOOPBACK_CERT_PATH = fileURLToPath(new URL('../fixtures/tls/loopback.crt', import.meta.url));

export const LOOPBACK_TLS = {
  cert: readFileSync(LOOPBACK_CERT_PATH, 'utf8'),
  key: readFileSync(fileURLToPath(new URL('../fixtures/tls/loopback.key', import.meta.url)), 'utf8'),
};
