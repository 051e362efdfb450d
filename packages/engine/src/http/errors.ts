/** Every failure leaves the API as JSON `{name, message}` with a fitting status: never HTML, never a stack. */

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (what: string) => new HttpError(404, 'not_found', `${what} not found`);
export const badRequest = (message: string) => new HttpError(400, 'bad_request', message);
export const conflict = (message: string) => new HttpError(409, 'conflict', message);

export const errorSchema = {
  type: 'object',
  required: ['name', 'message'],
  properties: { name: { type: 'string' }, message: { type: 'string' } },
} as const;
