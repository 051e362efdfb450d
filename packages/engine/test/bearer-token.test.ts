/** The one Bearer header reading (RFC 6750 §2.1) of the API, the MCP endpoint and the worker server. */
import { describe, expect, it } from 'vitest';
import { bearerToken } from '../src/http/bearer-token.js';

describe('bearerToken', () => {
  it('reads the token of a well-formed header, the scheme in any case', () => {
    expect(bearerToken('Bearer qk_abc-DEF.123~x+y/z')).toBe('qk_abc-DEF.123~x+y/z');
    expect(bearerToken('bearer qk_abc')).toBe('qk_abc');
    expect(bearerToken('BEARER qk_abc')).toBe('qk_abc');
    // A token68 may end in padding.
    expect(bearerToken('Bearer YWJj==')).toBe('YWJj==');
  });

  it('reads no token from anything else', () => {
    const refused = [
      undefined,
      '',
      'Bearer',
      'Bearer ',
      'Bearer  qk_abc',
      'Bearer\tqk_abc',
      ' Bearer qk_abc',
      'Bearer qk_abc ',
      'Bearer qk_abc garbage',
      'Bearer qk_abc,other',
      'Bearer qk"abc',
      'Bearer qk=abc',
      'Bearer =',
      'Bearer qk_äbc',
      'Basic dXNlcjpwYXNz',
      'Bearerqk_abc',
      'qk_abc',
    ];
    for (const header of refused) expect(bearerToken(header), JSON.stringify(header)).toBeUndefined();
  });
});
