/**
 * Asking the person at the client rather than the model, written once for both eras as the 2026-07-28
 * revision's multi-round-trip requests: a call that needs the person's answer returns `input_required`
 * with the question and a sealed state, and the client calls again with the answer. On a 2025 connection
 * the SDK asks the same question as an `elicitation/create` request and calls the handler again itself.
 * - Form mode confirms a destructive call (`--confirm-destructive`): the message names the tool and shows
 *   its arguments with secret-looking values left out, and the form has one boolean. Nothing else is
 *   ever asked through a form: a form's answer passes through the client, so no credential may.
 * - URL mode sends the person to a provider's authorization page when a call needs one; the engine waits
 *   for the authorization as `GET /v1/auth/status?wait=` does and then runs the call.
 * Only a client that declared the mode is asked; every other client keeps the model's ways: the `confirm`
 * argument, and the authorization URL in the text.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type ClientCapabilities,
  type InputRequest,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '#mcp-server';
import {
  confirmationMessage,
  confirmName,
  needsConfirmation,
  qualifiedName,
  type Authorization,
  type CallOptions,
  type ConfirmWithPerson,
  type Dispatcher,
  type ServingPolicy,
  type Tool,
  type ToolResult,
} from '@quiver/core';

/** How long the person has to answer, and then to complete an authorization they accepted. */
export const PERSON_WAIT_MS = 10 * 60_000;
/** One wait for an authorization (the engine's long-poll allows at most 59 s); progress is reported after each. */
const WAIT_SECONDS = 25;

/** The modes a client declared (`elicitation: {}` is form mode, as the specification keeps it). */
export function elicitationModes(capabilities: ClientCapabilities | undefined): { form: boolean; url: boolean } {
  const declared = capabilities?.elicitation;
  if (declared && !Object.keys(declared).length) return { form: true, url: false };
  return { form: declared?.form !== undefined, url: declared?.url !== undefined };
}

/** What a call's request declared: its own `_meta` in the 2026-07-28 era, else what the connection declared at `initialize`. */
export function declaredCapabilities(ctx: ServerContext, connection: ClientCapabilities | undefined): ClientCapabilities | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? connection;
}

/** The engine's authorizations, as far as a call waiting for one needs them. */
export interface AuthorizationWait {
  /** The authorization once it is no longer pending, or after `waitSeconds` (at most 59). */
  status(id: string, waitSeconds: number): Promise<Authorization | undefined>;
}

/**
 * What a call carries from one round to the next, sealed (HMAC) so that the client cannot change it:
 * which call it belongs to (a digest of its name and arguments), what the person was asked, and what
 * they already answered.
 */
export interface AskState {
  call: string;
  asked: 'confirm' | 'authorize';
  confirmed?: true;
  authorization?: string;
}

/**
 * The seal of the state: a key every engine sharing the master key derives alike, so that a client's next
 * round may reach another engine; a process of its own (`quiver mcp`) may use a random one.
 */
export function askStateCodec(key: Uint8Array = randomBytes(32)): RequestStateCodec<AskState> {
  return createRequestStateCodec<AskState>({ key, ttlSeconds: PERSON_WAIT_MS / 1000 + 60 });
}

/** The call a round belongs to: its user, tool and arguments (a state carried for another user is no use to this one). */
function digestOf(user: string | undefined, name: string, args: Record<string, unknown>): string {
  return createHash('sha256')
    .update(JSON.stringify([user ?? null, name, args]))
    .digest('base64url');
}

/** A call through the dispatcher in rounds: each either answers, or asks the person and says what to carry on with. */
export interface AskingCall {
  dispatcher: Dispatcher;
  options: CallOptions;
  ctx: ServerContext;
  codec: RequestStateCodec<AskState>;
  capabilities: ClientCapabilities | undefined;
  /** Absent where there is no engine to wait on (URL mode is then never asked). */
  authorizations?: AuthorizationWait;
  /** Reports a long wait to a client that asked for progress, so that its timeout starts again. */
  progress?: (message: string) => Promise<void>;
  /** Aborts a read's upstream request; the request's own signal unless the call may outlive it (a task). */
  cancelled?: AbortSignal;
  /** What a round runs once the person has been asked what they must be: the call, unless it is to be scheduled (tasks.ts). */
  dispatch?: (name: string, args: Record<string, unknown>, options: CallOptions) => ReturnType<Dispatcher['dispatch']>;
}

/**
 * Whether the person, not the model, confirms this tool's calls for a client that declared form mode:
 * such a client is listed the tool without `confirm`, and a `confirm` the model sets anyway is ignored.
 */
export const personConfirms = (tool: Tool, policy: ServingPolicy | undefined, capabilities: ClientCapabilities | undefined): boolean =>
  policy?.options.confirmDestructive === true && needsConfirmation(tool) && elicitationModes(capabilities).form;

