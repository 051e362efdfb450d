import { randomBytes, randomUUID } from 'node:crypto';

/** Exchange-style ids: long, opaque, and safe in a URL path segment. */
export const itemId = (): string => `AAMkA${randomBytes(33).toString('base64url')}`;
export const folderId = (): string => `AAMkAF${randomBytes(24).toString('base64url')}`;
export const conversationId = (): string => `AAQkA${randomBytes(18).toString('base64url')}`;
export const userId = (): string => randomUUID();
