/** The data directory is created on first use; one that cannot be created or written is named in the error. */
import { accessSync, constants, mkdirSync } from 'node:fs';

/** Why the directory cannot hold Quiver's data, or undefined when it can (creating it if needed). */
export function dataDirProblem(dir: string): string | undefined {
  try {
    // The owner's alone: it will hold sealed tokens and key hashes.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return `cannot use the data directory ${dir} (${reason}); set QUIVER_DATA_DIR or --data-dir to a directory this user may write`;
  }
}
