/**
 * Campaign reports computed from what the emulator holds: form submissions to the campaign's FORM
 * assets, filed under contacts. A contact is influenced by any such submission; its first (last)
 * touch counts for the campaign when its first (last) submission anywhere went to one of those forms.
 * The emulator tracks no web sessions and no deals, so those figures are zero.
 */
import { badRequest, type Handler, type HubspotContext, type HubspotRequest } from './context.js';
import { assetIds } from './campaign-assets.js';
import { currencyOf } from './campaign-budget.js';
import { propertiesOf, requireCampaign } from './campaign-store.js';
import { allSubmissions, type SubmissionRecord } from './forms.js';
import { page } from './paging.js';
import { dateWindow, text } from './query.js';

const CONTACT_TYPES = ['contactFirstTouch', 'contactLastTouch', 'influencedContacts'] as const;
type ContactType = (typeof CONTACT_TYPES)[number];

const ATTRIBUTION_MODELS = [
  'LINEAR',
  'FIRST_INTERACTION',
  'LAST_INTERACTION',
  'FULL_PATH',
  'U_SHAPED',
  'W_SHAPED',
  'TIME_DECAY',
  'J_SHAPED',
  'INVERSE_J_SHAPED',
];

/** Contact vids of each kind, in the order they first qualified. */
function contactsOf(ctx: HubspotContext, campaignId: string, query: HubspotRequest['query']): Record<ContactType, number[]> {
  const forms = new Set(assetIds(ctx, campaignId, 'FORM'));
  const { from, to } = dateWindow(query);
  const first = new Map<number, SubmissionRecord>();
  const last = new Map<number, SubmissionRecord>();
  const influenced = new Set<number>();
  for (const submission of allSubmissions(ctx)) {
    const vid = submission.contactVid;
    if (vid === null) continue;
    if (!first.has(vid)) first.set(vid, submission);
    last.set(vid, submission);
    if (forms.has(submission.formId) && submission.submittedAt >= from && submission.submittedAt <= to) influenced.add(vid);
  }
  const touching = (touches: Map<number, SubmissionRecord>) =>
    [...touches].filter(([, s]) => forms.has(s.formId) && s.submittedAt >= from && s.submittedAt <= to).map(([vid]) => vid);
  return { contactFirstTouch: touching(first), contactLastTouch: touching(last), influencedContacts: [...influenced] };
}

export const campaignReportHandlers: Record<string, Handler> = {
  'get-/marketing/v3/campaigns/{campaignGuid}/reports/contacts/{contactType}': ({ params, query }, ctx) => {
    const campaign = requireCampaign(ctx.db, params.campaignGuid!);
    const contactType = params.contactType as ContactType;
    if (!CONTACT_TYPES.includes(contactType)) {
      throw badRequest(`contactType must be one of ${CONTACT_TYPES.join(', ')}`, [
        { message: `unknown contact type '${contactType}'`, in: 'path', code: 'INVALID_VALUE' },
      ]);
    }
    const vids = contactsOf(ctx, campaign.id, query)[contactType];
    return {
      status: 200,
      body: page(
        vids.map((vid) => ({ id: String(vid) })),
        query,
        100,
      ),
    };
  },

  'get-/marketing/v3/campaigns/{campaignGuid}/reports/metrics': ({ params, query }, ctx) => {
    const campaign = requireCampaign(ctx.db, params.campaignGuid!);
    const contacts = contactsOf(ctx, campaign.id, query);
    return {
      status: 200,
      body: {
        sessions: 0,
        influencedContacts: contacts.influencedContacts.length,
        newContactsFirstTouch: contacts.contactFirstTouch.length,
        newContactsLastTouch: contacts.contactLastTouch.length,
      },
    };
  },

  'get-/marketing/v3/campaigns/{campaignGuid}/reports/revenue': ({ params, query }, ctx) => {
    const campaign = requireCampaign(ctx.db, params.campaignGuid!);
    const model = text(query, 'attributionModel');
    if (model !== undefined && !ATTRIBUTION_MODELS.includes(model)) {
      throw badRequest(`attributionModel must be one of ${ATTRIBUTION_MODELS.join(', ')}`, [
        { message: `unknown attribution model '${model}'`, in: 'query', code: 'INVALID_VALUE' },
      ]);
    }
    return {
      status: 200,
      body: {
        contactsNumber: contactsOf(ctx, campaign.id, query).influencedContacts.length,
        dealsNumber: 0,
        dealAmount: 0,
        revenueAmount: 0,
        currencyCode: currencyOf(propertiesOf(campaign)),
      },
    };
  },
};
