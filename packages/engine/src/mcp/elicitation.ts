/**
 * Elicitation (MCP 2025-11-25): asking the person at the client rather than the model, and only of a
 * client that declared the mode at `initialize`.
 * - Form mode confirms a destructive call (`--confirm-destructive`): the message names the tool and shows
 *   its arguments with secret-looking values left out, and the form has one boolean. Nothing else is
 *   ever asked through a form: a form's answer passes through the client, so no credential may.
 * - URL mode sends the person to a provider's authorization page when a call needs one; the engine waits
 *   for the authorization as `GET /v1/auth/status?wait=` does and then runs the call again.
 * Every other client keeps the model's ways: the `confirm` argument, and the authorization URL in the text.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ClientCapabilities, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { confirmationMessage, confirmName, qualifiedName, type Authorization, type ConfirmWithPerson, type Tool, type ToolResult } from '@quiver/core';

/** How long the person has to answer a request, and then to complete an authorization they accepted. */
export const PERSON_WAIT_MS = 10 * 60_000;
/** One wait for an authorization (the engine's long-poll allows at most 59 s); progress is reported after each. */
const WAIT_SECONDS = 25;

/** The modes a client declared (`elicitation: {}` is form mode, as the specification keeps it). */
export function elicitationModes(capabilities: ClientCapabilities | undefined): { form: boolean; url: boolean } {
  const declared = capabilities?.elicitation;
  return { form: declared?.form !== undefined, url: declared?.url !== undefined };
}

/** The engine's authorizations, as far as a call waiting for one needs them. */
export interface AuthorizationWait {
  /** The authorization once it is no longer pending, or after `waitSeconds` (at most 59). */
  status(id: string, waitSeconds: number): Promise<Authorization | undefined>;
}

/** The tools/call request a question belongs to: over HTTP it goes out on that request's stream. */
export interface Asking {
  server: Server;
  requestId: RequestId;
  signal: AbortSignal;
  /** The client's progress token, if it sent one: long waits report progress so that its timeout starts again. */
  progress?: (message: string) => Promise<void>;
}

/** Confirmation of a destructive call by the person, through a form with one boolean. */
export function confirmThroughForm({ server, requestId, signal }: Asking): ConfirmWithPerson {
  return async (tool, args) => {
    try {
      const answer = await server.elicitInput(
        {
          mode: 'form',
          message: confirmationMessage(tool, args),
          requestedSchema: {
            type: 'object',
            properties: {
              [confirmName]: { type: 'boolean', title: `Run ${qualifiedName(tool)}`, description: 'Check to run this exact action.', default: false },
            },
            required: [confirmName],
          },
        },
        { relatedRequestId: requestId, signal, timeout: PERSON_WAIT_MS },
      );
      return answer.action === 'accept' && answer.content?.[confirmName] === true;
    } catch {
      // The client could not ask (it failed, or the person never answered): the model's `confirm` decides.
      return undefined;
    }
  };
}

/**
 * Sends the person to the authorization a call was refused for want of, and waits until it completes:
 * `completed` (the caller runs the call again), or a note saying why not (the person declined, the
 * authorization failed or was not completed in time), which the caller adds to the refusal it answers.
 */
export async function authorizeThroughUrl(
  asking: Asking,
  authorizations: AuthorizationWait,
  tool: Tool,
  authorization: Authorization & { url: string },
): Promise<{ completed: true } | { note: string }> {
  const { server, requestId, signal } = asking;
  // The authorization's own id: every call waiting for the same authorization completes with it.
  const elicitationId = authorization.id;
  let action: string;
  try {
    const answer = await server.elicitInput(
      {
        mode: 'url',
        message: `${qualifiedName(tool)} needs your authorization with ${authorization.provider_id}. Open the page to grant it; the call runs once you have.`,
        url: authorization.url,
        elicitationId,
      },
      { relatedRequestId: requestId, signal, timeout: PERSON_WAIT_MS },
    );
    action = answer.action;
  } catch {
    return { note: 'The client could not ask the user to open the authorization page.' };
  }
  if (action !== 'accept') return { note: `The user ${action === 'decline' ? 'declined' : 'cancelled'} the authorization request.` };
  const deadline = Date.now() + PERSON_WAIT_MS;
  for (;;) {
    const seconds = Math.min(WAIT_SECONDS, Math.ceil((deadline - Date.now()) / 1000));
    const state = await authorizations.status(authorization.id, seconds);
    if (state?.status === 'completed') break;
    if (state?.status !== 'pending') return { note: `The authorization ${state ? 'failed' : 'is gone'}.` };
    if (signal.aborted || Date.now() >= deadline) return { note: `The authorization was not completed within ${PERSON_WAIT_MS / 60_000} minutes.` };
    await asking.progress?.(`Waiting for the authorization with ${authorization.provider_id}.`);
  }
  // The client may close what it shows for the elicitation; a client that left meanwhile is no matter.
  await server
    .createElicitationCompletionNotifier(elicitationId, { relatedRequestId: requestId })()
    .catch(() => {});
  return { completed: true };
}

/** The refusal the call answered before, with why the authorization did not go through. */
export function withNote(result: ToolResult, note: string): ToolResult {
  if (!('error' in result)) return result;
  const { additional_prompt_content: more } = result.error;
  return { error: { ...result.error, additional_prompt_content: more ? `${note} ${more}` : note } };
}
