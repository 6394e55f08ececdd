import type { Route } from '../router.js';
import { analyticsRoutes } from './analytics.js';
import { applicationRoutes } from './application.js';
import { channelAdminRoutes } from './channel-admin.js';
import { channelRoutes } from './channels.js';
import { fileRoutes } from './files.js';
import { importRoutes } from './imports.js';
import { jobRoutes } from './jobs.js';
import { memberRoutes } from './members.js';
import { messageExtraRoutes } from './message-extras.js';
import { messageRoutes } from './messages.js';
import { runtimeRoutes } from './runtime.js';
import { sessionRoutes } from './sessions.js';
import { threadRoutes } from './threads.js';
import { tokenRoutes } from './token.js';
import { userExtraRoutes } from './user-extras.js';
import { userRoutes } from './users.js';

/** Every route of the sandbox, one group per file (test/sandbox/operation-coverage.test.ts checks them against the spec). */
export const SANDBOX_ROUTES: readonly Route[] = [
  ...tokenRoutes, ...applicationRoutes, ...jobRoutes, ...importRoutes, ...analyticsRoutes,
  ...userRoutes, ...userExtraRoutes, ...channelRoutes, ...memberRoutes, ...channelAdminRoutes,
  ...messageRoutes, ...threadRoutes, ...messageExtraRoutes, ...sessionRoutes, ...runtimeRoutes, ...fileRoutes,
];
