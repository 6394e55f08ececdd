import type { Ctx } from './http.js';
import type { SandboxApp } from './app.js';

/** A route: method, a path pattern with `:name` segments, the scopes it needs, and its handler. */
export interface Route {
  method: string;
  /** e.g. `/channels/:id/members/:userId`. */
  path: string;
  /** Scopes of management-api.md §4 (or decisions.md); `null` means no bearer token (token endpoint, downloads). */
  scopes: readonly string[] | null;
  handler: (ctx: Ctx, app: SandboxApp) => Promise<void> | void;
}

interface Compiled {
  route: Route;
  segments: string[];
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'wrong-method'; allow: string[] }
  | { kind: 'none' };

/** A small router: routes are few, so a linear scan over split segments is plenty. */
export class Router {
  private readonly compiled: Compiled[] = [];

  add(...routes: Route[]): this {
    for (const route of routes) this.compiled.push({ route, segments: split(route.path) });
    return this;
  }

  /**
   * The route of `method` on `path`. HEAD is answered wherever GET is (RFC 9110 §9.3.2; wire rule 7), by
   * the GET route, whose body is then not sent (http.ts), unless the path has a HEAD route of its own
   * (`HEAD /users`, an existence check by name).
   */
  match(method: string, path: string): RouteMatch {
    const parts = split(path);
    const allow: string[] = [];
    let get: RouteMatch | undefined;
    for (const { route, segments } of this.compiled) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === method) return { kind: 'found', route, params };
      if (route.method === 'GET') get = { kind: 'found', route, params };
      allow.push(route.method);
    }
    if (method === 'HEAD' && get) return get;
    if (get && !allow.includes('HEAD')) allow.push('HEAD');
    return allow.length > 0 ? { kind: 'wrong-method', allow } : { kind: 'none' };
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(v);
      } catch {
        return undefined;
      }
    } else if (p !== v) return undefined;
  }
  return params;
}
