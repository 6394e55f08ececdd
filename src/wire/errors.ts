import { z } from 'zod';

/** Error bodies of management-api.md §7. */
export const ApiErrorBody = z.looseObject({
  error: z.string(),
  message: z.string().optional(),
  timestamp: z.string().optional(),
});
export const AuthErrorBody = z.looseObject({
  error: z.string(),
  error_description: z.string().optional(),
});
export const ErrorBody = z.union([ApiErrorBody, AuthErrorBody]);
export type ErrorBody = z.infer<typeof ErrorBody>;

export const ERROR_KIND = {
  client: 'ClientError',
  notFound: 'ResourceNotFoundError',
  unauthorized: 'unauthorized',
  forbidden: 'access_denied',
} as const;
