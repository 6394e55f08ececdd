import type { Route } from '../router.js';
import { notFound } from '../errors.js';
import { sendJson } from '../http.js';
import { offsetPage } from '../paging.js';
import type { SandboxApp } from '../app.js';
import type { JobRec } from '../store.js';
import { booleanParam, pathId } from './common.js';

/** A job as the wire shows it; a finished export carries a fresh download URL. */
export function renderJob(app: SandboxApp, job: JobRec): Record<string, unknown> {
  const url = job.state === 'FINISHED' && job.exportFile !== undefined ? app.exports.urlFor(job.exportFile) : undefined;
  return app.render.job(job, url);
}

export const jobRoutes: Route[] = [
  {
    method: 'GET',
    path: '/jobs',
    scopes: ['read:job'],
    handler: (ctx, app) => {
      // `running=true`: jobs not yet final (PENDING or RUNNING), which is what a caller waiting on work needs.
      const running = booleanParam(ctx, 'running');
      const jobs = [...app.store.jobs.values()].filter((j) => running === undefined || (j.state === 'PENDING' || j.state === 'RUNNING') === running);
      sendJson(ctx, 200, offsetPage(ctx, app.baseUrl(), 'jobs', jobs, (j) => renderJob(app, j), {
        id: (j) => j.id,
        createdTime: (j) => j.createdTime,
        state: (j) => j.state,
        type: (j) => j.type,
      }));
    },
  },
  {
    method: 'GET',
    path: '/jobs/:id',
    scopes: ['read:job'],
    handler: (ctx, app) => {
      const job = app.store.jobs.get(pathId(ctx));
      if (!job) throw notFound();
      sendJson(ctx, 200, renderJob(app, job));
    },
  },
];
