/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {}
