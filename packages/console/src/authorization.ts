/** An authorization followed to its end, by the connections page and by the playground. */
import type { Authorization } from '@quiver/core';
import { useEffect, useState } from 'preact/hooks';
import { api, query } from './api.js';

export type { Authorization };

const settled = (authorization: Authorization) => authorization.status === 'completed' || authorization.status === 'failed';

/**
 * Follows the authorization given to `follow`: the engine answers /auth/status when it changes (long poll),
 * or after 20 s to be asked again. `onCompleted` runs once, when the user has allowed access.
 */
export function useFollowedAuthorization(onCompleted: (authorization: Authorization) => void): {
  authorization: Authorization | undefined;
  follow: (authorization: Authorization | undefined) => void;
  error: unknown;
} {
  const [authorization, follow] = useState<Authorization | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    setError(undefined);
    if (!authorization || settled(authorization)) return;
    let live = true;
    api<Authorization>('GET', `/auth/status${query({ id: authorization.id, wait: 20 })}`).then(
      (next) => {
        if (!live) return;
        follow({ ...next, url: next.url ?? authorization.url });
        if (next.status === 'completed') onCompleted(next);
      },
      (caught: unknown) => live && setError(caught),
    );
    return () => {
      live = false;
    };
  }, [authorization]);
  return { authorization, follow, error };
}
