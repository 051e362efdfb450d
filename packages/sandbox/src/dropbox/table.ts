/**
 * The Dropbox operations the FileStore tools call, written from Dropbox's API v2 reference (Dropbox
 * publishes its description as Stone files, not on npm): RPC endpoints of the api host (POST, JSON body)
 * and the download endpoint of the content host (POST, argument in the Dropbox-API-Arg header, content
 * as the body). Labels are Dropbox's route names, which its error texts quote.
 */
import type { JsonSchema, OperationTable } from '../emulator/operations.js';

/** Categories of search_v2 (Dropbox's FileCategory). */
export const fileCategories = ['image', 'document', 'pdf', 'spreadsheet', 'presentation', 'audio', 'video', 'folder', 'paper', 'others'];

/** The root is "", a folder is /a/b, and id:... or ns:... name an item without its path. */
const folderPath: JsonSchema = { type: 'string', pattern: '^(|/[\\s\\S]*|id:[\\s\\S]*|ns:[0-9]+(/[\\s\\S]*)?)$' };
const cursor: JsonSchema = { type: 'string', minLength: 1 };
const tagged = (values: string[]): JsonSchema => ({
  anyOf: [
    { type: 'string', enum: values },
    { type: 'object', required: ['.tag'], properties: { '.tag': { type: 'string', enum: values } } },
  ],
});

const file: JsonSchema = {
  type: 'object',
  required: ['.tag', 'name', 'id', 'client_modified', 'server_modified', 'rev', 'size', 'path_lower', 'path_display', 'is_downloadable', 'content_hash'],
  properties: {
    '.tag': { type: 'string', enum: ['file'] },
    name: { type: 'string' },
    id: { type: 'string' },
    client_modified: { type: 'string', format: 'date-time' },
    server_modified: { type: 'string', format: 'date-time' },
    rev: { type: 'string' },
    size: { type: 'integer', minimum: 0 },
    path_lower: { type: 'string' },
    path_display: { type: 'string' },
    is_downloadable: { type: 'boolean' },
    content_hash: { type: 'string' },
  },
};

const folder: JsonSchema = {
  type: 'object',
  required: ['.tag', 'name', 'id', 'path_lower', 'path_display'],
  properties: {
    '.tag': { type: 'string', enum: ['folder'] },
    name: { type: 'string' },
    id: { type: 'string' },
    path_lower: { type: 'string' },
    path_display: { type: 'string' },
  },
};

const metadata: JsonSchema = { anyOf: [{ $ref: '#/$defs/FileMetadata' }, { $ref: '#/$defs/FolderMetadata' }] };

const listResult: JsonSchema = {
  type: 'object',
  required: ['entries', 'cursor', 'has_more'],
  properties: { entries: { type: 'array', items: metadata }, cursor, has_more: { type: 'boolean' } },
};

const searchResult: JsonSchema = {
  type: 'object',
  required: ['matches', 'has_more'],
  properties: {
    matches: {
      type: 'array',
      items: {
        type: 'object',
        required: ['metadata', 'match_type'],
        properties: {
          metadata: { type: 'object', required: ['.tag', 'metadata'], properties: { '.tag': { type: 'string', enum: ['metadata'] }, metadata } },
          match_type: {
            type: 'object',
            required: ['.tag'],
            properties: { '.tag': { type: 'string', enum: ['filename', 'file_content', 'filename_and_content'] } },
          },
        },
      },
    },
    has_more: { type: 'boolean' },
    cursor,
  },
};

const rpc = (path: string, requestBody: JsonSchema, responseBody: JsonSchema) => ({
  method: 'POST',
  path,
  pathParameters: {},
  queryParameters: {},
  requestContentType: 'application/json',
  requestBody,
  successStatus: 200,
  responseBody,
});

export const operationTable: OperationTable = {
  $defs: { FileMetadata: file, FolderMetadata: folder },
  operations: {
    'files/list_folder': rpc(
      '/2/files/list_folder',
      {
        type: 'object',
        required: ['path'],
        properties: {
          path: folderPath,
          recursive: { type: 'boolean' },
          include_media_info: { type: 'boolean' },
          include_deleted: { type: 'boolean' },
          include_has_explicit_shared_members: { type: 'boolean' },
          include_mounted_folders: { type: 'boolean' },
          include_non_downloadable_files: { type: 'boolean' },
          limit: { type: 'integer', minimum: 1, maximum: 2000 },
        },
      },
      listResult,
    ),
    'files/list_folder/continue': rpc('/2/files/list_folder/continue', { type: 'object', required: ['cursor'], properties: { cursor } }, listResult),
    'files/search_v2': rpc(
      '/2/files/search_v2',
      {
        type: 'object',
        required: ['query'],
        properties: {
          query: { type: 'string', maxLength: 1000 },
          options: {
            type: 'object',
            properties: {
              path: folderPath,
              max_results: { type: 'integer', minimum: 1, maximum: 1000 },
              order_by: tagged(['relevance', 'last_modified_time']),
              file_status: tagged(['active', 'deleted']),
              filename_only: { type: 'boolean' },
              file_extensions: { type: 'array', items: { type: 'string' } },
              file_categories: { type: 'array', items: tagged(fileCategories) },
            },
          },
          match_field_options: { type: 'object', properties: { include_highlights: { type: 'boolean' } } },
        },
      },
      searchResult,
    ),
    'files/search/continue_v2': rpc('/2/files/search/continue_v2', { type: 'object', required: ['cursor'], properties: { cursor } }, searchResult),
    // Content host: the argument travels in the Dropbox-API-Arg header, checked by the handler.
    'files/download': {
      method: 'POST',
      path: '/2/files/download',
      pathParameters: {},
      queryParameters: {},
      successStatus: 200,
      responseContentType: 'application/octet-stream',
      responseBody: { type: 'string' },
    },
  },
};

/** The Dropbox-API-Arg of files/download. */
export const downloadArgument: JsonSchema = {
  type: 'object',
  required: ['path'],
  properties: { path: { type: 'string', pattern: '^(/[\\s\\S]*|id:[\\s\\S]*|rev:[0-9a-f]{9,}|ns:[0-9]+(/[\\s\\S]*)?)$' }, rev: { type: 'string' } },
  additionalProperties: false,
};
