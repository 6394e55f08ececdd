import { registerSecret } from '../../shared/secrets.js';
import type { TokenProvider } from './provider.js';

/** A token the user obtained elsewhere (`CHATPORT_ACCESS_TOKEN`). It cannot be renewed. */
export function createStaticTokenProvider(accessToken: string): TokenProvider {
  registerSecret(accessToken);
  return {
    kind: 'static',
    getToken: async () => accessToken,
    invalidate: () => false,
    describe: () => undefined,
  };
}
