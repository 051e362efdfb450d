/** A toolkit that tells whose token a call ran with: each user's token names the user (`token-of-<user>`). */
import { defineToolkit } from '@quiver/core';
import type { Credentials } from '@quiver/engine';

export const probe = defineToolkit(
  {
    name: 'Probe',
    version: '1',
    description: 'Tells whose token a call ran with.',
    baseUrl: 'http://127.0.0.1:9',
    tools: [
      {
        name: 'WhoAmI',
        description: 'The acting user.',
        parameters: [],
        output: { description: 'The user.' },
        requirements: { oauth2: { provider: 'probe', scopes: [] } },
      },
      { name: 'Plain', description: 'Needs no user.', parameters: [], output: { description: 'Nothing.' }, requirements: {} },
    ],
  },
  {
    WhoAmI: async (_input, context) => ({ value: { acting_as: context.token!.slice('token-of-'.length) } }),
    Plain: async () => ({ value: { ok: true } }),
  },
);

/** Every user holds a token naming them, for every provider. */
export const probeCredentials = (): Credentials => ({ token: async (userId: string) => ({ token: `token-of-${userId}` }), grants: async () => () => true });
