export type { TokenInfo, TokenProvider } from './provider.js';
export { createStaticTokenProvider } from './static-token.js';
export { createClientCredentialsProvider, type ClientCredentials, type FetchToken } from './client-credentials.js';
