/** What a token response said; a static token has none of this. */
export interface TokenInfo {
  /** Scopes granted, from the token response's `scope`. */
  scopes: string[];
  /** When the cached token expires (ms since epoch, the client's clock). */
  expiresAtMs: number;
  /** `expires_in` of the response, seconds. */
  lifetimeSeconds: number;
}

/** Where bearer tokens come from. */
export interface TokenProvider {
  readonly kind: 'client-credentials' | 'static';
  /** A token valid now (cached, or fetched when missing or about to expire). */
  getToken(signal?: AbortSignal): Promise<string>;
  /**
   * The server refused `token` (401): forget it so the next `getToken` fetches a fresh one.
   * Returns false when the provider cannot renew (a static token).
   */
  invalidate(token: string): boolean;
  /** Facts from the last token response, or undefined (static token, or none fetched yet). */
  describe(): TokenInfo | undefined;
  /** The client closed: tokens it fetched are let go (and no longer scrubbed); a static token stays, as the caller's own. */
  close?(): void;
}
