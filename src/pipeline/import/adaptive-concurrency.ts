/**
 * Upload concurrency that backs off under the platform's rate limit: additive increase, multiplicative
 * decrease. The API client already pauses every request while a 429's Retry-After runs; this lowers how many
 * jobs are in flight afterwards, so that uploads and job polls stop running into the limit again and again.
 * Each time new 429s were met, the concurrency halves (at least 1); after as many calm uploads in a row as
 * the current concurrency, it grows by one, back up to the configured value.
 */
export class AdaptiveConcurrency {
  private current: number;
  private lowestSeen: number;
  private rateLimitedSeen: number;
  private calm = 0;

  /** `rateLimitedSoFar`: the client's running count of 429 answers when the stage starts. */
  constructor(
    readonly configured: number,
    rateLimitedSoFar: number,
  ) {
    this.current = configured;
    this.lowestSeen = configured;
    this.rateLimitedSeen = rateLimitedSoFar;
  }

  get value(): number {
    return this.current;
  }

  get lowest(): number {
    return this.lowestSeen;
  }

  /** Told the client's running count of 429 answers after each upload; returns the concurrency to use now. */
  afterUpload(rateLimitedSoFar: number): number {
    if (rateLimitedSoFar > this.rateLimitedSeen) {
      this.rateLimitedSeen = rateLimitedSoFar;
      this.current = Math.max(1, Math.floor(this.current / 2));
      this.lowestSeen = Math.min(this.lowestSeen, this.current);
      this.calm = 0;
    } else if (this.current < this.configured && ++this.calm >= this.current) {
      this.current++;
      this.calm = 0;
    }
    return this.current;
  }
}
