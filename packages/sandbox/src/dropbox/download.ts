/**
 * files/download, on the content host: the argument is JSON in the Dropbox-API-Arg header (ASCII only,
 * other characters escaped as \uXXXX), the request has no body, and the answer is the file's content
 * with its metadata as JSON in the Dropbox-API-Result header.
 */
import { Ajv } from 'ajv';
import { requireScope } from './accounts.js';
import { DropboxBadInput, lookupError, type Handler } from './context.js';
import { metadata, resolve } from './files.js';
import { downloadArgument } from './table.js';

const ROUTE = 'files/download';
const checkArgument = new Ajv({ allErrors: false }).compile(downloadArgument);

/** Header values are ASCII; the escape keeps them so (the same rule as the tool's). */
const asciiJson = (value: unknown) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

function argumentOf(headers: Record<string, string>): { path: string } {
  const contentType = headers['content-type'];
  if (contentType !== undefined && contentType !== '' && !/^text\/plain(; *charset=dropbox-cors-hack)?$/i.test(contentType)) {
    throw new DropboxBadInput(
      ROUTE,
      `Bad HTTP "Content-Type" header: "${contentType}". Expecting one of "text/plain", "text/plain; charset=dropbox-cors-hack".`,
    );
  }
  const raw = headers['dropbox-api-arg'];
  if (raw === undefined) throw new DropboxBadInput(ROUTE, 'Must provide HTTP header "Dropbox-API-Arg" or URL parameter "arg".');
  if (/[^\x20-\x7e]/.test(raw)) throw new DropboxBadInput(ROUTE, 'HTTP header "Dropbox-API-Arg": must be ASCII; escape other characters as \\uXXXX.');
  let argument: unknown;
  try {
    argument = JSON.parse(raw);
  } catch {
    throw new DropboxBadInput(ROUTE, 'HTTP header "Dropbox-API-Arg": could not decode input as JSON');
  }
  if (!checkArgument(argument)) {
    const error = checkArgument.errors![0]!;
    throw new DropboxBadInput(ROUTE, `HTTP header "Dropbox-API-Arg": ${error.instancePath.slice(1) || 'argument'} ${error.message}`);
  }
  return argument as { path: string };
}

export const downloadHandlers: Record<string, Handler> = {
  [ROUTE]: ({ headers, accountId }, { db }) => {
    requireScope(db, accountId, 'files.content.read');
    const entry = resolve(db, accountId, argumentOf(headers).path);
    if (!entry || entry.is_folder) throw lookupError('not_file');
    // The stored bytes as they are (application/octet-stream, as Dropbox answers every download): a
    // binary file would not survive a round trip through a string.
    return { status: 200, body: entry.content ?? Buffer.alloc(0), headers: { 'dropbox-api-result': asciiJson(metadata(entry)) } };
  },
};