/** One round of a call: its result, or the question to put to the person first. */
export async function callRound(name: string, input: Record<string, unknown>, call: AskingCall): Promise<ToolResult | InputRequiredResult> {
  const { dispatcher, ctx, codec } = call;
  const modes = elicitationModes(call.capabilities);
  let args = input;
  if (confirmName in args) {
    const found = await dispatcher.find(name, call.options.policy);
    if (found && personConfirms(found.tool, call.options.policy, call.capabilities)) {
      const { [confirmName]: _byModel, ...rest } = args;
      args = rest;
    }
  }
  const id = digestOf(call.options.userId, name, args);
  const carried = ctx.mcpReq.requestState<AskState>();
  // A state of another call (a client that mixed them up) is not this call's: it starts afresh.
  const state = carried?.call === id ? carried : undefined;
  let confirmed = state?.confirmed === true;
  let answer: boolean | undefined;
  if (state?.asked === 'confirm') {
    const response = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
    answer = response.kind === 'elicit' && response.action === 'accept' && response.content?.[confirmName] === true;
    confirmed = answer;
  }
  let note: string | undefined;
  if (state?.asked === 'authorize' && state.authorization) note = await awaitAuthorization(call, state.authorization);

  let question: InputRequest | undefined;
  const confirmWithPerson: ConfirmWithPerson | undefined =
    answer !== undefined
      ? async () => answer
      : modes.form
        ? async (tool, shown) => {
            question = confirmationForm(tool, shown);
            return undefined;
          }
        : undefined;
  const dispatch = call.dispatch ?? ((...given: Parameters<Dispatcher['dispatch']>) => dispatcher.dispatch(...given));
  const { result, tool, authorization } = await dispatch(name, confirmed ? { ...args, [confirmName]: true } : args, {
    ...call.options,
    confirmWithPerson,
    // A client that cancels the request (or goes away) no longer waits: a read still unanswered is aborted.
    cancelled: call.cancelled ?? ctx.mcpReq.signal,
  });
  if (note) return withNote(result, note);
  if (question) return inputRequired({ inputRequests: { confirm: question }, requestState: await codec.mint({ call: id, asked: 'confirm' }, ctx) });
  if (modes.url && call.authorizations && tool && authorization?.status === 'pending' && authorization.url && authorization.id !== state?.authorization) {
    const legacy = ctx.mcpReq.envelope === undefined;
    const ask: InputRequest = {
      method: 'elicitation/create',
      params: {
        mode: 'url',
        message: `${qualifiedName(tool)} needs your authorization with ${authorization.provider_id}. Open the page to grant it; the call runs once you have.`,
        url: authorization.url,
        // The 2025 revisions name the elicitation: the authorization's own id, so that its completion can be announced.
        ...(legacy && { elicitationId: authorization.id }),
      },
    } as InputRequest;
    const carry: AskState = { call: id, asked: 'authorize', authorization: authorization.id, ...(confirmed && { confirmed: true }) };
    return inputRequired({ inputRequests: { authorize: ask }, requestState: await codec.mint(carry, ctx) });
  }
  return result;
}

/** The form that confirms a destructive call: one boolean, and the call shown with secrets left out. */
function confirmationForm(tool: Parameters<ConfirmWithPerson>[0], shown: Record<string, unknown>): InputRequest {
  return inputRequired.elicit({
    mode: 'form',
    message: confirmationMessage(tool, shown),
    requestedSchema: {
      type: 'object',
      properties: {
        [confirmName]: { type: 'boolean', title: `Run ${qualifiedName(tool)}`, description: 'Check to run this exact action.', default: false },
      },
      required: [confirmName],
    },
  });
}

/**
 * Waits for the authorization the person was sent to: undefined once it completed (the call then runs),
 * or a note saying why not (declined, failed, not completed in time), added to the refusal the call answers.
 */
async function awaitAuthorization(call: AskingCall, id: string): Promise<string | undefined> {
  const { ctx, authorizations } = call;
  const response = inputResponse(ctx.mcpReq.inputResponses, 'authorize');
  if (response.kind !== 'elicit') return 'The client could not ask the user to open the authorization page.';
  if (response.action !== 'accept') return `The user ${response.action === 'decline' ? 'declined' : 'cancelled'} the authorization request.`;
  if (!authorizations) return 'The authorization cannot be awaited here.';
  const deadline = Date.now() + PERSON_WAIT_MS;
  for (;;) {
    const seconds = Math.min(WAIT_SECONDS, Math.ceil((deadline - Date.now()) / 1000));
    const state = await authorizations.status(id, seconds);
    if (state?.status === 'completed') break;
    if (state?.status !== 'pending') return `The authorization ${state ? 'failed' : 'is gone'}.`;
    if (ctx.mcpReq.signal.aborted || Date.now() >= deadline) return `The authorization was not completed within ${PERSON_WAIT_MS / 60_000} minutes.`;
    await call.progress?.('Waiting for the user to complete the authorization.');
  }
  // A 2025 client may close what it shows for the elicitation; a client that left meanwhile is no matter.
  if (ctx.mcpReq.envelope === undefined) {
    await ctx.mcpReq.notify({ method: 'notifications/elicitation/complete', params: { elicitationId: id } }).catch(() => {});
  }
  return undefined;
}

/** The refusal the call answered before, with why the authorization did not go through. */
export function withNote(result: ToolResult, note: string): ToolResult {
  if (!('error' in result)) return result;
  const { additional_prompt_content: more } = result.error;
  return { error: { ...result.error, additional_prompt_content: more ? `${note} ${more}` : note } };
}
