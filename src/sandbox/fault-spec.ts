import type { Fault, FaultRule } from './options.js';

/**
 * The command-line form of a fault rule (`chatport sandbox --fault <spec>`):
 *
 *   [METHOD] [PATH]=KIND:ARG[,key=value...][@PROBABILITY]
 *
 *   POST /imports/**=status:503@0.2          503 on 20% of import uploads
 *   /jobs/*=status:429,retry-after=3         429 with Retry-After: 3 (retry-after-date=3 for an HTTP date)
 *   **=rate:100/60s                          100 requests per client per minute, then 429 (add ,http-date)
 *   POST /imports/messages=drop:mid-body     before-body | mid-body | after-processing
 *   GET **=delay:250ms                       ms, or s (delay:2s)
 *   **=redirect:307                          same-origin via /_r/<path>; redirect:307,http://127.0.0.1:9999 for another origin
 *   POST /channels=status:500,times=2        fire twice, then retire
 *
 * Pure: throws a TypeError naming the spec and what was expected.
 */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

export function parseFaultSpec(spec: string): FaultRule {
  const bad = (why: string): never => {
    throw new TypeError(`invalid --fault '${spec}': ${why}`);
  };
  // Paths never hold '=', so the first one separates the match from the fault.
  const eq = spec.indexOf('=');
  if (eq < 0) bad('expected [METHOD] [PATH]=KIND:ARG, e.g. POST /imports/**=status:503@0.2');
  const rule: Partial<FaultRule> = {};
  for (const token of spec.slice(0, eq).trim().split(/\s+/).filter(Boolean)) {
    if (token.startsWith('/') || token === '**' || token === '*') {
      if (token !== '*' && token !== '**') rule.path = token;
    } else if (METHODS.includes(token.toUpperCase()) && rule.method === undefined) rule.method = token.toUpperCase();
    else bad(`'${token}' is neither an HTTP method (${METHODS.join(', ')}) nor a path starting with '/'`);
  }
  let action = spec.slice(eq + 1).trim();
  const at = action.lastIndexOf('@');
  if (at >= 0) {
    rule.probability = probability(action.slice(at + 1), bad);
    action = action.slice(0, at);
  }
  const colon = action.indexOf(':');
  if (colon < 0) bad('expected KIND:ARG after =');
  const kind = action.slice(0, colon);
  const [arg = '', ...rest] = action.slice(colon + 1).split(',');
  const opts = new Map<string, string>();
  const flags = new Set<string>();
  for (const item of rest) {
    const [k, v] = item.split('=', 2);
    if (v === undefined) flags.add(k!.trim());
    else opts.set(k!.trim(), v.trim());
  }
  if (opts.has('times')) rule.times = positiveInt(opts.get('times')!, 'times', bad);
  if (opts.has('p')) rule.probability = probability(opts.get('p')!, bad);
  rule.fault = parseFault(kind, arg.trim(), opts, flags, bad);
  return rule as FaultRule;
}

function parseFault(kind: string, arg: string, opts: Map<string, string>, flags: Set<string>, bad: (why: string) => never): Fault {
  switch (kind) {
    case 'status': {
      const status = positiveInt(arg, 'status', bad);
      if (status < 400 || status > 599) bad('status must be 400..599');
      if (opts.has('retry-after')) return { kind, status, retryAfter: { seconds: positiveInt(opts.get('retry-after')!, 'retry-after', bad) } };
      if (opts.has('retry-after-date'))
        return { kind, status, retryAfter: { httpDateInSeconds: positiveInt(opts.get('retry-after-date')!, 'retry-after-date', bad) } };
      return { kind, status };
    }
    case 'rate': {
      const m = /^(\d+)\/(\d+)(ms|s|m)?$/.exec(arg);
      if (!m) return bad(`rate needs BUDGET/WINDOW, e.g. rate:100/60s, got '${arg}'`);
      const windowMs = Number(m[2]) * (m[3] === 'm' ? 60_000 : m[3] === 'ms' ? 1 : 1000);
      return { kind: 'rateLimit', budget: Number(m[1]), windowMs, retryAfterAs: flags.has('http-date') ? 'http-date' : 'seconds' };
    }
    case 'drop':
      if (arg !== 'before-body' && arg !== 'mid-body' && arg !== 'after-processing')
        return bad(`drop needs before-body, mid-body or after-processing, got '${arg}'`);
      return { kind, when: arg };
    case 'delay': {
      const m = /^(\d+)(ms|s)?$/.exec(arg);
      if (!m) return bad(`delay needs a duration like 250ms or 2s, got '${arg}'`);
      return { kind, ms: Number(m[1]) * (m[2] === 's' ? 1000 : 1) };
    }
    case 'redirect': {
      const status = positiveInt(arg, 'redirect status', bad);
      if (![301, 302, 303, 307, 308].includes(status)) bad('redirect status must be 301, 302, 303, 307 or 308');
      const origin = [...flags].find((f) => /^https?:\/\//.test(f));
      return { kind, status: status as 301 | 302 | 303 | 307 | 308, ...(origin ? { toOrigin: origin } : {}) };
    }
    default:
      return bad(`unknown fault kind '${kind}' (status, rate, drop, delay, redirect)`);
  }
}

function positiveInt(raw: string, name: string, bad: (why: string) => never): number {
  if (!/^\d+$/.test(raw)) bad(`${name} must be a whole number, got '${raw}'`);
  return Number(raw);
}

function probability(raw: string, bad: (why: string) => never): number {
  const p = Number(raw);
  if (raw.trim() === '' || !(p >= 0 && p <= 1)) bad(`probability must be within 0..1, got '${raw}'`);
  return p;
}
