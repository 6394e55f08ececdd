/** The store could not be reached, or answered 5xx (after the SDK's retries): S3 sources and sinks alike. */
export function isUnreachable(error: { name?: string; code?: string }, status: number | undefined): boolean {
  if (status !== undefined) return status >= 500;
  return (typeof error.code === 'string' && /^(E[A-Z]+|UND_ERR)/.test(error.code)) || error.name === 'TimeoutError';
}
