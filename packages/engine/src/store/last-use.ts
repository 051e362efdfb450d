/**
 * When something was last used (an API key, a secret), to the minute: written at most once a minute per
 * item and off the caller's path, so that using it costs no database write.
 */
export class LastUse {
  private readonly written = new Map<string, number>();

  constructor(
    /** Writes the time for one item; a failure is forgotten, so the next use tries again. */
    private readonly write: (id: string, at: string) => Promise<unknown>,
  ) {}

  /** What the database says already, so that the first use after start writes nothing new. */
  known(id: string, at: string | null): void {
    if (at) this.written.set(id, Date.parse(at));
  }

  note(id: string): void {
    const now = Date.now();
    if (now - (this.written.get(id) ?? 0) < 60_000) return;
    this.written.set(id, now);
    this.write(id, new Date(now).toISOString()).catch(() => this.written.delete(id));
  }
}
