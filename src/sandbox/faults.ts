import type { Fault, FaultRule, RetryAfterSpec } from './options.js';
import type { HttpError} from './errors.js';
import { statusError } from './errors.js';

/**
 * Fault rules (options.ts) decided per request. Rules are looked at in order; every matching rule rolls
 * its probability (through the injected `random`). Delays add up and the request goes on; the first
 * other fault that fires decides the request (answer, drop or redirect).
 */
export type FaultDecision =
  | { kind: 'answer'; error: HttpError }
  | { kind: 'drop'; when: 'before-body' | 'mid-body' | 'after-processing' }
  | { kind: 'redirect'; status: number; toOrigin?: string };

export interface FaultOutcome {
  delayMs: number;
  decision?: FaultDecision;
}

interface LiveRule {
  rule: FaultRule;
  fired: number;
  windows: Map<string, { start: number; count: number }>;
}

export class FaultEngine {
  private live: LiveRule[] = [];

  constructor(
    rules: FaultRule[],
    private readonly random: () => number,
  ) {
    this.set(rules);
  }

  set(rules: FaultRule[]): void {
    for (const rule of rules) validateRule(rule);
    this.live = rules.map((rule) => ({ rule, fired: 0, windows: new Map() }));
  }

  /**
   * `client` keys rate-limit budgets. `redirected` is true under `/_r/`: redirect faults do not fire
   * there, or a redirect rule matching `**` would send the client round forever.
   */
  decide(method: string, path: string, client: string, redirected: boolean, now = Date.now()): FaultOutcome {
    let delayMs = 0;
    for (const live of this.live) {
      const { rule } = live;
      if (rule.times !== undefined && live.fired >= rule.times) continue;
      if (rule.method !== undefined && rule.method.toUpperCase() !== method) continue;
      if (rule.path !== undefined && !matchPath(rule.path, path)) continue;
      if (redirected && rule.fault.kind === 'redirect') continue;
      if (rule.probability !== undefined && rule.probability < 1 && this.random() >= rule.probability) continue;
      const decision = this.fire(live, rule.fault, client, now);
      if (decision === 'pass') continue;
      live.fired++;
      if (decision.kind === 'delay') {
        delayMs += decision.ms;
        continue;
      }
      return { delayMs, decision };
    }
    return { delayMs };
  }

  private fire(live: LiveRule, fault: Fault, client: string, now: number): FaultDecision | { kind: 'delay'; ms: number } | 'pass' {
    switch (fault.kind) {
      case 'delay':
        return { kind: 'delay', ms: fault.ms };
      case 'status': {
        const headers = fault.retryAfter ? { 'retry-after': retryAfterValue(fault.retryAfter, now) } : undefined;
        return { kind: 'answer', error: statusError(fault.status, `injected fault: status ${fault.status}`, headers) };
      }
      case 'drop':
        return { kind: 'drop', when: fault.when };
      case 'redirect':
        return { kind: 'redirect', status: fault.status, toOrigin: fault.toOrigin };
      case 'rateLimit': {
        let window = live.windows.get(client);
        if (!window || now >= window.start + fault.windowMs) live.windows.set(client, (window = { start: now, count: 0 }));
        window.count++;
        if (window.count <= fault.budget) return 'pass';
        const seconds = Math.max(1, Math.ceil((window.start + fault.windowMs - now) / 1000));
        const value = fault.retryAfterAs === 'http-date' ? httpDateNotBefore(window.start + fault.windowMs) : String(seconds);
        return {
          kind: 'answer',
          error: statusError(429, `rate limit exceeded: ${fault.budget} requests per ${fault.windowMs} ms`, { 'retry-after': value }),
        };
      }
    }
  }
}

function retryAfterValue(spec: RetryAfterSpec, now: number): string {
  return 'seconds' in spec ? String(spec.seconds) : httpDateNotBefore(now + spec.httpDateInSeconds * 1000);
}

/**
 * An HTTP date has whole seconds; rounding down would name a time before the window ends, and a client
 * that obeys it exactly would come back early and meet another 429. So round up.
 */
function httpDateNotBefore(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toUTCString();
}

/** `*` matches one segment, `**` any rest (also nothing). */
export function matchPath(pattern: string, path: string): boolean {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '**') return true;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}

export function validateRule(rule: FaultRule): void {
  const f = rule.fault;
  const bad = (why: string) => {
    throw new TypeError(`invalid sandbox fault rule ${JSON.stringify(rule)}: ${why}`);
  };
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) bad('probability must be within 0..1');
  if (f.kind === 'status' && !(f.status >= 400 && f.status <= 599)) bad('status must be 400..599');
  if (f.kind === 'rateLimit' && !(f.budget >= 0 && f.windowMs > 0)) bad('budget must be >= 0 and windowMs > 0');
  if (f.kind === 'delay' && !(f.ms >= 0)) bad('ms must be >= 0');
  if (f.kind === 'redirect' && ![301, 302, 303, 307, 308].includes(f.status)) bad('redirect status must be 301, 302, 303, 307 or 308');
  if (f.kind === 'drop' && !['before-body', 'mid-body', 'after-processing'].includes(f.when)) bad('unknown drop moment');
}
