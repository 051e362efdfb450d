/**
 * Where the command's log lines go: standard error as JSON lines (pino's, for whatever collects them), or
 * as `pretty` lines for a person at a terminal, formatted by a small stream rather than a transport and
 * its worker thread: `12:00:01.234 INFO  request completed POST /v1/tools/execute status=200 ...`.
 */
import type { LogFormat } from './config.js';

/** pino's level numbers. */
const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

export interface LineStream {
  write(line: string): void;
}

export function logStream(format: LogFormat, out: LineStream = process.stderr): LineStream {
  return format === 'json' ? out : { write: (line) => out.write(prettyLine(line)) };
}

/** One JSON log line as a person reads it; a line that is not JSON is left as it is. */
export function prettyLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  if (!record || typeof record !== 'object') return line;
  const { time, level, msg, pid: _pid, hostname: _hostname, req, ...fields } = record;
  const when = new Date(typeof time === 'number' || typeof time === 'string' ? time : Date.now()).toISOString().slice(11, 23);
  const label = (typeof level === 'number' ? LEVELS[level] : undefined) ?? 'INFO';
  const request = req && typeof req === 'object' ? `${(req as { method?: string }).method} ${(req as { url?: string }).url}` : undefined;
  const rest = Object.entries(fields).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return `${[when, label.padEnd(5), msg, request, ...rest].filter((part) => part !== undefined && part !== '').join(' ')}\n`;
}
